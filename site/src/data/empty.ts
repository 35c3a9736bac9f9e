/**
 * The site's data before any probe: every configured region, target and prompt variant, and no sample. What
 * `npm run deploy -- --dry-run` builds when no read API answers, so the build and the static-assets Worker are
 * checked without one. Each part says what it shows then (parts/).
 */
import type { ObservatoryConfig } from '../../../shared/config/types.ts';
import { SITE_PARTS } from './parts/index.ts';
import type { SiteData } from './types.ts';

export function emptySiteData(config: ObservatoryConfig, now = Date.now()): SiteData {
  const data: Partial<SiteData> = {};
  for (const part of SITE_PARTS) Object.assign(data, part.empty(config, now, data));
  return {
    ...(data as SiteData),
    generated_at: new Date(now).toISOString(),
    source: 'no data: an empty state built from observatory.config.ts',
    api_requests: {},
    d1_rows_read: {},
    d1_rows_read_total: 0,
  };
}
