/**
 * The answers of GET /api/v1/status-history and GET /api/v1/maintenance, apart from their routes
 * (status-history.ts) so that the public views (views/history-views.ts) and the benchmarks compute the same
 * answers without the routes' imports (plain TypeScript: no binding, no Durable Object).
 */
import type { StatusHistoryRowDoc } from '../../../shared/api-types.ts';
import { configWindows, type MaintenanceWindow } from '../../../shared/status/maintenance.ts';
import { getConfig } from '../config.ts';
import { LONGEST_VIEW_ID } from '../../../shared/views/windows.ts';

const iso = (t: number) => new Date(t).toISOString();

/** A row as D1 holds it (db/status-history.ts StoredHistoryRow): its period's start beside the key, counts and note. */
type HistoryRow = Omit<StatusHistoryRowDoc, 'hour' | 'day'> & { period: number };

/** What GET /api/v1/status-history says its counts are. */
const HISTORY_COUNTS =
  'ticks the status keeper judged in each state: operational, degraded, down, maintenance, no_data; late: of those, reported after the keeper had judged the tick';

/** GET /api/v1/status-history's answer: the rows of whole periods [from, to), and where the next page starts (null: none). */
export function statusHistoryDocument(
  resolution: 'hour' | 'day',
  from: number,
  to: number,
  rows: readonly HistoryRow[],
  next: number | null,
) {
  return {
    window: { from: iso(from), to: iso(Math.max(from, to)) },
    resolution,
    counts: HISTORY_COUNTS,
    rows: rows.map(({ period, ...r }) => ({ [resolution]: iso(period), ...r }) satisfies StatusHistoryRowDoc),
    next_cursor: next === null ? null : String(next),
  };
}

/** The window GET /api/v1/maintenance lists from unless asked: the windows that ended in the last 90 days or are to come. */
export const MAINTENANCE_WINDOW = LONGEST_VIEW_ID;

/** GET /api/v1/maintenance's answer: the configuration's windows and the admin API's (`made`) that end after `from`. */
export function maintenanceDocument(from: number, made: readonly MaintenanceWindow[]) {
  const windows = [...configWindows(getConfig().maintenance), ...made]
    .filter((x) => x.ends_at > from)
    .sort((a, b) => a.starts_at - b.starts_at || a.id.localeCompare(b.id));
  return { from: iso(from), windows: windows.map(windowDoc) };
}

export function windowDoc(w: MaintenanceWindow) {
  return { id: w.id, target: w.target, region: w.region, start: iso(w.starts_at), end: iso(w.ends_at), note: w.note, source: w.source };
}
