/**
 * What the public views cost (workers/observatory/views/): each part's builds a day, the D1 rows a build reads, the
 * views it writes to R2 and the Durable Object requests and storage rows its marks and builds take; and what their
 * readers cost: nothing in D1 and no Durable Object request, one Worker request and at most one R2 read an answer.
 * Per build the rows read follow each part's queries (the builder's manifest counts them: `rows_read`,
 * tests/workers/views.test.ts, status-views.test.ts, timeline-views.test.ts); builds a day follow their marks and
 * settling times (public-views.ts).
 */
import { burstRunsPerDay } from './bursts.ts';
import { DAILY_COMPARE_WINDOWS, HOURLY_COMPARE_WINDOWS, LONGEST_VIEW_DAYS, VIEW_WINDOWS } from '../views/windows.ts';
import { SITE_PROFILE_DAYS } from './read-limits.ts';
import { ROLLUP_METRICS, SPLIT_METRICS } from '../rollup/figures.ts';
import { BEFORE_DAYS, WEEK_DAYS } from '../rollup/changes.ts';
import { PAIRED_FIGURES } from '../rollup/paired-hours.ts';
import type { ObservatoryConfig } from './types.ts';
import { coverOf } from '../rollup/spans.ts';
import { DAY_MS, HOUR_MS } from '../time.ts';

/** What D1 counts beyond the rows for each key a query seeks (measured: two rows). */
export const SPAN_READS_PER_SEEK = 2;

const HOURS_PER_DAY = 24;
/** The rollup figures a percentile view is built for, each window. */
const ROLLUP_FIGURES_COUNT = ROLLUP_METRICS.length + SPLIT_METRICS.length;
/** A window of days reads today's ended hours too: 11.5 of them on average over a day. */
const TODAYS_HOURS_AVERAGE = 11.5;

/**
 * The pieces one build of the percentile views reads (views/percentile-views.ts: the last 24 hours, today's ended
 * hours, days 1-7, 8-30 and 31-90, each covered by hourly, daily and span rows, shared/rollup/spans.ts), on average
 * over every hour of 64 days (the longest span's cycle). Each piece is a row per pair and a seek, which D1 counts
 * as SPAN_READS_PER_SEEK rows more.
 */
export function percentileViewPiecesAverage(): number {
  const day0 = Date.UTC(2026, 0, 1);
  let pieces = 0;
  for (let d = 0; d < 64; d++)
    for (let h = 0; h < HOURS_PER_DAY; h++) {
      const today = day0 + d * DAY_MS;
      const lastHour = today + h * HOUR_MS;
      for (const [from, to] of [
        [lastHour - DAY_MS, lastHour],
        [today, lastHour],
        [today - 7 * DAY_MS, today],
        [today - 30 * DAY_MS, today - 7 * DAY_MS],
        [today - LONGEST_VIEW_DAYS * DAY_MS, today - 30 * DAY_MS],
      ])
        pieces += coverOf(from, to, { now: lastHour }).length;
    }
  return pieces / (64 * HOURS_PER_DAY);
}
/** The status history's days a build reads: from the first day of the month the 90 days reach (90 to 121 days). */
const HISTORY_DAYS_AVERAGE = 106;
/** Concurrency runs a burst view holds (SITE_BURST_RUNS), each read twice (its runs found, then their streams). */
const BURST_RUNS_HELD = 6;
/** Incidents a day the model expects (each written a few times as it opens, escalates, resolves). */
const INCIDENT_WRITES_PER_DAY = 4;
/** The days the prompt-cache views' longest window (7 d) reads, and the TTFA changes' days (the week and the 28 before). */
const PROMPT_CACHE_VIEW_DAYS = 7;
const CHANGE_DAYS = WEEK_DAYS + BEFORE_DAYS;
/** Builds of the changes a day: the regions' day rollups after midnight, settled together, and sometimes a straggler's. */
const CHANGE_BUILDS_PER_DAY = 2;
/**
 * Builds of the status a tick: its regions' reports come as each region's probes of the tick end, mostly within the
 * minute they settle for (SETTLE_MS, public-views.ts), sometimes not.
 */
const STATUS_BUILDS_PER_TICK = 2;
/** Alarms of the builder a tick (the health's mark at the tick, the status's after the probes) and an hour (the rollups', the status history's). */
const ALARMS_PER_TICK = 3;
const ALARMS_PER_HOUR = 2;
/** The builder's one state row, written when a part turns dirty and once a build: twice an alarm. */
const STATE_ROWS_PER_ALARM = 2;

export interface PartCost {
  buildsPerDay: number;
  rowsReadPerBuild: number;
  viewsPerBuild: number;
  /** Durable Object requests a build makes besides its own alarm (the keeper's status, each region's). */
  doRequestsPerBuild: number;
}

export interface ViewCosts {
  parts: Record<string, PartCost>;
  d1RowsReadPerDay: number;
  /** Marks (each an RPC to the builder), its alarms, and the objects a build asks. */
  doRequestsPerDay: number;
  /** The builder's state row (its manifest and marks), written when a part turns dirty and once an alarm. */
  doRowsWrittenPerDay: number;
  /** Views written (a PUT each) and the manifest, a day: R2 Class A. */
  r2ClassAPerDay: number;
}

/**
 * `pairs`: region × target × variant probed; `regions`; `ticksPerDay`; `streamsPerRun`: one concurrency run's
 * streams over every region; `vendorPages`: the status pages polled; `pairedGroups`: region × variant families of two
 * or more targets (a paired-hours row each an hour); `cacheGroups`: region × opted-in target × prompt-cache variant.
 */
export function viewCosts(
  config: ObservatoryConfig,
  shape: {
    pairs: number;
    ticksPerDay: number;
    streamsPerRun: number;
    vendorPages: number;
    targets: number;
    pairedGroups: number;
    cacheGroups: number;
  },
): ViewCosts {
  const { pairs, ticksPerDay, streamsPerRun, vendorPages, targets, pairedGroups, cacheGroups } = shape;
  const regions = config.regions.length;
  const hourly = HOURS_PER_DAY;
  const parts: Record<string, PartCost> = {
    // Every region's report of a tick marks it; it settles for the reports of the tick's other regions.
    status: { buildsPerDay: ticksPerDay * STATUS_BUILDS_PER_TICK, rowsReadPerBuild: 0, viewsPerBuild: 1, doRequestsPerBuild: 1 },
    // The cron marks it each tick; its build asks every region and the keeper, and reads the last tick and the pages.
    health: { buildsPerDay: ticksPerDay, rowsReadPerBuild: 1 + vendorPages, viewsPerBuild: 1, doRequestsPerBuild: regions + 2 },
    // The regions' rollups of an ended hour, settled together: a build an hour.
    percentiles: {
      buildsPerDay: hourly,
      // … and each of its 5 reads the regions' span marks (a row each).
      rowsReadPerBuild: (pairs + SPAN_READS_PER_SEEK) * percentileViewPiecesAverage() + 5 * regions,
      viewsPerBuild: VIEW_WINDOWS.length * (ROLLUP_FIGURES_COUNT + 1),
      doRequestsPerBuild: 0,
    },
    catalog: { buildsPerDay: hourly, rowsReadPerBuild: pairs * HOURS_PER_DAY, viewsPerBuild: 4, doRequestsPerBuild: 0 },
    timeline: {
      buildsPerDay: hourly,
      rowsReadPerBuild: pairs * (HOURS_PER_DAY + LONGEST_VIEW_DAYS),
      viewsPerBuild: 2 * VIEW_WINDOWS.length,
      doRequestsPerBuild: 0,
    },
    metrics: { buildsPerDay: hourly, rowsReadPerBuild: 2 * pairs, viewsPerBuild: regions + 1, doRequestsPerBuild: 0 },
    profiles: { buildsPerDay: 1, rowsReadPerBuild: pairs * SITE_PROFILE_DAYS, viewsPerBuild: 1, doRequestsPerBuild: 0 },
    bursts: {
      buildsPerDay: config.bursts ? burstRunsPerDay(config.bursts) * regions : 0,
      rowsReadPerBuild: 2 * BURST_RUNS_HELD * streamsPerRun,
      viewsPerBuild: 1,
      doRequestsPerBuild: 0,
    },
    // The keeper writes an ended hour: the status history's hours and days, its months' daily rows (uptime's TTFT).
    history: {
      buildsPerDay: hourly,
      rowsReadPerBuild: pairs * (HOURS_PER_DAY + 2 * HISTORY_DAYS_AVERAGE),
      viewsPerBuild: VIEW_WINDOWS.length + 4,
      doRequestsPerBuild: 0,
    },
    incidents: {
      buildsPerDay: hourly + INCIDENT_WRITES_PER_DAY,
      rowsReadPerBuild: 5 * INCIDENT_WRITES_PER_DAY * LONGEST_VIEW_DAYS,
      viewsPerBuild: 2,
      doRequestsPerBuild: 0,
    },
    'vendor-incidents': {
      buildsPerDay: vendorPages > 0 ? hourly + INCIDENT_WRITES_PER_DAY : hourly,
      rowsReadPerBuild: vendorPages * (1 + 2 * 500) + 5 * INCIDENT_WRITES_PER_DAY * LONGEST_VIEW_DAYS,
      viewsPerBuild: 2 * (1 + targets),
      doRequestsPerBuild: 0,
    },
    // The 24 h views, each hour: each family's hours of the 24 before the last whole hour (and a row past the end).
    compare: {
      buildsPerDay: hourly,
      rowsReadPerBuild: pairedGroups * (HOURS_PER_DAY + 1),
      viewsPerBuild: HOURLY_COMPARE_WINDOWS.length * PAIRED_FIGURES.length,
      doRequestsPerBuild: 0,
    },
    // The 7, 30 and 90 d views, whole days, when a region writes a day's rollups: each family's packed days of the
    // longest window (a row a day), one family's read at a time.
    'compare-days': {
      buildsPerDay: CHANGE_BUILDS_PER_DAY,
      rowsReadPerBuild: pairedGroups * LONGEST_VIEW_DAYS,
      viewsPerBuild: DAILY_COMPARE_WINDOWS.length * PAIRED_FIGURES.length,
      doRequestsPerBuild: 0,
    },
    'prompt-cache': {
      buildsPerDay: hourly,
      rowsReadPerBuild: cacheGroups * (PROMPT_CACHE_VIEW_DAYS * HOURS_PER_DAY + TODAYS_HOURS_AVERAGE),
      viewsPerBuild: 2,
      doRequestsPerBuild: 0,
    },
    changes: { buildsPerDay: CHANGE_BUILDS_PER_DAY, rowsReadPerBuild: pairs * CHANGE_DAYS, viewsPerBuild: 1, doRequestsPerBuild: 0 },
  };
  const all = Object.values(parts);
  // An alarm builds every part due: a tick's together, an hour's together.
  const alarms = ticksPerDay * ALARMS_PER_TICK + hourly * ALARMS_PER_HOUR;
  // Marks: each region's report, the cron's each tick; each region's rollup and the keeper's hour (3 parts) each hour.
  const marks = ticksPerDay * (regions + 1) + hourly * (regions + 3) + INCIDENT_WRITES_PER_DAY;
  return {
    parts,
    d1RowsReadPerDay: all.reduce((n, p) => n + p.buildsPerDay * p.rowsReadPerBuild, 0),
    doRequestsPerDay: marks + alarms + all.reduce((n, p) => n + p.buildsPerDay * p.doRequestsPerBuild, 0),
    doRowsWrittenPerDay: STATE_ROWS_PER_ALARM * alarms,
    // Each view a PUT, and the manifest beside them once an alarm.
    r2ClassAPerDay: all.reduce((n, p) => n + p.buildsPerDay * p.viewsPerBuild, 0) + alarms,
  };
}

/** The flood `npm run capacity` prices: 10,000 anonymous requests a minute, from many addresses. */
export const ANONYMOUS_FLOOD_PER_MINUTE = 10_000;

/**
 * What `requestsPerMinute` anonymous requests of the public views cost a day, from as many addresses: no D1 row and no
 * Durable Object request (the views answer them); a Worker request each; at most one R2 read each, and in practice one
 * per view an isolate holds per MEMORY_MS (view-store.ts).
 */
export function anonymousFloodCost(requestsPerMinute: number) {
  const perDay = requestsPerMinute * 60 * HOURS_PER_DAY;
  return { requestsPerDay: perDay, d1RowsRead: 0, doRequests: 0, workerRequests: perDay, r2ClassBAtMost: perDay };
}
