/**
 * The projection at scale (`npm run capacity -- --project 30x100 --every 1`): a configuration of any
 * size on the paid plan, day by day: which limit breaks first and when (D1's 10 GB, D1's single
 * writer, the tick's length), what each billed figure costs beyond the plan's inclusions, and the
 * configuration that keeps it running (short raw retention in D1, daily archives in R2, rollups in
 * D1, spreading). Per-sample counts come from unit-costs.ts (measured in tests/workers/rollups.test.ts),
 * bytes a row from tests/workers/row-bytes.test.ts; Cloudflare's limits and prices below.
 */
import { archiveRowsReadSpread, capacity } from './capacity.ts';
import { D1_ROWS_WRITTEN_PER_SAMPLE } from './unit-costs.ts';
import { PLAN_LIMITS } from './plan-limits.ts';
import type { ObservatoryConfig } from './types.ts';
import { DAY_SPANS, HOUR_SPAN_DAYS, HOUR_SPANS } from '../rollup/spans.ts';

/** The output tokens the sizes below are measured at: the chat preset's answer (the projection's prompt variant). */
export const SIZED_SAMPLE_TOKENS = 64;
/** D1 bytes a stored sample takes with its index entry: measured 627 (a real row, a 64-read timeline; tests/workers/row-bytes.test.ts). */
export const D1_BYTES_PER_SAMPLE = 650;
/**
 * … an hourly rollup row of a busy hour (60 probes, their figures spread over 16:1, each in buckets of its own): measured
 * 4,669; a daily row of such a day (1,440 probes): 4,678. An upper bound for any hour of more than
 * QUIET_PROBES_PER_HOUR probes. A quiet hour's row (12 probes, a tick every 5 minutes, spread the same way): measured
 * 500; its daily row (288 probes) 4,686, as large as a busy one's (a day's probes fill as many buckets).
 */
export const D1_BYTES_PER_HOURLY_ROLLUP = 5_000;
export const D1_BYTES_PER_DAILY_ROLLUP = 5_000;
export const QUIET_PROBES_PER_HOUR = 12;
export const D1_BYTES_PER_QUIET_HOURLY_ROLLUP = 550;

/** Bytes of an hourly rollup row of a pair that runs this many probes an hour (measured at 12 and 60; the larger above 12). */
export const hourlyRollupBytes = (probesPerHour: number): number =>
  probesPerHour <= QUIET_PROBES_PER_HOUR ? D1_BYTES_PER_QUIET_HOURLY_ROLLUP : D1_BYTES_PER_HOURLY_ROLLUP;

/**
 * Cloudflare's limits and Workers Paid prices, read on 2026-12-01 in developers.cloudflare.com:
 * d1/platform/limits (10 GB a database, cannot be raised; a database runs one query at a time: "if your
 * average query takes 1 ms, you can run approximately 1,000 queries per second"); d1/platform/pricing
 * (rows read 25 B a month included, then $0.001/M; rows written 50 M, then $1.00/M; storage 5 GB, then
 * $0.75/GB-month); durable-objects/platform/pricing (requests 1 M, then $0.15/M; duration 400,000 GB-s,
 * then $12.50/M GB-s; SQLite storage rows written billed as D1's); workers/platform/pricing (requests
 * 10 M, then $0.30/M); r2/pricing (standard storage 10 GB-month free, then $0.015/GB-month; Class A
 * 1 M a month free, then $4.50/M; Class B 10 M free, then $0.36/M).
 */
export const D1_MAX_DATABASE_BYTES = 10e9;
/** The free plan's largest D1 database (d1/platform/limits, read 2026-12-01): 500 MB. */
export const D1_FREE_DATABASE_BYTES = 500e6;
export const D1_QUERIES_PER_SECOND = 1_000;
export const PAID_PLAN_DOLLARS_PER_MONTH = 5;
export const PRICES = {
  d1RowsReadPerM: 0.001,
  d1RowsWrittenPerM: 1,
  d1StoragePerGbMonth: 0.75,
  d1StorageIncludedGb: 5,
  doRequestsPerM: 0.15,
  doGbSecondsPerM: 12.5,
  doRowsWrittenPerM: 1,
  workerRequestsPerM: 0.3,
  r2StoragePerGbMonth: 0.015,
  r2StorageIncludedGb: 10,
  r2ClassAPerM: 4.5,
  r2ClassAIncludedPerMonth: 1_000_000,
  r2ClassBPerM: 0.36,
  r2ClassBIncludedPerMonth: 10_000_000,
} as const;

/**
 * The archives' inputs: their R2 operations and D1 reads are the capacity model's (capacity.ts archiveCosts,
 * measured in tests/workers/archive.test.ts: per region and table a file PUT and a manifest PUT, HEADs and
 * GETs); analysts' reads are GETs (Class B), their number assumed. Bytes a sample in its
 * day's Snappy Parquet file: measured 151 to 159 (tests/workers/row-bytes.test.ts: a day of 1,440 copies of a
 * real sample, timings and timelines spread; real days repeat less, so this errs low).
 */
export const ARCHIVE_BYTES_PER_SAMPLE = 190;
export const ARCHIVE_READS_PER_DAY_ASSUMED = 10_000;

/** The configuration that keeps a large deployment running: raw samples kept this many days in D1 (archived in R2 each day). */
export const KEEP_RAW_DAYS = 2;
/** … and D1 filled to at most this share of its 10 GB. */
export const KEEP_D1_SHARE = 0.8;
const DAYS_PER_MONTH = 30;
const SECONDS_PER_DAY = 86_400;

/** `regions` × `targets` (copies of the base's first target, its first prompt variant), a tick every `everyMinutes`, paid plan. */
export function scaledConfig(base: ObservatoryConfig, regions: number, targets: number, everyMinutes: number): ObservatoryConfig {
  return {
    ...base,
    plan: 'paid',
    schedule: everyMinutes === 1 ? '* * * * *' : `*/${everyMinutes} * * * *`,
    regions: Array.from({ length: regions }, (_, k) => ({ code: `r${k + 1}`, label: `r${k + 1}`, locationHint: 'weur' as const })),
    targets: Array.from({ length: targets }, (_, k) => ({
      ...base.targets[0],
      id: `target-${k + 1}`,
      regions: undefined,
      promptVariants: undefined,
      promptCache: undefined,
      statusPage: undefined,
      bursts: undefined,
    })),
    bursts: undefined,
    promptVariants: base.promptVariants.filter((v) => !v.promptCache).slice(0, 1),
    readers: { siteRebuildMinutes: 60 },
  };
}

export interface Limit {
  name: string;
  /** Use at the steady state (for storage: once retention deletes as much as a day adds). */
  use: number;
  limit: number;
  unit: string;
  /** Hard: past it the deployment fails. Otherwise the paid plan's inclusion, billed beyond (or the tick, which the scheduler spreads). */
  hard: boolean;
  /** Day of accumulation on which it is passed (0: from the first day), or null when it never is. */
  breaksOnDay: number | null;
}

export interface Projection {
  config: ObservatoryConfig;
  /** 1/spread of each tick's work runs each tick (the scheduler spreads when a region cannot finish a tick). */
  spread: number;
  samplesAskedPerDay: number;
  samplesPerDay: number;
  perDay: {
    d1RowsWritten: number;
    d1RowsRead: number;
    doRequests: number;
    doGbSeconds: number;
    doRowsWritten: number;
    workerRequests: number;
    r2ClassA: number;
    r2ClassB: number;
  };
  d1WriteQueriesPerSecond: number;
  d1RowsWrittenPerSecond: number;
  /** D1's size after `day` days, and at the steady state. */
  d1BytesOnDay: (day: number) => number;
  d1BytesSteady: number;
  r2BytesAfterYear: number;
  limits: Limit[];
  /** The first hard limit to break, or null when none does. */
  firstBreak: Limit | null;
  dollarsPerMonth: { total: number; parts: Record<string, number> };
}

/**
 * D1's size as days accumulate: each day's samples (kept `retentionDays`) and each pair's 24 hourly and one daily
 * rollup rows and its spans of days (about half a row a day, counted at a daily row's bytes: the same columns;
 * shared/rollup/spans.ts) (kept `rollupRetentionDays`), at the measured bytes a row, and the spans of hours of the
 * recent days (21 a day, a span of h hours counted at h hourly rows' bytes, at most a daily row's); the day it passes `limit`, or null.
 */
export function d1Storage(config: ObservatoryConfig, samplesPerDay: number, pairs: number, limit: number, burstStreamsPerDay = 0) {
  const probesPerPairHour = samplesPerDay / Math.max(1, pairs) / 24;
  const daySpansPerDay = DAY_SPANS.reduce((n, d) => n + 1 / d, 0);
  const rollupBytesPerDay = pairs * (24 * hourlyRollupBytes(probesPerPairHour) + (1 + daySpansPerDay) * D1_BYTES_PER_DAILY_ROLLUP);
  // A span of h hours counted at h hourly rows' bytes, at most a daily row's (a busy hour's already are as large).
  const hourSpanBytesPerDay = HOUR_SPANS.reduce(
    (n, h) => n + (24 / h) * Math.min(h * hourlyRollupBytes(probesPerPairHour), D1_BYTES_PER_DAILY_ROLLUP),
    0,
  );
  const recentHourSpanBytes = pairs * (HOUR_SPAN_DAYS + 1) * hourSpanBytesPerDay;
  // A concurrency stream is stored as a sample is, with a few columns more, and kept as long; it is not rolled up.
  const rawBytesPerDay = (samplesPerDay + burstStreamsPerDay) * D1_BYTES_PER_SAMPLE;
  const bytesOnDay = (day: number) =>
    rawBytesPerDay * Math.min(day, config.retentionDays) +
    rollupBytesPerDay * Math.min(day, config.rollupRetentionDays) +
    recentHourSpanBytes;
  const steadyDay = Math.max(config.retentionDays, config.rollupRetentionDays);
  let fullOnDay: number | null = null;
  for (let day = 1; day <= steadyDay; day++)
    if (bytesOnDay(day) > limit) {
      fullOnDay = day;
      break;
    }
  const rawBytes = rawBytesPerDay * config.retentionDays;
  // The most days of rollups that fit beside the raw samples (the archive keeps the rest).
  const rollupDaysThatFit = Math.max(0, Math.floor((limit - rawBytes - recentHourSpanBytes) / Math.max(1, rollupBytesPerDay)));
  return { bytesOnDay, steady: bytesOnDay(steadyDay), fullOnDay, rawBytes, rollupBytesPerDay, rollupDaysThatFit, limit };
}

/** D1 storage of a configuration on its own plan (500 MB a database free, 10 GB paid), from the capacity model's probes. */
export function planStorage(config: ObservatoryConfig, c = capacity(config)) {
  const pairs = Object.values(c.probesPerRegionTick).reduce((a, b) => a + b, 0);
  const limit = config.plan === 'free' ? D1_FREE_DATABASE_BYTES : D1_MAX_DATABASE_BYTES;
  return d1Storage(config, c.probesPerDay / c.spread, pairs, limit, c.bursts.streamsPerDay);
}

const beyond = (usePerMonth: number, includedPerMonth: number, pricePerM: number) =>
  (Math.max(0, usePerMonth - includedPerMonth) / 1e6) * pricePerM;

/** Every configuration archives each ended day to R2 (archive-run.ts): its operations, reads and bytes are counted. */
export function project(config: ObservatoryConfig): Projection {
  const c = capacity({ ...config, plan: 'paid' });
  const s = c.spread;
  const pairs = Object.values(c.probesPerRegionTick).reduce((a, b) => a + b, 0);
  const samplesPerDay = c.probesPerDay / s;
  // What probing writes and reads is spread; each pair's rollups, site builds, scrapes and API reads are not.
  const sampleRows = c.probesPerDay * D1_ROWS_WRITTEN_PER_SAMPLE;
  const d1RowsWritten = sampleRows / s + (c.d1RowsWrittenPerDay - sampleRows);
  const r = c.d1RowsRead;
  const perDay = {
    d1RowsWritten,
    // The archive's reads of the samples shrink with them; those of the rollups do not.
    d1RowsRead: (r.rollups + r.status) / s + archiveRowsReadSpread(c) + r.siteBuilds + r.metrics + r.api + r.views,
    doRequests: c.doRequestsPerDay / s,
    doGbSeconds: c.doGbSecondsPerDay / s,
    doRowsWritten: c.doRowsWrittenPerDay / s,
    workerRequests: c.workerRequestsPerDay,
    // The archive's and the public views' writes; reads of the archive by analysts (assumed) and of the views (at most
    // one R2 read a view answer: the site builds', the scrapes', the API's).
    r2ClassA: c.archive.r2ClassAPerDay + c.views.r2ClassAPerDay,
    r2ClassB:
      c.archive.r2ClassBPerDay +
      ARCHIVE_READS_PER_DAY_ASSUMED +
      c.workerRequests.siteBuilds +
      c.workerRequests.metrics +
      c.workerRequests.api,
  };
  // Each sample is one INSERT; every other row written is counted as a statement of its own (an upper bound).
  const d1WriteQueriesPerSecond = (samplesPerDay + (d1RowsWritten - samplesPerDay * D1_ROWS_WRITTEN_PER_SAMPLE)) / SECONDS_PER_DAY;
  const {
    bytesOnDay: d1BytesOnDay,
    steady: d1BytesSteady,
    fullOnDay: storageDay,
  } = d1Storage(config, samplesPerDay, pairs, D1_MAX_DATABASE_BYTES, c.bursts.streamsPerDay);
  const paid = PLAN_LIMITS.paid;
  const archiveBytesPerDay = samplesPerDay * ARCHIVE_BYTES_PER_SAMPLE;
  const included = (name: string, use: number, perDay: number, by = 'Workers Paid'): Limit => ({
    name: `${name} (${by} includes ${Math.round(perDay).toLocaleString('en')} a day)`,
    use,
    limit: perDay,
    unit: 'a day',
    hard: false,
    breaksOnDay: use > perDay ? 0 : null,
  });
  const limits: Limit[] = [
    {
      name: 'tick length (3 probes at once a region; the scheduler spreads the rest)',
      use: s,
      limit: 1,
      unit: 'ticks of work a tick',
      hard: false,
      breaksOnDay: s > 1 ? 0 : null,
    },
    {
      name: 'D1 storage (10 GB a database)',
      use: d1BytesSteady,
      limit: D1_MAX_DATABASE_BYTES,
      unit: 'bytes',
      hard: true,
      breaksOnDay: storageDay,
    },
    {
      name: 'D1 write queries a second (one writer, ~1,000 a second at 1 ms a query)',
      use: d1WriteQueriesPerSecond,
      limit: D1_QUERIES_PER_SECOND,
      unit: 'queries/s',
      hard: true,
      breaksOnDay: d1WriteQueriesPerSecond > D1_QUERIES_PER_SECOND ? 0 : null,
    },
    included('D1 rows written', perDay.d1RowsWritten, paid.d1RowsWrittenPerDay),
    included('D1 rows read', perDay.d1RowsRead, paid.d1RowsReadPerDay),
    included('Durable Object requests', perDay.doRequests, paid.doRequestsPerDay),
    included('Durable Object duration (GB-s)', perDay.doGbSeconds, paid.doGbSecondsPerDay),
    included('Durable Object storage rows written', perDay.doRowsWritten, paid.doRowsWrittenPerDay),
    included('R2 Class A operations', perDay.r2ClassA, PRICES.r2ClassAIncludedPerMonth / DAYS_PER_MONTH, 'R2'),
    included('R2 Class B operations', perDay.r2ClassB, PRICES.r2ClassBIncludedPerMonth / DAYS_PER_MONTH, 'R2'),
    {
      name: `R2 storage (R2 includes ${PRICES.r2StorageIncludedGb} GB; no cap)`,
      use: archiveBytesPerDay,
      limit: PRICES.r2StorageIncludedGb * 1e9,
      unit: 'bytes a day',
      hard: false,
      breaksOnDay: archiveBytesPerDay > 0 ? Math.ceil((PRICES.r2StorageIncludedGb * 1e9) / archiveBytesPerDay) : null,
    },
  ];
  // The first hard limit passed: the tick's spreading is the scheduler's answer, the inclusions cost money (below).
  const firstBreak =
    limits.filter((l) => l.hard && l.breaksOnDay !== null).sort((a, b) => (a.breaksOnDay ?? 0) - (b.breaksOnDay ?? 0))[0] ?? null;
  const month = (x: number) => x * DAYS_PER_MONTH;
  const r2BytesAfterYear = archiveBytesPerDay * 365;
  const parts: Record<string, number> = {
    'Workers Paid plan': PAID_PLAN_DOLLARS_PER_MONTH,
    'D1 rows written': beyond(month(perDay.d1RowsWritten), month(paid.d1RowsWrittenPerDay), PRICES.d1RowsWrittenPerM),
    'D1 rows read': beyond(month(perDay.d1RowsRead), month(paid.d1RowsReadPerDay), PRICES.d1RowsReadPerM),
    'D1 storage':
      Math.max(0, Math.min(d1BytesSteady, D1_MAX_DATABASE_BYTES) / 1e9 - PRICES.d1StorageIncludedGb) * PRICES.d1StoragePerGbMonth,
    'DO requests': beyond(month(perDay.doRequests), month(paid.doRequestsPerDay), PRICES.doRequestsPerM),
    'DO duration': beyond(month(perDay.doGbSeconds), month(paid.doGbSecondsPerDay), PRICES.doGbSecondsPerM),
    'DO storage rows written': beyond(month(perDay.doRowsWritten), month(paid.doRowsWrittenPerDay), PRICES.doRowsWrittenPerM),
    'Worker requests': beyond(month(perDay.workerRequests), month(paid.workerRequestsPerDay), PRICES.workerRequestsPerM),
    'R2 storage (after a year)': Math.max(0, r2BytesAfterYear / 1e9 - PRICES.r2StorageIncludedGb) * PRICES.r2StoragePerGbMonth,
    'R2 Class A': beyond(month(perDay.r2ClassA), PRICES.r2ClassAIncludedPerMonth, PRICES.r2ClassAPerM),
    'R2 Class B': beyond(month(perDay.r2ClassB), PRICES.r2ClassBIncludedPerMonth, PRICES.r2ClassBPerM),
  };
  return {
    config,
    spread: s,
    samplesAskedPerDay: c.probesPerDay,
    samplesPerDay,
    perDay,
    d1WriteQueriesPerSecond,
    d1RowsWrittenPerSecond: d1RowsWritten / SECONDS_PER_DAY,
    d1BytesOnDay,
    d1BytesSteady,
    r2BytesAfterYear,
    limits,
    firstBreak,
    dollarsPerMonth: { total: Object.values(parts).reduce((a, b) => a + b, 0), parts },
  };
}

/**
 * The configuration that keeps `config` running: raw samples KEEP_RAW_DAYS days in D1 (each day archived to
 * R2 first), rollups in D1 as long as they fit within KEEP_D1_SHARE of 10 GB (their archives keep the rest),
 * and the scheduler's spreading.
 */
export function keepRunning(config: ObservatoryConfig): ObservatoryConfig {
  const raw = { ...config, retentionDays: Math.min(config.retentionDays, KEEP_RAW_DAYS) };
  const rawBytes = project({ ...raw, rollupRetentionDays: 0 }).d1BytesSteady;
  // A day of rollups more (the recent days' spans of hours are counted once, in rawBytes).
  const withRollups = (days: number) => project({ ...raw, retentionDays: 0, rollupRetentionDays: days }).d1BytesSteady;
  const perRollupDay = withRollups(2) - withRollups(1);
  const fit = Math.floor((D1_MAX_DATABASE_BYTES * KEEP_D1_SHARE - rawBytes) / Math.max(1, perRollupDay));
  return { ...raw, rollupRetentionDays: Math.max(1, Math.min(config.rollupRetentionDays, fit)) };
}
