/**
 * What the local demo (npm start) is still measuring when it builds a page: passed to the build as
 * SITE_PENDING (JSON), shown as a sentence with the expected time instead of an empty chart.
 */
import type { PendingPart, SiteData } from './types.ts';
import { MINUTE_MS } from '../../../shared/time.ts';

const IDS: ReadonlySet<string> = new Set<PendingPart['id']>(['backfill', 'incident', 'concurrency']);

/** The parts named in SITE_PENDING; a malformed value is an error (the demo wrote it). */
export function pendingFromEnv(value: string | undefined): PendingPart[] {
  if (!value) return [];
  const parts = JSON.parse(value) as unknown;
  if (!Array.isArray(parts)) throw new Error('SITE_PENDING must be a JSON array of { id, label, ready_at }');
  return parts.map((p) => {
    if (!p || !IDS.has(p.id) || typeof p.label !== 'string' || Number.isNaN(Date.parse(p.ready_at)))
      throw new Error(`SITE_PENDING: bad part ${JSON.stringify(p)}`);
    return { id: p.id, label: p.label, ready_at: new Date(p.ready_at).toISOString() };
  });
}

/** "about 2 min after this build (09:52 UTC)". */
export function readyIn(part: PendingPart, builtAt: string): string {
  const minutes = Math.max(1, Math.round((Date.parse(part.ready_at) - Date.parse(builtAt)) / MINUTE_MS));
  return `about ${minutes} min after this build (${part.ready_at.slice(11, 16)} UTC)`;
}

/** The sentence for a part still being measured, or null when it is not pending. */
export function pendingNote(data: Pick<SiteData, 'pending' | 'generated_at'>, id: PendingPart['id']): string | null {
  const part = data.pending?.find((p) => p.id === id);
  return part
    ? `Being measured now: ${part.label}, ready ${readyIn(part, data.generated_at)}. npm start rebuilds this page when it lands.`
    : null;
}
