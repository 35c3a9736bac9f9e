/**
 * Gathers everything the site shows from the read API at build time. Long windows come from rollups
 * (hourly rows for the last 24 hours, daily rows for whole days), so a build reads about the same
 * number of D1 rows whatever the window; raw samples only as a bounded recent slice, for timelines,
 * inter-token latency and the split's residual. Every request's D1 rows read are counted.
 */
import { fetchArchiveSummary } from './archive.ts';
import { siteProfiles, type ProfileRow } from './profiles.ts';
import { ttfaChanges } from './changes.ts';
import { pairedViews, type PairedRow } from './paired.ts';
import { forEachPage, pageUrl, type Paged } from '../../../shared/api-pages.ts';
import { ROWS_READ_HEADER } from '../../../shared/constants.ts';
import { SITE_BUILD_MAX_SAMPLES, SITE_BUILD_RECENT_HOURS, SITE_BUILD_SAMPLE_PAGE } from '../../../shared/config/capacity.ts';
import { COMPARISONS_PER_REQUEST, SITE_BURST_RUNS, SITE_PAIRED_DAYS, SITE_PROFILE_DAYS } from '../../../shared/config/read-limits.ts';
import type { MaintenanceDoc, PromptCacheDoc, PromptCachesDoc } from '../../../shared/api-types.ts';
import { tallyOfRow, type HistoryRow } from './status.ts';
import { monthOf, monthTtft, uptimeMonth, type UptimeMonth } from '../../../shared/status/uptime.ts';
import { tickMinutesOf } from '../../../shared/config/schedule.ts';
import type { VendorIncidentsDoc } from '../../../shared/api-types.ts';
import { SITE_VENDOR_DAYS, SITE_VENDOR_INCIDENTS } from '../../../shared/config/vendor-status-costs.ts';
import { DAY_MS, HOUR_MS, dayOf, hourOf, rollupFromBase64Json, type Rollup, type RollupBase64Json } from '../../../shared/rollup/rollup.ts';
import { rollupPercentileGroups, type RollupGroupColumn } from '../../../shared/rollup/percentiles.ts';
import { timelinePoints } from '../../../shared/rollup/timeline.ts';
import { HISTOGRAM_RELATIVE_ERROR } from '../../../shared/stats/exp-histogram.ts';
import {
  DEFAULT_WINDOW,
  SITE_METRICS,
  SITE_SAMPLE_FIELDS,
  WINDOWS,
  type HistoryPoint,
  type PercentileGroup,
  type PromptVariant,
  type Region,
  type SiteData,
  type SiteBursts,
  type SiteIncident,
  type SiteMetric,
  type SiteSample,
  type StatusDoc,
  type Target,
  type WindowView,
} from './types.ts';

/** The longest view, in days: how far back the daily rows are read. */
export const LONGEST_WINDOW_DAYS = Math.max(...WINDOWS.map((w) => w.days));

/** The raw slice: the newest samples of this many hours, at most MAX_SAMPLES of them, PAGE a request (what the cost model counts). */
export const RECENT_HOURS = SITE_BUILD_RECENT_HOURS;
const PAGE = SITE_BUILD_SAMPLE_PAGE;
export const MAX_SAMPLES = SITE_BUILD_MAX_SAMPLES;

export class SiteDataError extends Error {}

interface Fetched<T> {
  body: T;
  rowsRead: number;
}

async function getJson<T>(url: string, fetchImpl: typeof fetch, readToken?: string): Promise<Fetched<T>> {
  let response: Response;
  try {
    // With the read token the build is no anonymous reader: fresh answers, outside the public budget and cache.
    response = await fetchImpl(url, {
      signal: AbortSignal.timeout(30_000),
      headers: readToken ? { authorization: `Bearer ${readToken}` } : {},
    });
  } catch (e) {
    throw new SiteDataError(
      `cannot reach the read API at ${url} (${(e as Error).message}); start it (npm run dev) or build from an export (SITE_DATA_FILE=…)`,
    );
  }
  if (!response.ok) throw new SiteDataError(`${url} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  return { body: (await response.json()) as T, rowsRead: Number(response.headers.get(ROWS_READ_HEADER) ?? 0) };
}

const iso = (t: number) => new Date(t).toISOString();
const BY: RollupGroupColumn[] = ['region', 'target'];

const byTarget = (rows: Rollup[]) => rollupPercentileGroups(rows, 'ttft_ms', ['target']) as unknown as PercentileGroup[];

function percentilesOf(rows: Rollup[]): Record<SiteMetric, PercentileGroup[]> {
  return Object.fromEntries(
    SITE_METRICS.map((m) => [
      m,
      rollupPercentileGroups(
        rows,
        m,
        m === 'network_ms' || m === 'server_ms' ? [...BY, 'split_source'] : BY,
      ) as unknown as PercentileGroup[],
    ]),
  ) as Record<SiteMetric, PercentileGroup[]>;
}

/**
 * A window's history (shared/rollup/timeline.ts, the function GET /api/v1/timeline and its views call), its points
 * without their prompt variant, as the site has drawn them (each variant's views are built from its own rows).
 */
const historyOf = (rows: Rollup[], resolution: 'hour' | 'day', pooled = false): HistoryPoint[] =>
  timelinePoints(rows, resolution, pooled).map(({ prompt_variant: _, ...p }) => p);

/**
 * Every view from two reads of rollups: the last 24 whole hours, and the whole days of the longest
 * view. A view of N days is its N whole UTC days before today plus today's ended hours.
 */
export function windowViews(hourly: Rollup[], daily: Rollup[], now: number): WindowView[] {
  const lastHour = hourOf(now);
  const today = dayOf(now);
  const todaysHours = hourly.filter((r) => r.hour >= today);
  return WINDOWS.map((w): WindowView => {
    if (w.id === '24h') {
      return {
        id: w.id,
        label: w.label,
        window: { from: iso(lastHour - 24 * HOUR_MS), to: iso(lastHour) },
        resolution: 'hour',
        percentiles: percentilesOf(hourly),
        ttft_by_target: byTarget(hourly),
        history: historyOf(hourly, 'hour'),
        target_history: historyOf(hourly, 'hour', true),
      };
    }
    const from = today - w.days * DAY_MS;
    const days = daily.filter((r) => r.hour >= from);
    const rows = [...days, ...todaysHours];
    return {
      id: w.id,
      label: w.label,
      window: { from: iso(from), to: iso(lastHour) },
      resolution: 'day',
      percentiles: percentilesOf(rows),
      ttft_by_target: byTarget(rows),
      // Today's hours merged into today.
      history: historyOf(rows, 'day'),
      target_history: historyOf(rows, 'day', true),
    };
  });
}

/** `fetchImpl`: how to reach the API (a test inside workerd passes its own). */
/** Each region's and target's samples, last sample and (per region) colos, over the raw slice. */
function countSlice(regions: Region[], targets: Target[], samples: SiteSample[]): void {
  const last = (rows: SiteSample[]) => (rows.length ? iso(Math.max(...rows.map((s) => s.started_at))) : null);
  for (const r of regions) {
    const mine = samples.filter((s) => s.region === r.code);
    const colos = new Map<string | null, { colo: string | null; samples: number; outside_region: number }>();
    for (const s of mine) {
      const c = colos.get(s.colo) ?? { colo: s.colo, samples: 0, outside_region: 0 };
      c.samples++;
      if (s.colo_outside_region) c.outside_region++;
      colos.set(s.colo, c);
    }
    Object.assign(r, {
      samples: mine.length,
      last_sample_at: last(mine),
      colos: [...colos.values()].sort((a, b) => b.samples - a.samples),
    });
  }
  for (const t of targets) {
    const mine = samples.filter((s) => s.target === t.id);
    Object.assign(t, { samples: mine.length, last_sample_at: last(mine) });
  }
}

export async function collectSiteData(
  apiBase: string,
  now = Date.now(),
  fetchImpl: typeof fetch = fetch,
  readToken = process.env.SITE_READ_TOKEN,
): Promise<SiteData> {
  const base = apiBase.replace(/\/$/, '') + '/api/v1';
  const lastHour = hourOf(now);
  const today = dayOf(now);
  const recentFrom = now - RECENT_HOURS * HOUR_MS;
  const recent = `from=${recentFrom}&to=${now}`;
  const requests: Record<string, string> = { health: `${base}/health` };
  const rowsRead: Record<string, number> = {};
  const get = async <T>(name: string, url: string): Promise<T> => {
    requests[name] ??= url;
    const r = await getJson<T>(url, fetchImpl, readToken);
    rowsRead[name] = (rowsRead[name] ?? 0) + r.rowsRead;
    return r.body;
  };

  const health = await get<{ simulated: boolean; schedule: string; spread?: number; prompt_variants: PromptVariant[] }>(
    'health',
    requests.health,
  );
  const variant = health.prompt_variants[0];
  // Names and settings only (a one-minute window reads next to nothing): their counts come from the raw slice below.
  const { regions } = await get<{ regions: Region[] }>('regions', `${base}/regions?window=1m`);
  const { targets } = await get<{ targets: Target[] }>('targets', `${base}/targets?window=1m`);
  const v = `variant=${encodeURIComponent(variant.id)}`;
  // Every variant's rows in two reads; each variant's views are built from its own rows alone.
  // Page after page (each one small enough for a free-plan request's CPU), histograms as their stored bytes.
  const rollups = async (name: string, url: string): Promise<Rollup[]> => {
    requests[name] = url;
    const rows: Rollup[] = [];
    await forEachPage(
      (cursor) => get<{ rows: RollupBase64Json[] } & Paged>(name, pageUrl(url, cursor)),
      (page) => {
        for (const j of page.rows) rows.push(rollupFromBase64Json(j));
      },
    );
    return rows;
  };
  const hourly = await rollups(
    'rollups_hourly',
    `${base}/rollups?resolution=hour&histograms=base64&from=${lastHour - 24 * HOUR_MS}&to=${lastHour}`,
  );
  const daily = await rollups(
    'rollups_daily',
    `${base}/rollups?resolution=day&histograms=base64&from=${today - LONGEST_WINDOW_DAYS * DAY_MS}&to=${today}`,
  );

  const samples: SiteSample[] = [];
  requests.samples = `${base}/samples?limit=${PAGE}&${recent}`;
  await forEachPage(
    (cursor) => get<{ samples: Array<Record<string, unknown>> } & Paged>('samples', pageUrl(requests.samples, cursor)),
    (page) => {
      for (const s of page.samples) samples.push(Object.fromEntries(SITE_SAMPLE_FIELDS.map((f) => [f, s[f]])) as unknown as SiteSample);
      return samples.length < MAX_SAMPLES;
    },
  );

  const status = await get<StatusDoc>('status', `${base}/status`);
  const bursts = await get<SiteBursts>('bursts', `${base}/bursts?runs=${SITE_BURST_RUNS}`);
  const { incidents } = await get<{ incidents: SiteIncident[] }>(
    'incidents',
    `${base}/incidents?from=${today - LONGEST_WINDOW_DAYS * DAY_MS}&to=${now}&limit=200&points=true`,
  );

  // The vendors' status pages beside the incidents: asked for only when a target names one (health lists them).
  const vendorPages = (health as { vendor_status?: unknown }).vendor_status;
  const vendor_incidents =
    Array.isArray(vendorPages) && vendorPages.length > 0
      ? await get<VendorIncidentsDoc>(
          'vendor_incidents',
          `${base}/vendor-incidents?from=${today - SITE_VENDOR_DAYS * DAY_MS}&to=${now}&limit=${SITE_VENDOR_INCIDENTS}`,
        )
      : undefined;

  /** Every row of a paged read (`{ rows, next_cursor }`), page after page. */
  const allRows = async <T>(name: string, url: string): Promise<T[]> => {
    requests[name] = url;
    const rows: T[] = [];
    await forEachPage(
      (cursor) => get<{ rows: T[] } & Paged>(name, pageUrl(url, cursor)),
      (page) => {
        rows.push(...page.rows);
      },
    );
    return rows;
  };

  // The paired comparisons' hourly blocks of the last SITE_PAIRED_DAYS (one row a region, variant and hour), compared here.
  const pairedFrom = lastHour - SITE_PAIRED_DAYS * DAY_MS;
  const pairedRows = await allRows<PairedRow>('paired_hours', `${base}/paired-hours?from=${pairedFrom}&to=${lastHour}`);
  const paired = pairedViews(pairedRows, { from: iso(pairedFrom), to: iso(lastHour) });
  // Time profiles of the last four weeks' ended days: a row per region × target × variant and day.
  const profileRows = await allRows<ProfileRow>(
    'hour_profiles',
    `${base}/hour-profiles?from=${today - SITE_PROFILE_DAYS * DAY_MS}&to=${today}`,
  );

  // What each opted-in target's prompt cache is worth, over the paired comparisons' days: per region, a few targets a request.
  const promptCaches: PromptCacheDoc[] = [];
  const cacheTargets = targets.filter((t) => t.prompt_cache).map((t) => t.id);
  const perRequest = Math.max(1, Math.floor(COMPARISONS_PER_REQUEST.free / 2));
  for (const region of regions)
    for (let i = 0; i < cacheTargets.length; i += perRequest) {
      const url = `${base}/prompt-cache?region=${region.code}&target=${cacheTargets.slice(i, i + perRequest).join(',')}&from=${pairedFrom}&to=${lastHour}`;
      requests.prompt_cache ??= url;
      promptCaches.push(...(await get<PromptCachesDoc>('prompt_cache', url)).caches);
    }

  // The status keeper's judgement over time: hours of the last day, days of the longest view; and the maintenance windows.
  const statusHistory = {
    hours: await allRows<HistoryRow>(
      'status_hours',
      `${base}/status-history?resolution=hour&from=${lastHour - 24 * HOUR_MS}&to=${lastHour + HOUR_MS}`,
    ),
    days: await allRows<HistoryRow>(
      'status_days',
      `${base}/status-history?resolution=day&from=${today - (LONGEST_WINDOW_DAYS - 1) * DAY_MS}&to=${today + DAY_MS}`,
    ),
  };
  const { windows: maintenance } = await get<{ windows: MaintenanceDoc[] }>(
    'maintenance',
    `${base}/maintenance?from=${today - LONGEST_WINDOW_DAYS * DAY_MS}`,
  );

  const archiveBase = process.env.SITE_ARCHIVE_URL || `${apiBase.replace(/\/$/, '')}/archive`;
  const archive = await fetchArchiveSummary(apiBase, archiveBase, fetchImpl);

  const uptime = uptimeMonths(statusHistory.days, daily, incidents, targets, status, variant.id, health, now);

  countSlice(regions, targets, samples);
  const ofVariant = (rows: Rollup[], id: string) => rows.filter((r) => r.prompt_variant === id);
  const variant_windows = Object.fromEntries(
    health.prompt_variants.map((pv) => [pv.id, windowViews(ofVariant(hourly, pv.id), ofVariant(daily, pv.id), now)]),
  );
  const windows = variant_windows[variant.id];
  const main = windows.find((w) => w.id === DEFAULT_WINDOW)!;
  // Not fetched by the build: the same figures of the default view asked of the API, for checking.
  for (const m of SITE_METRICS) {
    requests[`percentiles_${m}`] =
      `${base}/percentiles?source=rollups&metric=${m}&by=region,target&${v}&from=${Date.parse(main.window.from)}&to=${Date.parse(main.window.to)}`;
  }
  return {
    generated_at: iso(now),
    source: apiBase,
    window: main.window,
    simulated: health.simulated,
    schedule: health.schedule,
    variant,
    variants: health.prompt_variants,
    variant_windows,
    regions,
    targets,
    percentiles: main.percentiles,
    windows,
    relative_error: HISTOGRAM_RELATIVE_ERROR,
    recent: { from: iso(recentFrom), to: iso(now) },
    samples,
    status,
    incidents,
    ...(vendor_incidents ? { vendor_incidents } : {}),
    bursts: { schedule: bursts.schedule, levels: bursts.levels, runs: bursts.runs, reports: bursts.reports },
    paired,
    changes: ttfaChanges(daily, today),
    profiles: siteProfiles(profileRows),
    prompt_caches: promptCaches,
    status_history: statusHistory,
    uptime,
    maintenance,
    archive,
    api_requests: requests,
    d1_rows_read: rowsRead,
    d1_rows_read_total: Object.values(rowsRead).reduce((n, x) => n + x, 0),
  };
}

/**
 * The uptime report of every month the status history's days reach into (shared/status/uptime.ts, the function the
 * API's GET /api/v1/uptime calls), from what the build has read already: no read of its own.
 */
function uptimeMonths(
  days: readonly HistoryRow[],
  daily: readonly Rollup[],
  incidents: readonly SiteIncident[],
  targets: readonly Target[],
  status: StatusDoc,
  firstVariant: string,
  health: { schedule: string; spread?: number },
  now: number,
): UptimeMonth[] {
  const ticksPerDay = (24 * 60) / (tickMinutesOf(health.schedule) ?? 5) / (health.spread ?? 1);
  const months = [...new Set(days.map((d) => d.day!.slice(0, 7)))].sort();
  return months.map(
    (month) =>
      uptimeMonth({
        month,
        now,
        ticksPerDay,
        targets: targets.map((t) => ({
          id: t.id,
          regions: t.regions,
          variants: [...new Set(status.targets.filter((x) => x.target === t.id).map((x) => x.prompt_variant))],
        })),
        days: days.map((d) => ({
          day: Date.parse(d.day!),
          target: d.target,
          prompt_variant: d.prompt_variant,
          region: d.region,
          counts: tallyOfRow(d).counts,
        })),
        incidents: incidents.map((i) => ({
          id: i.id,
          target: i.target,
          regions: i.regions,
          opened_at: Date.parse(i.opened_at),
          resolved_at: i.resolved_at === null ? null : Date.parse(i.resolved_at),
        })),
        ttft: monthTtft(daily.filter((r) => r.prompt_variant === firstVariant && monthOf(r.hour) === month)),
      })!,
  );
}
