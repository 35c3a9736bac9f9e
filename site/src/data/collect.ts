/**
 * Gathers everything the site shows from the read API at build time, part by part (parts/): what the public views
 * hold is read from them, as every anonymous reader reads it (no D1 row, the same numbers as the API's), and only the
 * raw slice and the parts no view holds yet on the live path with the read token. Every request's D1 rows are counted.
 */
import { ApiReader } from './api-reader.ts';
import { SITE_PARTS } from './parts/index.ts';
import type { SiteData } from './types.ts';

export { SiteDataError } from './api-reader.ts';

/** `fetchImpl`: how to reach the API (a test inside workerd passes its own). */
export async function collectSiteData(
  apiBase: string,
  now = Date.now(),
  fetchImpl: typeof fetch = fetch,
  readToken = process.env.SITE_READ_TOKEN,
): Promise<SiteData> {
  const api = new ApiReader(apiBase.replace(/\/$/, ''), fetchImpl, readToken);
  const data: Partial<SiteData> = {};
  for (const part of SITE_PARTS) Object.assign(data, await part.collect({ api, now, apiBase, fetch: fetchImpl, data }));
  if (api.missingViews.length > 0)
    console.warn(
      `site build: ${api.missingViews.length} view(s) not built yet, answered live instead (${api.missingViews.join(', ')}); POST /api/v1/views builds them`,
    );
  return {
    ...(data as SiteData),
    generated_at: new Date(now).toISOString(),
    source: apiBase,
    api_requests: api.requests,
    d1_rows_read: api.rowsRead,
    d1_rows_read_total: Object.values(api.rowsRead).reduce((n, x) => n + x, 0),
  };
}
