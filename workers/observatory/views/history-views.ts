/**
 * The views of the status history: GET /api/v1/status-history in each window the site offers (24 hours of hours;
 * 7, 30 and 90 days of days), GET /api/v1/maintenance's default window (90 days), and GET /api/v1/uptime for every
 * month the 90 days of days reach. The keeper writes the history once an hour ends, and marks this part then; the
 * admin API marks it when a maintenance window is made or taken back.
 *
 * A history view answers its whole window at once (`next_cursor: null`): its rows are the live route's pages end
 * to end. It is narrowed by region, target and variant line by line; a window whose lines (days × the
 * configuration's region × target × variant rows) are more than NARROWED_VIEW_LINES is also split into a view per
 * target and a view per region, so a request naming one of either reads a view a tenth or a sixth as long.
 *
 * Built from one read of the hours, one of the days (the 90 days and the first reached month's days before them),
 * the admin API's maintenance windows, and per month what its uptime report reads besides its days.
 */
import { DAY_MS, HOUR_MS } from '../../../shared/time.ts';
import { MAX_API_WINDOWS } from '../../../shared/status/maintenance.ts';
import { monthEnd, monthOf, monthStart } from '../../../shared/status/uptime.ts';
import { LONGEST_VIEW_ID, VIEW_WINDOWS, type ViewWindowId } from '../../../shared/views/windows.ts';
import { getConfig, storedList } from '../config.ts';
import { historyRows, listMaintenance, type StoredHistoryRow } from '../db/status-history.ts';
import { pairLists } from '../api/filters.ts';
import { parseChoice, parseWindow } from '../api/query.ts';
import { historyWindow } from '../api/status-history.ts';
import { MAINTENANCE_WINDOW, maintenanceDocument, statusHistoryDocument } from '../api/status-history-docs.ts';
import { monthRows, uptimeDocument, uptimeReads, uptimeReport, uptimeSpan } from '../api/uptime.ts';
import { HISTORY_LIST, historyKeysFor } from './status-lists.ts';
import {
  keysFirst,
  onlyParams,
  pairFilter,
  type BuiltView,
  type PairLists,
  type ViewMatch,
  type ViewMatcher,
  type ViewPart,
} from './view-part.ts';

/**
 * The most lines a view narrowed line by line is held to: filterViewText reads a line in about 0.2 µs, so 2,000
 * take about 0.4 ms of a request's CPU (bench/duties.ts measures the views of this part at the goal's scale).
 */
export const NARROWED_VIEW_LINES = 2_000;

type Resolution = 'hour' | 'day';
/** The history's windows: the site's, 24 hours of hours and the longer ones of days. */
const HISTORY_WINDOWS = VIEW_WINDOWS.map((w) => ({ id: w.id, days: w.days, resolution: (w.id === '24h' ? 'hour' : 'day') as Resolution }));
type HistoryWindow = (typeof HISTORY_WINDOWS)[number];

export const historyViewName = (w: { id: ViewWindowId; resolution: Resolution }, split?: string) =>
  `status-history/${w.resolution}/${w.id}${split ? `@${split}` : ''}`;
export const uptimeViewName = (month: string) => `uptime/${month}`;
export const MAINTENANCE_VIEW = 'maintenance';

/** The most lines a window's view can hold: a row per period and region × target × variant the configuration stores. */
function mostLines(w: HistoryWindow): number {
  const pairs = getConfig().regions.reduce((n, r) => n + storedList(r.code).length, 0);
  return w.days * (w.resolution === 'hour' ? DAY_MS / HOUR_MS : 1) * pairs;
}
/** The view of a window for a request's lists: the whole one, or for a split window the one target's or region's it names. */
function historyMatch(w: HistoryWindow, lists: PairLists, split: boolean): ViewMatch {
  const filter = pairFilter(historyKeysFor(lists), lists);
  if (!filter || !split) return { view: historyViewName(w), filter };
  if (lists.targets?.length === 1) return { view: historyViewName(w, `target=${lists.targets[0]}`), filter };
  if (lists.regions?.length === 1) return { view: historyViewName(w, `region=${lists.regions[0]}`), filter };
  // Several targets and regions at once: the whole view, narrowed (bench/duties.ts measures it at the goal's scale).
  return { view: historyViewName(w), filter };
}

const matchHistory =
  (isSplit: (w: HistoryWindow) => boolean): ViewMatcher =>
  (q) => {
    if (!onlyParams(q, ['resolution', 'window', 'region', 'target', 'variant'])) return null;
    const resolution = parseChoice(q, 'resolution', ['hour', 'day'] as const, 'day');
    const id = q.get('window') ?? (resolution === 'hour' ? '24h' : LONGEST_VIEW_ID);
    const w = HISTORY_WINDOWS.find((x) => x.id === id && x.resolution === resolution);
    return w ? historyMatch(w, pairLists(q), isSplit(w)) : null;
  };

const matchMaintenance: ViewMatcher = (q) =>
  onlyParams(q, ['window']) && (q.get('window') ?? MAINTENANCE_WINDOW) === MAINTENANCE_WINDOW ? { view: MAINTENANCE_VIEW } : null;

/** The months the 90 days of the day history reach, oldest first, as of `now`: those the uptime views hold. */
export function uptimeMonths(now: number): string[] {
  const { from } = historyWindow(new URLSearchParams({ window: LONGEST_VIEW_ID }), now);
  const months: string[] = [];
  for (let start = monthStart(monthOf(from))!; start <= now; start = monthEnd(start)) months.push(monthOf(start));
  return months;
}

const matchUptime: ViewMatcher = (q) => {
  if (!onlyParams(q, ['month', 'format'])) return null;
  const now = Date.now();
  const month = q.get('month') ?? monthOf(now);
  // A month no view holds (or no month at all) is the live route's, with its own 400.
  return uptimeMonths(now).includes(month) ? { view: uptimeViewName(month) } : null;
};

/** The window's views: the whole one, and for a split window one per configured target and region. */
function windowViews(w: HistoryWindow, split: boolean, from: number, to: number, rows: readonly StoredHistoryRow[]): BuiltView[] {
  const doc = (subset: readonly StoredHistoryRow[]) => {
    const d = statusHistoryDocument(w.resolution, from, to, subset, null);
    return { ...d, rows: d.rows.map((r) => keysFirst(r, HISTORY_LIST.keys)) };
  };
  const views: BuiltView[] = [{ name: historyViewName(w), doc: doc(rows), list: HISTORY_LIST }];
  if (!split) return views;
  const config = getConfig();
  for (const t of config.targets)
    views.push({ name: historyViewName(w, `target=${t.id}`), doc: doc(rows.filter((r) => r.target === t.id)), list: HISTORY_LIST });
  for (const r of config.regions)
    views.push({ name: historyViewName(w, `region=${r.code}`), doc: doc(rows.filter((x) => x.region === r.code)), list: HISTORY_LIST });
  return views;
}

/** The part, its windows split past `narrowedLines` (the tests ask for fewer than the configuration's). */
export function historyPart(narrowedLines = NARROWED_VIEW_LINES): ViewPart {
  const isSplit = (w: HistoryWindow) => mostLines(w) > narrowedLines;
  return {
    name: 'history',
    routes: { '/api/v1/status-history': matchHistory(isSplit), '/api/v1/maintenance': matchMaintenance, '/api/v1/uptime': matchUptime },
    async build({ db, now }) {
      const spans = HISTORY_WINDOWS.map((w) => ({
        w,
        ...historyWindow(new URLSearchParams({ resolution: w.resolution, window: w.id }), now),
      }));
      const months = uptimeMonths(now);
      const earliest = (resolution: Resolution) => Math.min(...spans.filter((s) => s.w.resolution === resolution).map((s) => s.from));
      const hours = await historyRows(db, { resolution: 'hour', from: earliest('hour'), to: now });
      // The days of every window and of every month reached (the month in progress up to now, as its report counts).
      const days = await historyRows(db, { resolution: 'day', from: Math.min(earliest('day'), monthStart(months[0])!), to: now });
      const within = (rows: readonly StoredHistoryRow[], from: number, to: number) => rows.filter((r) => r.period >= from && r.period < to);

      const views: BuiltView[] = spans.flatMap(({ w, from, to }) =>
        windowViews(w, isSplit(w), from, to, within(w.resolution === 'hour' ? hours : days, from, to)),
      );
      const since = parseWindow(new URLSearchParams({ window: MAINTENANCE_WINDOW }), now).from;
      views.push({ name: MAINTENANCE_VIEW, doc: maintenanceDocument(since, await listMaintenance(db, since, MAX_API_WINDOWS)) });
      for (const month of months) {
        const { from, to } = uptimeSpan(month, now);
        // The month's days as the route reads them: in D1's order, at most the rows a month can hold.
        const report = uptimeReport(month, now, within(days, from, to).slice(0, monthRows()), await uptimeReads(db, from, to));
        views.push({ name: uptimeViewName(month), doc: uptimeDocument(report) });
      }
      return views;
    },
  };
}

export const historyViews = historyPart();
