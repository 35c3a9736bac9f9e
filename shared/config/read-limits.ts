/**
 * What one request of the read API may cost: the anonymous windows, the rollup page size, the merge
 * budget of a percentile request. Each figure is measured against a free-plan request's CPU
 * (bench/duties.ts) or bounds what the cost model (capacity.ts) counts.
 */
import { DAY_MS, HOUR_MS } from '../time.ts';
import { coverOf } from '../rollup/spans.ts';

/** Concurrency runs a report covers unless asked (GET /api/v1/bursts without `runs`), and so what the site build reads. */
export const SITE_BURST_RUNS = 6;

/**
 * Rows a page of /api/v1/rollups holds at most, by form: what one free-plan Worker request encodes within
 * half its 10 ms of CPU with a day's histograms in each row (bench/duties.ts measures both).
 */
export const ROLLUP_PAGE_ROWS = { base64: 120, json: 15 } as const;
/**
 * What one percentile request from rollups may merge, by plan, in row units: a row of a daily or span rollup is 1
 * and an hourly row HOURLY_ROW_UNITS (it holds a fifth of a daily row's bytes, but its header and key cost the
 * same; measured at a third, counted at a half). A window reads a row per pair of each of its pieces (hours at its
 * edges, span rollups of hours (the recent days') and of days: shared/rollup/spans.ts), so a 90-day window to now is
 * at most 23 units a pair (its oldest 23 hours and its last at a half), 1,380 over the goal's 6 × 10 pairs; a 366-day
 * one up to about 28 (1,680: ask per region then). On the free plan the cap is what fits half of
 * a Worker request's 10 ms of CPU, D1's response included, with room for a busier machine (bench/duties.ts,
 * "percentiles from 1600 daily rows"): about 70 pairs over any window. The paid plan's 30 s hold any window.
 */
export const PERCENTILE_ROW_UNITS = { free: 1_600, paid: 1_000_000 } as const;
export const HOURLY_ROW_UNITS = 0.5;
/**
 * What one timeline request from rollups may read, by plan, in the same row units: each row makes a point of its
 * own (its counts, errors and two quantiles), about three times a percentile's work a row, so on the free plan
 * half as many rows fit half of a Worker request's 10 ms (bench/duties.ts): 400 daily rows, e.g. 90 days of 4
 * pairs. The public views hold the site's windows whole.
 */
export const TIMELINE_ROW_UNITS = { free: 400, paid: 1_000_000 } as const;

/** Rollup rows per pair a window of whole hours [fromHour, toHour) is answered from: daily rows for whole UTC days, hourly rows at its edges. */
export function rollupRowsCovering(fromHour: number, toHour: number): { daily: number; hourly: number } {
  const firstDay = Math.ceil(fromHour / DAY_MS) * DAY_MS;
  const lastDay = Math.floor(toHour / DAY_MS) * DAY_MS;
  if (firstDay >= lastDay) return { daily: 0, hourly: Math.max(0, (toHour - fromHour) / HOUR_MS) };
  return { daily: (lastDay - firstDay) / DAY_MS, hourly: (firstDay - fromHour) / HOUR_MS + (toHour - lastDay) / HOUR_MS };
}

/**
 * The row units (PERCENTILE_ROW_UNITS) of a window of whole hours over `pairs` pairs, as its percentiles read it:
 * a row per pair of each piece (shared/rollup/spans.ts coverOf), a single hour's HOURLY_ROW_UNITS, any other 1.
 */
export function percentileRowUnits(fromHour: number, toHour: number, pairs: number, now = Date.now()): number {
  let units = 0;
  for (const p of coverOf(fromHour, toHour, { now })) units += p.hours === 1 ? HOURLY_ROW_UNITS : 1;
  return pairs * units;
}

/** Anonymous reads of the public API: what one request may read, and what they may read a day in all. */
export const ANON_LIMITS = { rawWindowDays: 1, hourlyWindowDays: 31, maxWindowDays: 366, burstRuns: 24 } as const;

/** Rows a page of /api/v1/paired-hours holds at most (one region × variant × hour each, about 2.2 KB for 7 targets). */
export const PAIRED_PAGE_ROWS = 500;
/** Days of paired blocks the site build reads for its verdicts (the default view's 7: a week is what one comparison ranks). */
export const SITE_PAIRED_DAYS = 7;
/**
 * Comparisons one GET /api/v1/compare computes, by plan: every family an answer shows a pair of is computed whole
 * (one region × variant × figure, every pair of its targets: shared/rollup/paired-families.ts). On the free plan one
 * region's family at the goal's 10 targets, 45 pairs: a week of its blocks takes about 8 ms of CPU on a quiet
 * machine, 11–14 ms beside other work (bench/duties.ts: each row's JSON parsed, 3 ms of it, the figure's blocks
 * decoded, each comparison's block length fitted and its interval's order statistics counted): at the edge of a
 * free-plan request's 10 ms, above the half other reads keep to. Ask per region and variant. The public views hold every window the site offers, whole, for every anonymous reader.
 */
export const COMPARISONS_PER_REQUEST = { free: 45, paid: 1_024 } as const;
/**
 * Region × target × variant series one GET /api/v1/changes judges, by plan (35 daily rows each decoded, each day's
 * median and the two windows' merged): on the free plan what fits half of a Worker request's 10 ms of CPU, about
 * 0.8 ms a series (bench/duties.ts). Its public view holds the whole grid.
 */
export const CHANGE_PAIRS_PER_REQUEST = { free: 5, paid: 100_000 } as const;

/** Rows a page of /api/v1/status-history holds at most (one region × target × variant × period each, about 150 bytes). */
export const HISTORY_PAGE_ROWS = 1_000;

/** Rows a page of /api/v1/hour-profiles holds at most (one region × target × variant × day each, about 400 bytes). */
export const PROFILE_PAGE_ROWS = 500;
/** Days of time profiles the site build reads: four weeks, so every weekday's hour has up to four days. */
export const SITE_PROFILE_DAYS = 28;
