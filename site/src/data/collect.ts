/** Gathers everything the site shows from the read API, for one fixed window ending at build time. */
import { SITE_METRICS, SITE_SAMPLE_FIELDS, type PercentileGroup, type PromptVariant, type Region, type SiteData, type SiteMetric, type SiteSample, type Target } from './types.ts';

/** How far back the reports look. */
export const REPORT_WINDOW_DAYS = 7;
/** Samples fetched per page, and at most in all (the newest first). */
const PAGE = 1_000;
export const MAX_SAMPLES = 50_000;

export class SiteDataError extends Error {}

async function getJson<T>(url: string): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  } catch (e) {
    throw new SiteDataError(`cannot reach the read API at ${url} (${(e as Error).message}); start it (npm run dev) or build from an export (SITE_DATA_FILE=…)`);
  }
  if (!response.ok) throw new SiteDataError(`${url} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  return (await response.json()) as T;
}

export async function collectSiteData(apiBase: string, now = Date.now()): Promise<SiteData> {
  const base = apiBase.replace(/\/$/, '') + '/api/v1';
  const from = now - REPORT_WINDOW_DAYS * 86_400_000;
  const window = `from=${from}&to=${now}`;
  const requests: Record<string, string> = {
    health: `${base}/health`,
    regions: `${base}/regions?${window}`,
    targets: `${base}/targets?${window}`,
  };
  requests.samples = `${base}/samples?limit=${PAGE}&${window}`;

  const health = await getJson<{ simulated: boolean; schedule: string; prompt_variants: PromptVariant[] }>(requests.health);
  const variant = health.prompt_variants[0];
  for (const metric of SITE_METRICS) requests[`percentiles_${metric}`] = `${base}/percentiles?metric=${metric}&by=region,target&variant=${encodeURIComponent(variant.id)}&${window}`;
  const { regions } = await getJson<{ regions: Region[] }>(requests.regions);
  const { targets } = await getJson<{ targets: Target[] }>(requests.targets);
  const percentiles = {} as Record<SiteMetric, PercentileGroup[]>;
  for (const metric of SITE_METRICS) percentiles[metric] = (await getJson<{ groups: PercentileGroup[] }>(requests[`percentiles_${metric}`])).groups;

  const samples: SiteSample[] = [];
  let cursor: number | null = null;
  do {
    const page: { samples: Array<Record<string, unknown>>; next_cursor: number | null } = await getJson(requests.samples + (cursor ? `&cursor=${cursor}` : ''));
    for (const s of page.samples) samples.push(Object.fromEntries(SITE_SAMPLE_FIELDS.map((f) => [f, s[f]])) as unknown as SiteSample);
    cursor = page.next_cursor;
  } while (cursor !== null && samples.length < MAX_SAMPLES);

  return {
    generated_at: new Date(now).toISOString(),
    source: apiBase,
    window: { from: new Date(from).toISOString(), to: new Date(now).toISOString() },
    simulated: health.simulated,
    schedule: health.schedule,
    variant,
    variants: health.prompt_variants,
    regions,
    targets,
    percentiles,
    samples,
    api_requests: requests,
  };
}
