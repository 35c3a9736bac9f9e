/**
 * "Answered from": where the vendor served a region × target × variant's probes of the last 24 whole hours
 * (`served_by`, with the header, body field or URL part that said so), one entry per place, most samples first,
 * each with its own TTFT median: GET /api/v1/served-by's answer, as read.
 */
import type { ServedPlaceRow } from '../../../shared/rollup/hour-places.ts';
import type { SiteData } from './types.ts';

export type ServedPlace = ServedPlaceRow;

export function answeredFrom(data: Pick<SiteData, 'served'>, region: string, target: string, variant: string): ServedPlace[] {
  return data.served?.rows.find((r) => r.region === region && r.target === target && r.prompt_variant === variant)?.places ?? [];
}
