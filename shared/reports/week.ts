/**
 * ISO 8601 weeks in UTC, the periods the weekly reports cover: a week runs from Monday 00:00 UTC for seven days,
 * and belongs to the year of its Thursday (so 2026-12-28 opens 2026-W53 and 2027-01-04 opens 2027-W01). A week's
 * id is written `YYYY-Www`, as in its report's URL (/reports/2026-W48/).
 */
import { DAY_MS } from '../time.ts';

export const WEEK_MS = 7 * DAY_MS;
/** A week id as the API and the site write it. */
export const WEEK_PATTERN = /^(\d{4})-W(\d{2})$/;

/** The Monday 00:00 UTC that starts the week holding `t`. */
export function weekStart(t: number): number {
  const day = Math.floor(t / DAY_MS) * DAY_MS;
  // 1970-01-01 was a Thursday: day 0 has weekday 3 counting from Monday.
  const weekday = (Math.floor(day / DAY_MS) + 3) % 7;
  return day - ((weekday + 7) % 7) * DAY_MS;
}

/** The id of the week holding `t`. */
export function isoWeek(t: number): string {
  const start = weekStart(t);
  const year = new Date(start + 3 * DAY_MS).getUTCFullYear();
  const firstStart = weekStartOfYear(year);
  const n = Math.round((start - firstStart) / WEEK_MS) + 1;
  return `${year}-W${String(n).padStart(2, '0')}`;
}

/** The start of week 1 of an ISO year: the week holding 4 January. */
function weekStartOfYear(year: number): number {
  return weekStart(Date.UTC(year, 0, 4));
}

/** The weeks an ISO year has: 53 when it starts on a Thursday, or on a Wednesday in a leap year. */
export function weeksInYear(year: number): number {
  return Math.round((weekStartOfYear(year + 1) - weekStartOfYear(year)) / WEEK_MS);
}

/** A week id's span [from, to), or null when it names no week (bad syntax, W00, W53 of a 52-week year). */
export function weekSpan(id: string): { from: number; to: number } | null {
  const m = WEEK_PATTERN.exec(id);
  if (!m) return null;
  const year = Number(m[1]);
  const n = Number(m[2]);
  if (n < 1 || n > weeksInYear(year)) return null;
  const from = weekStartOfYear(year) + (n - 1) * WEEK_MS;
  return { from, to: from + WEEK_MS };
}

/** The week before this one. */
export const previousWeek = (id: string): string => isoWeek(weekSpan(id)!.from - DAY_MS);

/** The last week that has ended by `now`. */
export const lastEndedWeek = (now: number): string => isoWeek(weekStart(now) - DAY_MS);
