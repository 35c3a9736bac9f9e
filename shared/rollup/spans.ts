/**
 * Span rollups: the hourly rows of 2, 4 and 8 aligned hours, and the daily rows of 4, 8, … 64 aligned days,
 * merged ahead (migrations/0021_span_rollups.sql), so that a window of whole hours reads a few rows per
 * region × target × variant instead of one per hour or day. A window is covered by the longest aligned pieces
 * that fit: hours up to the first midnight, whole days, hours after the last midnight. The spans of hours are kept
 * for the recent days alone (HOUR_SPAN_DAYS: the views' windows end there, and so do most asked for): an older
 * hour is read from its hourly row. Spans of days start at 4 days: half the rows (and D1 storage) the spans of 2
 * days would add, for at most two single days more at each end. A 90-day window to now reads at most about 12 pieces of
 * days and 24 of hours (its oldest 23 and its last one) where it read 90 daily rows and up to 46 hourly ones
 * (bench/duties.ts measures what that saves; docs/COSTS.md what it costs to write and keep).
 *
 * A piece is named by one integer, its key: its start in ms plus its length in hours. Starts are whole hours
 * (multiples of 3,600,000 ms) and lengths at most 1,536 hours, so the two never mix.
 */
import { DAY_MS, HOUR_MS } from '../time.ts';

/** The merged spans of hours (each divides a day, so none crosses midnight), and of days. */
export const HOUR_SPANS = [2, 4, 8] as const;
export const DAY_SPANS = [4, 8, 16, 32, 64] as const;
/** Days before today whose hours keep their spans (with today's): older ones are deleted (rollup/rollup-duty.ts). */
export const HOUR_SPAN_DAYS = 1;
/** The first hour whose spans are kept at `now`: midnight HOUR_SPAN_DAYS days before today. */
export const hourSpansFrom = (now: number): number => Math.floor(now / DAY_MS) * DAY_MS - HOUR_SPAN_DAYS * DAY_MS;
/** Every merged span, in hours, shortest first. */
export const SPAN_HOURS: readonly number[] = [...HOUR_SPANS, ...DAY_SPANS.map((d) => d * 24)];

/** One piece of a window: an hourly row (hours 1), a daily row (24) or a span rollup (SPAN_HOURS). */
export interface Piece {
  start: number;
  hours: number;
}

export const spanKey = (start: number, hours: number): number => start + hours;
export const pieceOfKey = (key: number): Piece => {
  const hours = key % HOUR_MS;
  return { start: key - hours, hours };
};
export const pieceEnd = (p: Piece): number => p.start + p.hours * HOUR_MS;

/**
 * Greedy pieces of [from, to) in units of `unit` ms: at each step the longest of `lengths` aligned there that fits
 * (none before `spansFrom`: single units there).
 */
function alignedPieces(
  from: number,
  to: number,
  unit: number,
  lengths: readonly number[],
  hoursPerUnit: number,
  out: Piece[],
  spansFrom = -Infinity,
): void {
  let p = from / unit;
  const end = to / unit;
  while (p < end) {
    let n = 1;
    if (p * unit >= spansFrom) for (const l of lengths) if (p % l === 0 && p + l <= end && l > n) n = l;
    out.push({ start: p * unit, hours: n * hoursPerUnit });
    p += n;
  }
}

/** When and how a window is read (coverOf): the rows the rollup duty has surely written by then. */
export interface CoverAt {
  now: number;
  /**
   * Where the region's spans are whole (db/span-rollups.ts span_marks, written by its object after each rollup
   * pass): no span that ends after it is read (a pass that failed, an object that has not yet written an upgraded
   * database's past spans, a region no longer probed). Absent: every span that has ended is.
   */
  spansThrough?: number;
  /** Days of rollups kept (rollupRetentionDays): no span of days that starts before the cut is read (retention leaves it). */
  rollupDays?: number;
}

/**
 * The pieces that cover whole hours [from, to) exactly, each once, in time order: the fewest of the aligned
 * ones above a greedy walk gives (the longest that starts at each point and fits). Read `at` a time, only what is
 * surely written and whole: spans of hours from hourSpansFrom(now) on, spans of days from the retention cut on,
 * no span past `spansThrough` (daily and hourly rows there), and nothing but single hours past settledBy(now) (the
 * last hour's rows and spans are written within minutes of its end, and a window read meanwhile misses that hour,
 * not the 64 days of a span not yet written). Without `at`, wherever they fit.
 */
export function coverOf(from: number, to: number, at?: CoverAt): Piece[] {
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from % HOUR_MS !== 0 || to % HOUR_MS !== 0)
    throw new RangeError(`a window of whole hours, not [${from}, ${to})`);
  const out: Piece[] = [];
  if (from >= to) return out;
  const within = (t: number) => Math.max(from, Math.min(to, Math.floor(t / HOUR_MS) * HOUR_MS));
  const settled = at ? within(settledBy(at.now)) : to;
  const spansEnd = at ? Math.min(settled, within(at.spansThrough ?? Infinity)) : to;
  const hourSpansAt = at ? hourSpansFrom(at.now) : -Infinity;
  const daySpansAt = at?.rollupDays !== undefined ? Math.floor(at.now / DAY_MS) * DAY_MS - at.rollupDays * DAY_MS : -Infinity;
  coverRange(from, spansEnd, HOUR_SPANS, DAY_SPANS, hourSpansAt, daySpansAt, out);
  coverRange(spansEnd, settled, [], [], Infinity, Infinity, out);
  for (let h = settled; h < to; h += HOUR_MS) out.push({ start: h, hours: 1 });
  return out;
}

/** The end of the hours whose rows and spans are surely written at `now`: an hour before the last whole hour. */
export const settledBy = (now: number): number => Math.floor(now / HOUR_MS) * HOUR_MS - HOUR_MS;

/** [from, to): hours up to the first midnight, whole days, hours after the last; spans of the lengths given, from where given. */
function coverRange(
  from: number,
  to: number,
  hourSpans: readonly number[],
  daySpans: readonly number[],
  hourSpansAt: number,
  daySpansAt: number,
  out: Piece[],
): void {
  if (from >= to) return;
  const firstDay = Math.ceil(from / DAY_MS) * DAY_MS;
  const lastDay = Math.floor(to / DAY_MS) * DAY_MS;
  if (firstDay >= lastDay) {
    alignedPieces(from, to, HOUR_MS, hourSpans, 1, out, hourSpansAt);
    return;
  }
  alignedPieces(from, firstDay, HOUR_MS, hourSpans, 1, out, hourSpansAt);
  alignedPieces(firstDay, lastDay, DAY_MS, daySpans, 24, out, daySpansAt);
  alignedPieces(lastDay, to, HOUR_MS, hourSpans, 1, out, hourSpansAt);
}

/** The span rollups an hourly row of `hour` is merged into (one of each hour span). */
export const spansOfHour = (hour: number): Piece[] =>
  HOUR_SPANS.map((n) => ({ start: Math.floor(hour / (n * HOUR_MS)) * n * HOUR_MS, hours: n }));

/** The span rollups a daily row of `day` is merged into (one of each day span). */
export const spansOfDay = (day: number): Piece[] =>
  DAY_SPANS.map((n) => ({ start: Math.floor(day / (n * DAY_MS)) * n * DAY_MS, hours: n * 24 }));

/** The spans of the hours of `day` (12 of 2 h, 6 of 4 h, 3 of 8 h). */
export function hourSpansWithin(day: number): Piece[] {
  const out: Piece[] = [];
  for (const n of HOUR_SPANS) for (let h = 0; h < 24; h += n) out.push({ start: day + h * HOUR_MS, hours: n });
  return out;
}

/** Every span rollup that holds some hour of `day`: its hours' spans and its own. */
export const spansWithin = (day: number): Piece[] => [...hourSpansWithin(day), ...spansOfDay(day)];
