/**
 * The cost model: what a configuration costs per day against a plan's limits (plan-limits.ts), and how
 * many ticks the scheduler must spread each tick's work over to stay inside them. The schedule's own
 * arithmetic is in schedule.ts, the read API's per-request limits in read-limits.ts. Figures from Cloudflare's published limits
 * (Workers, D1, Durable Objects; paid-plan monthly inclusions divided by 30).
 */
import { MINUTE_MS } from '../time.ts';
import { requestsPerJob, runsIn, storedListOf, targetVariantPairs, workListOf } from './work-list.ts';
import { PLAN_LIMITS } from './plan-limits.ts';
import { maxSubrequestsPerJob, probesPerAlarm, tickMinutesOf } from './schedule.ts';
import { ANON_LIMITS, HOURLY_ROW_UNITS, PERCENTILE_ROW_UNITS, ROLLUP_PAGE_ROWS } from './read-limits.ts';
import type { ObservatoryConfig } from './types.ts';
import {
  API_REQUEST_READS_PER_PAIR,
  CACHE_ROWS_DELETED_PER_REGION_TARGET_HOUR,
  CACHE_ROWS_WRITTEN_PER_REGION_TARGET_HOUR,
  D1_ROWS_WRITTEN_PER_SAMPLE,
  DAILY_ROWS_READ_PER_HOURLY_ROW,
  DAILY_ROWS_WRITTEN_PER_PAIR,
  DAILY_UPSERT_ROWS_READ_PER_PAIR,
  DAY_SPANS_PER_DAY,
  DO_ROWS_WRITTEN_PER_PROBE,
  DO_ROWS_WRITTEN_PER_REGION_DAY,
  DO_ROWS_WRITTEN_PER_REGION_HOUR,
  DO_ROWS_WRITTEN_PER_REGION_TICK_HEARTBEAT,
  DO_ROWS_WRITTEN_PER_REGION_TICK_STATUS,
  HISTORY_ROWS_DELETED_PER_PAIR_HOUR,
  HISTORY_ROWS_READ_PER_PAIR_HOUR,
  HISTORY_ROWS_WRITTEN_PER_PAIR_HOUR,
  HOUR_SPANS_PER_DAY,
  KEEPER_ROWS_WRITTEN_PER_PAIR,
  KEEPER_ROWS_WRITTEN_PER_TARGET_TICK,
  PAIRED_DAYS_DELETED_PER_REGION_VARIANT_DAY,
  PAIRED_DAYS_WRITTEN_PER_REGION_VARIANT_DAY,
  PAIRED_DAY_ROWS_READ_PER_PAIRED_HOUR,
  PAIRED_DAY_UPSERT_ROWS_READ,
  PAIRED_ROWS_DELETED_PER_REGION_VARIANT_HOUR,
  PAIRED_ROWS_WRITTEN_PER_REGION_VARIANT_HOUR,
  PLACES_ROWS_DELETED_PER_PAIR_HOUR,
  PLACES_ROWS_WRITTEN_PER_PAIR_HOUR,
  PROFILE_ROWS_DELETED_PER_PAIR_DAY,
  PROFILE_ROWS_WRITTEN_PER_PAIR_DAY,
  ROLLUP_MARK_READS_PER_REGION_HOUR,
  ROLLUP_ROWS_DELETED_PER_PAIR,
  ROLLUP_ROWS_READ_PER_PAIR,
  ROLLUP_ROWS_READ_PER_SAMPLE_IN_HOUR,
  ROLLUP_ROWS_WRITTEN_PER_PAIR,
  SITE_BUILD_MAX_SAMPLES,
  SITE_BUILD_RAW_READS_PER_SAMPLE,
  SITE_BUILD_RECENT_HOURS,
  SITE_BUILD_SAMPLE_PAGE,
  SITE_BUILD_VIEW_REQUESTS,
  SITE_REPORT_WEEKS,
  SPAN_DELETE_SEEKS_PER_REGION_DAY,
  SPAN_DO_ROWS_WRITTEN_PER_REGION_DAY,
  SPAN_KEYS_PER_REGION_DAY,
  SPAN_MARK_ROWS_WRITTEN_PER_REGION_DAY,
  SPAN_RETENTION_ROWS_WRITTEN_PER_PAIR_DAY,
  SPAN_ROWS_READ_PER_HALF_ROW,
  SPAN_ROWS_WRITTEN_PER_PAIR_DAY,
  STATUS_BASELINE_HOURS,
  STATUS_READS_PER_SEEK,
} from './unit-costs.ts';
import { lookbackMs, resolveStatusRules } from '../status/rules.ts';
import { burstLevels, burstRunsPerDay, burstStreamsPerRun } from './bursts.ts';
import { STREAMS_PER_RUNNER } from '../bursts/level-report.ts';
import { vendorStatusCosts } from './vendor-status-costs.ts';
import { SPAN_READS_PER_SEEK, viewCosts, type ViewCosts } from './view-costs.ts';

/**
 * The readers the model assumes: a site build an hour, a /metrics scrape a minute (answered from its view), 1,000
 * anonymous API requests a day (the public views' answers) and 100 a day on the live path (a token holder's ad-hoc
 * question, each counted as a 7-day percentile query from rollups).
 */
export const DEFAULT_READERS = {
  siteRebuildMinutes: 60,
  metricsScrapeSeconds: 60,
  apiRequestsPerDay: 1_000,
  liveApiRequestsPerDay: 100,
} as const;
const HOURS_PER_DAY = 24;
/** Durable Object memory billed for duration (GB). */
const DO_GB = 0.125;
/** Share of a tick's interval the regional probes may take, so ticks do not pile up. */
const TICK_BUSY_SHARE = 0.8;
const MINUTES_PER_DAY = 1_440;

/** Region × target pairs that take part in the concurrency probes (none without `bursts`). */
function burstPairs(config: ObservatoryConfig): number {
  if (!config.bursts) return 0;
  return config.regions.reduce((n, r) => n + config.targets.filter((t) => t.bursts && runsIn(t, r.code)).length, 0);
}

/**
 * The concurrency probes' share, per day: each stream a stored row like a sample (row, index entry,
 * and both again at retention); per region and run one RPC to queue it, and per target an alarm and
 * one RPC per runner object (4 streams each); 2 Durable Object rows per target run (queued, then
 * removed); each runner busy for a stream's time; the site build reads the newest runs' streams.
 * Not reduced when ticks are spread (bursts are not).
 */
export function burstCosts(config: ObservatoryConfig) {
  const b = config.bursts;
  const pairs = burstPairs(config);
  const runs = b ? burstRunsPerDay(b) : 0;
  const streams = b ? burstStreamsPerRun(b) : 0;
  const runners = b ? burstLevels(b).reduce((n, l) => n + Math.ceil(l / STREAMS_PER_RUNNER), 0) : 0;
  return {
    streamsPerDay: pairs * runs * streams,
    d1RowsWrittenPerDay: pairs * runs * streams * D1_ROWS_WRITTEN_PER_SAMPLE,
    doRequestsPerDay: runs * ((b ? config.regions.length : 0) + pairs * (1 + runners)),
    doRowsWrittenPerDay: runs * pairs * DO_ROWS_WRITTEN_PER_PROBE,
    doGbSecondsPerDay: runs * pairs * runners * config.probeSecondsEstimate * DO_GB,
  };
}

/** Region × opted-in target × prompt-cache variant: each writes a prompt-cache block an hour. */
export function cacheRegionTargets(config: ObservatoryConfig): number {
  return config.regions.reduce((n, r) => n + workListOf(config, r.code).filter((w) => w.variant.promptCache).length, 0);
}

/** Region × prompt variant groups with at least two targets: each writes a paired-comparison row an hour. */
export function pairedRegionVariants(config: ObservatoryConfig): number {
  let groups = 0;
  for (const r of config.regions) {
    const targets = new Map<string, number>();
    for (const { variant } of storedListOf(config, r.code)) targets.set(variant.id, (targets.get(variant.id) ?? 0) + 1);
    for (const n of targets.values()) if (n >= 2) groups++;
  }
  return groups;
}

/**
 * The daily archive (workers/observatory/archive/archive-duty.ts, docs/ARCHIVE.md), per day: retention counts the
 * rows of yesterday and of the day it cuts once for all regions (2 rows read a row: the scan, then the
 * grouping's sort); per region it reads yesterday's rows for the file and deletes the cut day, each a
 * scan of that day's rows of every region (the samples' index starts with tick_id), and the file's rows
 * are sorted once more. In R2 per region: the manifest's GET, a HEAD of the cut day's file and one of an
 * older file, in turn (Class B); the new file's PUT and the manifest's (Class A). The concurrency streams the
 * same again, in files of their own (in every region, when `bursts` is set). The hourly rollups of the
 * last ARCHIVE_ROLLUP_DAYS days before the cut are counted the same way, and per region the day's file
 * read (no delete: rollups keep their own retention); in R2 the same PUTs, and a HEAD of each day
 * already archived. The rollups' retention then confirms the day it cuts before deleting it: its rows
 * counted (the scan and the sort), and per region a delete that scans the day's rows of every region
 * (the key starts with the hour; an upper bound: the regions deleted before it are gone); in R2 per region the manifest's GET,
 * the file's HEAD and one older file's HEAD.
 * Measured in tests/workers/archive.test.ts.
 */
export const ARCHIVE_ROLLUP_DAYS = 7;
export const ARCHIVE_DAYS_COUNTED_PER_RUN = 2;
export const ARCHIVE_ROWS_READ_PER_COUNTED_SAMPLE = 2;
export const ARCHIVE_DAY_SCANS_PER_REGION = 2;
export const ARCHIVE_ROWS_READ_PER_ARCHIVED_SAMPLE = 1;
export const ARCHIVE_R2_CLASS_A_PER_REGION_DAY = 2;
export const ARCHIVE_R2_CLASS_B_PER_REGION_DAY = 3;
export const ROLLUP_RETENTION_DAY_SCANS_PER_REGION = 1;
export const ROLLUP_RETENTION_R2_CLASS_B_PER_REGION = 3;
/** The run itself reads the manifest once per table of samples (which days between have a file: archive-run.ts). */
export const ARCHIVE_R2_CLASS_B_PER_RUN = 2;

export function archiveCosts(config: ObservatoryConfig, samplesPerDay: number, burstStreamsPerDay = 0, rollupRowsPerDay = 0) {
  const regions = config.regions.length;
  const burstRegions = burstStreamsPerDay > 0 ? regions : 0;
  const rowsRead = (rows: number, regionsWriting: number) =>
    rows *
    (ARCHIVE_DAYS_COUNTED_PER_RUN * ARCHIVE_ROWS_READ_PER_COUNTED_SAMPLE +
      regionsWriting * ARCHIVE_DAY_SCANS_PER_REGION +
      ARCHIVE_ROWS_READ_PER_ARCHIVED_SAMPLE);
  const rollupRowsRead =
    rollupRowsPerDay * (ARCHIVE_ROLLUP_DAYS * ARCHIVE_ROWS_READ_PER_COUNTED_SAMPLE + regions + ARCHIVE_ROWS_READ_PER_ARCHIVED_SAMPLE) +
    rollupRowsPerDay * (ARCHIVE_ROWS_READ_PER_COUNTED_SAMPLE + regions * ROLLUP_RETENTION_DAY_SCANS_PER_REGION);
  return {
    d1RowsReadPerDay: rowsRead(samplesPerDay, regions) + rowsRead(burstStreamsPerDay, burstRegions) + rollupRowsRead,
    /** Of those, the raw samples' part: the one that shrinks when ticks are spread (the streams and rollups do not). */
    samplesRowsRead: rowsRead(samplesPerDay, regions),
    r2ClassAPerDay: (2 * regions + burstRegions) * ARCHIVE_R2_CLASS_A_PER_REGION_DAY,
    r2ClassBPerDay:
      (regions + burstRegions) * ARCHIVE_R2_CLASS_B_PER_REGION_DAY +
      regions * (ARCHIVE_R2_CLASS_B_PER_REGION_DAY + ARCHIVE_ROLLUP_DAYS - 2 + ROLLUP_RETENTION_R2_CLASS_B_PER_REGION) +
      ARCHIVE_R2_CLASS_B_PER_RUN,
  };
}

/** The archive's D1 reads a day when each tick runs 1/spread of the work: only the raw samples' part shrinks. */
export function archiveRowsReadSpread(c: Pick<Capacity, 'archive' | 'spread'>): number {
  return c.archive.d1RowsReadPerDay - c.archive.samplesRowsRead * (1 - 1 / c.spread);
}

export interface Capacity {
  tickMinutes: number;
  ticksPerDay: number;
  /** Probes (target × variant) each region runs per tick, before spreading. */
  probesPerRegionTick: Record<string, number>;
  probesPerDay: number;
  /** Samples, their index entries and hourly rollups, each written once and deleted once. */
  d1RowsWrittenPerDay: number;
  /** Everything read per day: rollups, site builds, /metrics scrapes and API requests (the parts below). */
  d1RowsReadPerDay: number;
  d1RowsRead: { rollups: number; status: number; siteBuilds: number; metrics: number; api: number; archive: number; views: number };
  /** One site build's reads, and its requests to the read API. */
  siteBuildRowsRead: number;
  siteBuildRequests: number;
  workerRequestsPerDay: number;
  workerRequests: { crons: number; siteBuilds: number; metrics: number; api: number };
  doRowsWrittenPerDay: number;
  doRequestsPerDay: number;
  doGbSecondsPerDay: number;
  subrequestsPerProbeInvocation: number;
  /** The concurrency probes' share of the figures above (already included in them). */
  bursts: ReturnType<typeof burstCosts>;
  /** The daily archive's D1 reads (in d1RowsRead.archive) and its R2 operations. */
  archive: ReturnType<typeof archiveCosts>;
  /** The public views' builds (their D1 reads in d1RowsRead.views, their DO requests and rows in the totals) and R2 writes. */
  views: ViewCosts;
  /** Each tick runs 1/spread of the work list in turn; 1 means everything every tick. */
  spread: number;
  /** The limit that sets the spread, or null when everything fits. */
  bindingLimit: string | null;
}

export function capacity(config: ObservatoryConfig): Capacity {
  const tickMinutes = tickMinutesOf(config.schedule) ?? 5;
  const ticksPerDay = MINUTES_PER_DAY / tickMinutes;
  const limits = PLAN_LIMITS[config.plan];
  const probesPerRegionTick: Record<string, number> = {};
  // A region's tick takes at least its probes over its lanes, and at least its busiest target's probes one
  // after another (two probes of one target never run at once), whichever is longer.
  let tickProbeSlots = 0;
  for (const region of config.regions) {
    probesPerRegionTick[region.code] = 0;
    let busiestTarget = 0;
    const perTarget = new Map<string, number>();
    for (const { target, variant } of workListOf(config, region.code))
      perTarget.set(target.id, (perTarget.get(target.id) ?? 0) + requestsPerJob(variant));
    for (const probes of perTarget.values()) {
      probesPerRegionTick[region.code] += probes;
      busiestTarget = Math.max(busiestTarget, probes);
    }
    tickProbeSlots = Math.max(tickProbeSlots, probesPerRegionTick[region.code] / config.concurrency, busiestTarget);
  }
  const perTick = Object.values(probesPerRegionTick).reduce((a, b) => a + b, 0);
  const probesPerDay = perTick * ticksPerDay;
  const regionTicksPerDay = config.regions.length * ticksPerDay;
  // One rollup row per hour for each region × target × variant probed; each region's rollup reads the hour's samples of all regions.
  const rollupRowsPerDay = perTick * HOURS_PER_DAY;
  const pairedGroups = pairedRegionVariants(config);
  const cacheGroups = cacheRegionTargets(config);
  const d1RowsWrittenPerDay =
    probesPerDay * D1_ROWS_WRITTEN_PER_SAMPLE +
    rollupRowsPerDay * (ROLLUP_ROWS_WRITTEN_PER_PAIR + ROLLUP_ROWS_DELETED_PER_PAIR) +
    rollupRowsPerDay * (PLACES_ROWS_WRITTEN_PER_PAIR_HOUR + PLACES_ROWS_DELETED_PER_PAIR_HOUR) +
    perTick * DAILY_ROWS_WRITTEN_PER_PAIR +
    perTick * (SPAN_ROWS_WRITTEN_PER_PAIR_DAY + SPAN_RETENTION_ROWS_WRITTEN_PER_PAIR_DAY) +
    config.regions.length * SPAN_MARK_ROWS_WRITTEN_PER_REGION_DAY +
    perTick * (PROFILE_ROWS_WRITTEN_PER_PAIR_DAY + PROFILE_ROWS_DELETED_PER_PAIR_DAY) +
    pairedGroups * HOURS_PER_DAY * (PAIRED_ROWS_WRITTEN_PER_REGION_VARIANT_HOUR + PAIRED_ROWS_DELETED_PER_REGION_VARIANT_HOUR) +
    pairedGroups * (PAIRED_DAYS_WRITTEN_PER_REGION_VARIANT_DAY + PAIRED_DAYS_DELETED_PER_REGION_VARIANT_DAY) +
    cacheGroups * HOURS_PER_DAY * (CACHE_ROWS_WRITTEN_PER_REGION_TARGET_HOUR + CACHE_ROWS_DELETED_PER_REGION_TARGET_HOUR) +
    perTick * HOURS_PER_DAY * (HISTORY_ROWS_WRITTEN_PER_PAIR_HOUR + HISTORY_ROWS_DELETED_PER_PAIR_HOUR) +
    burstCosts(config).d1RowsWrittenPerDay +
    vendorStatusCosts(config).d1RowsWrittenPerDay;
  const readers = { ...DEFAULT_READERS, ...config.readers };
  // The raw slice (at most SITE_BUILD_MAX_SAMPLES samples, in pages); every other part from its view.
  const slice = Math.min(SITE_BUILD_MAX_SAMPLES, perTick * ((SITE_BUILD_RECENT_HOURS * 60) / tickMinutes));
  const siteBuildRowsRead = slice * SITE_BUILD_RAW_READS_PER_SAMPLE;
  const siteBuildRequests =
    SITE_BUILD_VIEW_REQUESTS +
    SITE_REPORT_WEEKS +
    vendorStatusCosts(config).siteBuildRequests +
    Math.max(1, Math.ceil(slice / SITE_BUILD_SAMPLE_PAGE));
  const views = viewCosts(config, {
    pairs: perTick,
    ticksPerDay,
    streamsPerRun: config.bursts ? burstPairs(config) * burstStreamsPerRun(config.bursts) : 0,
    vendorPages: vendorStatusCosts(config).pages,
    targets: config.targets.length,
    pairedGroups: pairedRegionVariants(config),
    cacheGroups: cacheRegionTargets(config),
  });
  const d1RowsRead = {
    rollups:
      config.regions.length * probesPerDay * ROLLUP_ROWS_READ_PER_SAMPLE_IN_HOUR +
      rollupRowsPerDay * ROLLUP_ROWS_READ_PER_PAIR +
      config.regions.length * rollupRowsPerDay * DAILY_ROWS_READ_PER_HOURLY_ROW +
      perTick * DAILY_UPSERT_ROWS_READ_PER_PAIR +
      SPAN_KEYS_PER_REGION_DAY * (perTick * SPAN_ROWS_READ_PER_HALF_ROW + config.regions.length * SPAN_READS_PER_SEEK) +
      config.regions.length * SPAN_DELETE_SEEKS_PER_REGION_DAY * SPAN_READS_PER_SEEK +
      perTick * (HOUR_SPANS_PER_DAY + DAY_SPANS_PER_DAY) +
      pairedGroups * (HOURS_PER_DAY * PAIRED_DAY_ROWS_READ_PER_PAIRED_HOUR + PAIRED_DAY_UPSERT_ROWS_READ) +
      config.regions.length * HOURS_PER_DAY * ROLLUP_MARK_READS_PER_REGION_HOUR,
    // Per region: its pairs plus the seeks' extra rows, for every tick of the lookback, every tick; and for every baseline hour, every hour.
    status:
      ticksPerDay *
        (lookbackMs(resolveStatusRules(config.status), tickMinutes, 1) / (tickMinutes * MINUTE_MS)) *
        (perTick + config.regions.length * STATUS_READS_PER_SEEK) +
      HOURS_PER_DAY * STATUS_BASELINE_HOURS * (perTick + config.regions.length * STATUS_READS_PER_SEEK) +
      // The vendor status pages' polls (their state rows).
      vendorStatusCosts(config).d1RowsReadPerDay +
      // The status history's day rows, summed from their hours as each hour is written.
      perTick * HOURS_PER_DAY * HISTORY_ROWS_READ_PER_PAIR_HOUR,
    siteBuilds: readers.siteRebuildMinutes > 0 ? (MINUTES_PER_DAY / readers.siteRebuildMinutes) * siteBuildRowsRead : 0,
    // A scrape and an anonymous API request are answered from the public views; only the live path reads D1.
    metrics: 0,
    api: (readers.liveApiRequestsPerDay ?? DEFAULT_READERS.liveApiRequestsPerDay) * perTick * API_REQUEST_READS_PER_PAIR,
    archive: archiveCosts(config, probesPerDay, burstCosts(config).streamsPerDay, rollupRowsPerDay).d1RowsReadPerDay,
    views: views.d1RowsReadPerDay,
  };
  // Worker requests (the free plan's 100,000 a day are a hard limit too): each cron, each site build's requests, each
  // /metrics scrape (one of every pair fits a free-plan request's CPU at the goal: bench/duties.ts), the API's readers.
  const buildsPerDay = readers.siteRebuildMinutes > 0 ? MINUTES_PER_DAY / readers.siteRebuildMinutes : 0;
  const workerRequests = {
    crons: ticksPerDay + (config.bursts ? burstRunsPerDay(config.bursts) : 0),
    siteBuilds: buildsPerDay * siteBuildRequests,
    metrics: readers.metricsScrapeSeconds > 0 ? 86_400 / readers.metricsScrapeSeconds : 0,
    api: readers.apiRequestsPerDay + (readers.liveApiRequestsPerDay ?? DEFAULT_READERS.liveApiRequestsPerDay),
  };
  const workerRequestsPerDay = workerRequests.crons + workerRequests.siteBuilds + workerRequests.metrics + workerRequests.api;
  const d1RowsReadPerDay =
    d1RowsRead.rollups +
    d1RowsRead.status +
    d1RowsRead.siteBuilds +
    d1RowsRead.metrics +
    d1RowsRead.api +
    d1RowsRead.archive +
    d1RowsRead.views;
  const targetVariants = targetVariantPairs(config).length;
  const doRowsWrittenPerDay =
    burstCosts(config).doRowsWrittenPerDay +
    probesPerDay * DO_ROWS_WRITTEN_PER_PROBE +
    config.regions.length *
      (HOURS_PER_DAY * DO_ROWS_WRITTEN_PER_REGION_HOUR + DO_ROWS_WRITTEN_PER_REGION_DAY + SPAN_DO_ROWS_WRITTEN_PER_REGION_DAY) +
    regionTicksPerDay * (DO_ROWS_WRITTEN_PER_REGION_TICK_STATUS + DO_ROWS_WRITTEN_PER_REGION_TICK_HEARTBEAT) +
    probesPerDay * KEEPER_ROWS_WRITTEN_PER_PAIR +
    targetVariants * ticksPerDay * KEEPER_ROWS_WRITTEN_PER_TARGET_TICK +
    vendorStatusCosts(config).doRowsWrittenPerDay +
    views.doRowsWrittenPerDay;
  const bursts = burstCosts(config);
  // Per region and tick: an alarm per probesPerAlarm probes (the last one also rolls up and evaluates), one RPC from the
  // scheduler and one report to the status keeper.
  const perAlarm = probesPerAlarm(config);
  const alarmsPerDay = ticksPerDay * Object.values(probesPerRegionTick).reduce((n, p) => n + Math.max(1, Math.ceil(p / perAlarm)), 0);
  const doRequestsPerDay =
    alarmsPerDay + 2 * regionTicksPerDay + bursts.doRequestsPerDay + vendorStatusCosts(config).doRequestsPerDay + views.doRequestsPerDay;
  const doGbSecondsPerDay = probesPerDay * config.probeSecondsEstimate * DO_GB + bursts.doGbSecondsPerDay;
  const tickSeconds = tickProbeSlots * config.probeSecondsEstimate;

  const ratios: Array<[string, number]> = [
    ['tick length (a region must finish before the next tick)', tickSeconds / (tickMinutes * 60 * TICK_BUSY_SHARE)],
  ];
  if (limits.hardDailyLimits) {
    ratios.push(
      ['D1 rows written per day', d1RowsWrittenPerDay / limits.d1RowsWrittenPerDay],
      ['D1 rows read per day', d1RowsReadPerDay / limits.d1RowsReadPerDay],
      ['Durable Object storage rows written per day', doRowsWrittenPerDay / limits.doRowsWrittenPerDay],
      ['Durable Object requests per day', doRequestsPerDay / limits.doRequestsPerDay],
      ['Durable Object duration (GB-s) per day', doGbSecondsPerDay / limits.doGbSecondsPerDay],
      ['Worker requests per day', workerRequestsPerDay / limits.workerRequestsPerDay],
    );
  }
  ratios.sort((a, b) => b[1] - a[1]);
  const spread = Math.max(1, Math.ceil(ratios[0][1]));
  return {
    tickMinutes,
    ticksPerDay,
    probesPerRegionTick,
    probesPerDay,
    d1RowsWrittenPerDay,
    d1RowsReadPerDay,
    d1RowsRead,
    siteBuildRowsRead,
    siteBuildRequests,
    workerRequestsPerDay,
    workerRequests,
    doRowsWrittenPerDay,
    doRequestsPerDay,
    doGbSecondsPerDay,
    subrequestsPerProbeInvocation: probesPerAlarm(config) * maxSubrequestsPerJob(config) + 2,
    bursts,
    archive: archiveCosts(config, probesPerDay, bursts.streamsPerDay, rollupRowsPerDay),
    views,
    spread,
    bindingLimit: spread > 1 ? ratios[0][0] : null,
  };
}

/**
 * The scale the project aims to run on the free plan: 6 regions × 10 targets (copies of the base
 * configuration's first) and its first prompt variant, every 5 minutes, with hourly site builds
 * (without concurrency probes, which `npm run capacity` counts for your own configuration).
 */
export function freePlanGoal(base: ObservatoryConfig): ObservatoryConfig {
  return {
    ...base,
    plan: 'free',
    schedule: '*/5 * * * *',
    regions: (['weur', 'eeur', 'enam', 'wnam', 'apac', 'oc'] as const).map((code) => ({ code, label: code, locationHint: code })),
    targets: Array.from({ length: 10 }, (_, k) => ({
      ...base.targets[0],
      id: `target-${k + 1}`,
      regions: undefined,
      promptVariants: undefined,
      bursts: undefined,
    })),
    bursts: undefined,
    promptVariants: base.promptVariants.slice(0, 1),
    readers: { siteRebuildMinutes: 60 },
    // A free database holds 500 MB: 60 pairs' rollups fill it after ~274 days (with their spans) beside 14 days of samples
    // (projection.ts planStorage counts those two, the largest tables); D1 keeps 240 days of them, leaving
    // room for the tables derived beside them (status history, paired hours, time profiles), and the R2
    // archive keeps every day.
    rollupRetentionDays: Math.min(base.rollupRetentionDays, FREE_GOAL_ROLLUP_DAYS),
  };
}

/** Days of rollups the free-plan goal keeps in D1 (its 500 MB database; the archive keeps the rest). */
export const FREE_GOAL_ROLLUP_DAYS = 240;

/** Most probes per day within a plan's daily quotas (free) or included usage (paid), for a given probe duration. */
export function maxProbesPerDay(plan: 'free' | 'paid', probeSeconds: number): number {
  const l = PLAN_LIMITS[plan];
  return Math.floor(
    Math.min(
      l.d1RowsWrittenPerDay / D1_ROWS_WRITTEN_PER_SAMPLE,
      l.doRowsWrittenPerDay / DO_ROWS_WRITTEN_PER_PROBE,
      l.doRequestsPerDay,
      l.doGbSecondsPerDay / (probeSeconds * DO_GB),
    ),
  );
}

/** Share of the plan's daily rows read that anonymous reads and the observatory's own jobs may use together. */
const READ_QUOTA_USED = 0.9;
/** The observatory's own jobs keep this multiple of their estimated reads, whatever anonymous readers do. */
const OWN_READS_HEADROOM = 1.5;

/**
 * The most D1 rows one anonymous request can read, and which request that is. Raw percentiles read the
 * window's samples twice (the counts, then the ranks); rollups read a row per hour (or day) and region
 * × target × variant, plus up to 46 hours at a window's edges; a concurrency report reads every stream
 * of its runs. Everything longer needs the read token.
 */
export function anonymousRowBound(config: ObservatoryConfig): { rows: number; request: string } {
  const c = capacity(config);
  const perTick = Object.values(c.probesPerRegionTick).reduce((a, b) => a + b, 0);
  const candidates: Array<{ rows: number; request: string }> = [
    {
      rows: 2 * ANON_LIMITS.rawWindowDays * c.ticksPerDay * perTick,
      request: `raw percentiles over ${ANON_LIMITS.rawWindowDays} day, every group`,
    },
    {
      rows: ANON_LIMITS.rawWindowDays * c.ticksPerDay * perTick,
      request: `samples, regions or targets over ${ANON_LIMITS.rawWindowDays} day`,
    },
    // A page of rollups: its rows and the one past its end, or one period that holds more rows than a page.
    { rows: Math.max(ROLLUP_PAGE_ROWS.base64, perTick) + 1, request: 'a page of rollups' },
    // Percentiles from rollups: no more than one request may merge (PERCENTILE_ROW_UNITS, an hourly row HOURLY_ROW_UNITS).
    {
      rows: Math.min(PERCENTILE_ROW_UNITS[config.plan] / HOURLY_ROW_UNITS, (ANON_LIMITS.maxWindowDays + 46 / HOURS_PER_DAY) * perTick),
      request: `percentiles from rollups over up to ${ANON_LIMITS.maxWindowDays} days`,
    },
    {
      rows: ANON_LIMITS.burstRuns * burstPairs(config) * (config.bursts ? burstStreamsPerRun(config.bursts) : 0),
      request: `a concurrency report of ${ANON_LIMITS.burstRuns} runs`,
    },
  ];
  const worst = candidates.reduce((a, b) => (b.rows > a.rows ? b : a));
  return { rows: Math.ceil(worst.rows), request: worst.request };
}

/**
 * Rows anonymous reads may use a day in all (`readers.anonymousRowsPerDay`, else what the plan's daily
 * quota leaves once the observatory's own jobs are given OWN_READS_HEADROOM times their estimate).
 */
export function anonymousRowsPerDay(config: ObservatoryConfig): number {
  if (config.readers?.anonymousRowsPerDay !== undefined) return config.readers.anonymousRowsPerDay;
  const r = capacity(config).d1RowsRead;
  const own = r.rollups + r.status + r.siteBuilds + r.metrics + r.views;
  return Math.max(0, Math.floor(PLAN_LIMITS[config.plan].d1RowsReadPerDay * READ_QUOTA_USED - own * OWN_READS_HEADROOM));
}

/**
 * Durable Object requests anonymous reads may cause a day in all: what the plan's daily quota leaves once the
 * observatory's own requests (probes' alarms, ticks, concurrency runs) are given OWN_READS_HEADROOM times their
 * estimate. Each flush of the read budget counts as one (api/public-reads.ts).
 */
export function anonymousDoRequestsPerDay(config: ObservatoryConfig): number {
  const own = capacity(config).doRequestsPerDay;
  return Math.max(0, Math.floor(PLAN_LIMITS[config.plan].doRequestsPerDay * READ_QUOTA_USED - own * OWN_READS_HEADROOM));
}
