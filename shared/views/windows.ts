/**
 * The windows the public views hold, which are the windows the site offers: each ends at the last whole hour,
 * the 24 h one at its start 24 hours before, each longer one at 00:00 UTC N days before today (N whole days from
 * the daily rollups, then today's ended hours from the hourly ones), so a view of N days reads N daily rows and at
 * most 23 hourly rows per region × target × variant, whatever the number of ticks.
 */
import { DAY_MS, HOUR_MS } from '../time.ts';

export const VIEW_WINDOWS = [
  { id: '24h', label: '24 h', days: 1 },
  { id: '7d', label: '7 d', days: 7 },
  { id: '30d', label: '30 d', days: 30 },
  { id: '90d', label: '90 d', days: 90 },
] as const;
export type ViewWindowId = (typeof VIEW_WINDOWS)[number]['id'];
export const VIEW_WINDOW_IDS: readonly ViewWindowId[] = VIEW_WINDOWS.map((w) => w.id);
/** The view pages show unless one is chosen. */
export const DEFAULT_VIEW_WINDOW: ViewWindowId = '7d';
/** The longest view, in days: how far back the daily rows are read. */
export const LONGEST_VIEW_DAYS = Math.max(...VIEW_WINDOWS.map((w) => w.days));
/** The longest view's id ('90d'): the window the status history, incidents and vendor incidents list by default. */
export const LONGEST_VIEW_ID: ViewWindowId = VIEW_WINDOWS.find((w) => w.days === LONGEST_VIEW_DAYS)!.id;

export interface ViewSpan {
  id: ViewWindowId;
  /** Whole hours: [from, to). */
  from: number;
  to: number;
  /** Its history's period: an hour in the 24 h view, a day in the others. */
  resolution: 'hour' | 'day';
}

export const isViewWindow = (id: string): id is ViewWindowId => (VIEW_WINDOW_IDS as readonly string[]).includes(id);

export function viewSpan(id: ViewWindowId, now: number): ViewSpan {
  const lastHour = Math.floor(now / HOUR_MS) * HOUR_MS;
  if (id === '24h') return { id, from: lastHour - DAY_MS, to: lastHour, resolution: 'hour' };
  const days = VIEW_WINDOWS.find((w) => w.id === id)!.days;
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  return { id, from: today - days * DAY_MS, to: lastHour, resolution: 'day' };
}

/**
 * The window of a paired comparison the compare views hold: the 24 h one as viewSpan's (to the last whole hour,
 * built with each hour's rollups); the longer ones the whole UTC days before today (N days back from 00:00 UTC
 * today), built once a day when the days' rollups are written. A week's or a quarter's verdict, ranked over blocks of
 * up to a day, then moves a day at a time, and ranking every family over 90 days is a day's work, not an hour's
 * (docs/MEASUREMENT.md, "Paired comparisons"; docs/COSTS.md).
 */
export function compareSpan(id: ViewWindowId, now: number): ViewSpan {
  const span = viewSpan(id, now);
  if (id === '24h') return span;
  return { ...span, to: Math.floor(now / DAY_MS) * DAY_MS };
}

/** The compare views built with each hour's rollups, and those built once a day (compareSpan). */
export const HOURLY_COMPARE_WINDOWS: readonly ViewWindowId[] = ['24h'];
export const DAILY_COMPARE_WINDOWS: readonly ViewWindowId[] = VIEW_WINDOW_IDS.filter((id) => !HOURLY_COMPARE_WINDOWS.includes(id));
