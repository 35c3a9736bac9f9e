/**
 * What each unit of work costs (shared/config/capacity.ts multiplies them by a configuration's counts): the D1 rows
 * and Durable Object rows a sample, a probe, a rollup, a span, a status evaluation and a site build write and read.
 * Each figure is measured, in the test its comment names; a change to what the code writes or reads changes one here.
 */
import { BASELINE_DAYS, TRAILING_HOURS } from '../status/baseline.ts';
import { DAY_SPANS, HOUR_SPANS } from '../rollup/spans.ts';

/** D1 rows written per stored sample: the row and its unique-key index entry, then the same again when retention deletes it. */
export const D1_ROWS_WRITTEN_PER_SAMPLE = 4;
/** Rows a probe writes to its regional object's storage: its job queued, then removed (more only while D1 is down). */
export const DO_ROWS_WRITTEN_PER_PROBE = 2;
/** Rolling up a region's hour writes, per target × variant, its hourly row and its running total (each key is its table: no index). */
export const ROLLUP_ROWS_WRITTEN_PER_PAIR = 2;
/** The place records' row per region × target × variant and hour (shared/rollup/hour-places.ts), and its retention delete. */
export const PLACES_ROWS_WRITTEN_PER_PAIR_HOUR = 1;
export const PLACES_ROWS_DELETED_PER_PAIR_HOUR = 1;
/** The paired comparisons' row (shared/rollup/paired-hours.ts) per region × variant with two or more targets and hour, and its retention delete. */
export const PAIRED_ROWS_WRITTEN_PER_REGION_VARIANT_HOUR = 1;
export const PAIRED_ROWS_DELETED_PER_REGION_VARIANT_HOUR = 1;
/**
 * A family's packed day (shared/rollup/paired-days.ts) per region × variant with two or more targets and day, and its
 * retention delete; packing it reads the day's paired hours of the family once (a seek on the families' index), and
 * D1 counts no read for writing the new row (measured in tests/workers/rollups.test.ts).
 */
export const PAIRED_DAYS_WRITTEN_PER_REGION_VARIANT_DAY = 1;
export const PAIRED_DAYS_DELETED_PER_REGION_VARIANT_DAY = 1;
export const PAIRED_DAY_ROWS_READ_PER_PAIRED_HOUR = 1;
export const PAIRED_DAY_UPSERT_ROWS_READ = 0;
/** The prompt-cache blocks' row (shared/rollup/cache-hours.ts) per region × opted-in target × prompt-cache variant and hour, and its retention delete. */
export const CACHE_ROWS_WRITTEN_PER_REGION_TARGET_HOUR = 1;
export const CACHE_ROWS_DELETED_PER_REGION_TARGET_HOUR = 1;
/** The time profile's row per region × target × variant and day (shared/rollup/hour-profile.ts), and its retention delete. */
export const PROFILE_ROWS_WRITTEN_PER_PAIR_DAY = 1;
export const PROFILE_ROWS_DELETED_PER_PAIR_DAY = 1;
/** Retention deletes each hourly rollup row once. */
export const ROLLUP_ROWS_DELETED_PER_PAIR = 1;
/** Rolling up a region's hour reads every sample of that hour once (all regions': the key leads with tick_id). */
export const ROLLUP_ROWS_READ_PER_SAMPLE_IN_HOUR = 1;
/** … and, per target × variant, the hour's previous row and the running total. */
export const ROLLUP_ROWS_READ_PER_PAIR = 2;
/** Rows a regional object writes per hour for its rollup bookkeeping: the hour marked dirty, then cleared. */
export const DO_ROWS_WRITTEN_PER_REGION_HOUR = 2;
/** … and per day: the day marked dirty, then cleared. */
export const DO_ROWS_WRITTEN_PER_REGION_DAY = 2;
/** Writing a region's day writes one daily row per target × variant; retention deletes it once. */
export const DAILY_ROWS_WRITTEN_PER_PAIR = 2;
/** Writing a region's day reads the day's hourly rows of every region (the key leads with the hour). */
export const DAILY_ROWS_READ_PER_HOURLY_ROW = 1;
/** … and, per target × variant, what D1 counts for replacing its daily row (measured). */
export const DAILY_UPSERT_ROWS_READ_PER_PAIR = 3;
/**
 * The span rollups of a pair (shared/rollup/spans.ts), per day: 21 spans of hours (12 of 2 h, 6 of 4 h, 3 of 8 h),
 * a row each written once its hours have ended and deleted once its day has left the recent ones (HOUR_SPAN_DAYS),
 * and about half a span of days (1/4 + 1/8 + … + 1/64), kept as long as the daily rows and deleted with the first
 * day retention cuts from it.
 */
export const HOUR_SPANS_PER_DAY = HOUR_SPANS.reduce((n, h) => n + 24 / h, 0);
export const DAY_SPANS_PER_DAY = DAY_SPANS.reduce((n, d) => n + 1 / d, 0);
export const SPAN_ROWS_WRITTEN_PER_PAIR_DAY = 2 * HOUR_SPANS_PER_DAY + DAY_SPANS_PER_DAY;
export const SPAN_RETENTION_ROWS_WRITTEN_PER_PAIR_DAY = DAY_SPANS_PER_DAY;
/**
 * Writing a span reads its parts, a seek each on a key and the region, reading the region's rows and two rows more
 * (measured): the shortest span of hours its 2 hourly rows, the shortest of days its 4 daily rows, any other its two
 * halves. The keys a region seeks a day: its spans of hours', its spans of days'.
 */
export const SPAN_ROWS_READ_PER_HALF_ROW = 1;
const partsOfSpan = (n: number, shortest: number) => (n === shortest ? n : 2);
export const SPAN_KEYS_PER_REGION_DAY =
  HOUR_SPANS.reduce((k, h) => k + (24 / h) * partsOfSpan(h, HOUR_SPANS[0]), 0) +
  DAY_SPANS.reduce((k, d) => k + (1 / d) * partsOfSpan(d, DAY_SPANS[0]), 0);
/**
 * Deleting spans: pruning a region's day of spans of hours seeks its 21 keys, retention's cut day its 5 spans of
 * days; each delete reads the rows it deletes too.
 */
export const SPAN_DELETE_SEEKS_PER_REGION_DAY = HOUR_SPANS_PER_DAY + DAY_SPANS.length;
/** Each region's object marks how far its spans are whole (span_marks) when that moves: once an hour. */
export const SPAN_MARK_ROWS_WRITTEN_PER_REGION_DAY = 24;
/** A regional object's dirty spans: each span marked once and cleared once (21 of hours a day, about half a span of days). */
export const SPAN_DO_ROWS_WRITTEN_PER_REGION_DAY = 2 * (HOUR_SPANS_PER_DAY + DAY_SPANS_PER_DAY);
/** Each region's rollup pass reads the retention mark once an hour. */
export const ROLLUP_MARK_READS_PER_REGION_HOUR = 1;

/**
 * A site build (site/src/data/collect.ts, its parts) reads every public view it shows as an anonymous reader does
 * (no D1 row; a Worker request and at most one R2 read each), and on the live path only the raw slice of the last
 * RECENT_HOURS hours, twice over (its rows and their index entries). Measured in tests/workers/site-build-reads.test.ts.
 */
export const SITE_BUILD_RAW_READS_PER_SAMPLE = 2;
export const SITE_BUILD_RECENT_HOURS = 3;
/**
 * The views a build reads: health, regions, targets; per window the percentiles of the 7 figures it shows, TTFT
 * pooled and the timeline by region and pooled (10); where each was answered, fidelity, status, the concurrency
 * report, the time profiles, the incidents, the status history's hours and days, maintenance, the uptime of up to 4
 * months (SITE_UPTIME_MONTHS_MOST: 90 days reach into 4), the paired verdicts of the 5 figures, the prompt caches and
 * the TTFA changes; the archive's manifest; and the weekly reports' index. Counted in tests/workers/site-build-reads.test.ts.
 */
export const SITE_UPTIME_MONTHS_MOST = 4;
export const SITE_BUILD_VIEW_REQUESTS = 3 + 4 * 10 + 2 + 2 + 1 + 1 + 2 + 1 + SITE_UPTIME_MONTHS_MOST + 5 + 1 + 1 + 1 + 1;
/**
 * The weekly reports a site build shows in full (site/src/data/parts/reports.ts): the newest weeks, a quarter, each
 * version one R2 read beside the index (from R2 alone: no D1 row). Priced at one version a week (a correction is rare).
 */
export const SITE_REPORT_WEEKS = 13;
/** Raw samples a page of /api/v1/samples the site build asks for, and the most it reads (site/src/data/collect.ts). */
export const SITE_BUILD_SAMPLE_PAGE = 1_000;
export const SITE_BUILD_MAX_SAMPLES = 3_000;

/**
 * Rows a paged read of whole periods (`perPeriod` rows each) reads, in pages of at most `limit` rows: each page
 * but the last reads one row past its end, and the next page reads again the period that row began.
 */
export function pagedRowsRead(periods: number, perPeriod: number, limit: number): number {
  const perPage = Math.max(1, Math.floor(limit / Math.max(1, perPeriod)));
  const pages = Math.ceil(periods / perPage);
  if (pages <= 1) return periods * perPeriod;
  return (pages - 1) * (limit + 1) + (periods - (pages - 1) * perPage) * perPeriod;
}

/** An API percentile query over 7 days from rollups: 6 daily rows and up to 47 hourly ones per pair, at most. */
export const API_REQUEST_READS_PER_PAIR = 6 + 47;
/**
 * A region's status evaluation of a tick seeks each tick of the rules' lookback on (tick_id, region):
 * its own samples, and at most STATUS_READS_PER_SEEK more rows a seek; once an hour its baseline
 * seeks the hourly rows of the same hour on 7 days and of the trailing 24 hours the same way
 * (measured in tests/workers/status.test.ts).
 */
export const STATUS_READS_PER_SEEK = 2;
export const STATUS_BASELINE_HOURS = BASELINE_DAYS + TRAILING_HOURS;
/** Per region and tick: the tick queued for evaluation, marked evaluated, then removed once past the lookback (regional object). */
export const DO_ROWS_WRITTEN_PER_REGION_TICK_STATUS = 3;
/** Per region and tick: the newest tick noted for the heartbeat, and its alarm set for the next one (tick-heartbeat.ts). */
export const DO_ROWS_WRITTEN_PER_REGION_TICK_HEARTBEAT = 2;
/** Per evaluated pair: its state in the status keeper, and its tick in the status history's hour row. */
export const KEEPER_ROWS_WRITTEN_PER_PAIR = 2;
/** The status history (workers/observatory/db/status-history.ts) per region × target × variant and hour: its hour row and its day's, then their retention deletes. */
export const HISTORY_ROWS_WRITTEN_PER_PAIR_HOUR = 2;
export const HISTORY_ROWS_DELETED_PER_PAIR_HOUR = 2;
/** Writing a day's row sums the day's hours so far (12.5 on average), and again for its note. */
export const HISTORY_ROWS_READ_PER_PAIR_HOUR = 26;
/** Per target × variant and tick: the tick waiting for its regions, removed once judged, and where its incident stepped (status-judge.ts). */
export const KEEPER_ROWS_WRITTEN_PER_TARGET_TICK = 3;
