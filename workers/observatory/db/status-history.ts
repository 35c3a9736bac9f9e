/**
 * The status history in D1 (migrations/0014_status_history.sql, 0016_status_late.sql): the keeper's counted
 * judgements per hour and per UTC day for each region × target × prompt variant (with how many of them came late),
 * and the maintenance windows the admin API made.
 */
import { PERIOD_STATES, STATE_COLUMNS } from '../../../shared/status/levels.ts';
import type { PeriodTally } from '../../../shared/status/period-tally.ts';
import type { MaintenanceWindow } from '../../../shared/status/maintenance.ts';
import type { StatusHistoryRowDoc } from '../../../shared/api-types.ts';
import { DAY_MS } from '../../../shared/time.ts';
import { periodWhere, wholePeriodPage } from './periods.ts';

/** Every counted column: a tick per state, and the late ones among them. */
const COUNT_COLUMNS = [...STATE_COLUMNS, 'late'];

/** Each table's columns and key as the code writes them (tests/workers/schema.test.ts holds the migrations to them; `late` came after). */
export const STATUS_HISTORY_SHAPES = {
  status_hours: {
    columns: ['hour', 'target', 'prompt_variant', 'region', ...STATE_COLUMNS, 'note', 'late'],
    key: ['hour', 'target', 'prompt_variant', 'region'],
  },
  status_days: {
    columns: ['day', 'target', 'prompt_variant', 'region', ...STATE_COLUMNS, 'note', 'late'],
    key: ['day', 'target', 'prompt_variant', 'region'],
  },
} as const;

/** One region × target × variant's counted hour, as the keeper writes it. */
export interface HistoryHour {
  hour: number;
  target: string;
  variant: string;
  region: string;
  tally: PeriodTally;
}

const UPSERT_HOUR = `INSERT INTO status_hours (hour, target, prompt_variant, region, ${COUNT_COLUMNS.join(', ')}, note)
  VALUES (?, ?, ?, ?, ${COUNT_COLUMNS.map(() => '?').join(', ')}, ?)
  ON CONFLICT (hour, target, prompt_variant, region) DO UPDATE SET ${[...COUNT_COLUMNS, 'note'].map((c) => `${c} = excluded.${c}`).join(', ')}`;

/**
 * The day's row, summed from its hours in D1 (at most 24 rows read): the same hours give the same row, whatever
 * order they were written in. Its note is the worst hour's (most down ticks, then degraded, then maintenance).
 */
const UPSERT_DAY = `INSERT INTO status_days (day, target, prompt_variant, region, ${COUNT_COLUMNS.join(', ')}, note)
  SELECT ?1, target, prompt_variant, region, ${COUNT_COLUMNS.map((c) => `SUM(${c})`).join(', ')},
    (SELECT note FROM status_hours n WHERE n.hour >= ?1 AND n.hour < ?2 AND n.target = ?3 AND n.prompt_variant = ?4 AND n.region = ?5
      AND n.note IS NOT NULL ORDER BY n.down DESC, n.degraded DESC, n.maintenance DESC, n.hour DESC LIMIT 1)
  FROM status_hours WHERE hour >= ?1 AND hour < ?2 AND target = ?3 AND prompt_variant = ?4 AND region = ?5
  GROUP BY target, prompt_variant, region
  ON CONFLICT (day, target, prompt_variant, region) DO UPDATE SET ${[...COUNT_COLUMNS, 'note'].map((c) => `${c} = excluded.${c}`).join(', ')}`;

/** Writes the hours and, after them, each day they fall in, in one transaction. */
export async function writeHistory(db: D1Database, hours: readonly HistoryHour[]): Promise<void> {
  if (hours.length === 0) return;
  const hour = db.prepare(UPSERT_HOUR);
  const day = db.prepare(UPSERT_DAY);
  const days = new Map<string, [number, string, string, string]>();
  for (const h of hours) {
    const d = Math.floor(h.hour / DAY_MS) * DAY_MS;
    days.set(`${d}|${h.target}|${h.variant}|${h.region}`, [d, h.target, h.variant, h.region]);
  }
  await db.batch([
    ...hours.map((h) =>
      hour.bind(h.hour, h.target, h.variant, h.region, ...PERIOD_STATES.map((s) => h.tally.counts[s]), h.tally.late, h.tally.note),
    ),
    ...[...days.values()].map(([d, target, variant, region]) => day.bind(d, d + DAY_MS, target, variant, region)),
  ]);
}

/** Retention, with the rollups: hours before `beforeHour`, days wholly before it. */
export function deleteHistoryBefore(db: D1Database, beforeHour: number): D1PreparedStatement[] {
  return [
    db.prepare('DELETE FROM status_hours WHERE hour < ?').bind(beforeHour),
    db.prepare('DELETE FROM status_days WHERE day + ? <= ?').bind(DAY_MS, beforeHour),
  ];
}

/** A stored row as read: its period (hour or day start) beside the API's key, counts and note. */
export type StoredHistoryRow = Omit<StatusHistoryRowDoc, 'hour' | 'day'> & { period: number };

export interface HistoryFilter {
  resolution: 'hour' | 'day';
  from: number;
  to: number;
  targets?: string[];
  variants?: string[];
  regions?: string[];
}

/** The rows of periods in [from, to) the filter selects, in period order, at most `limit`. */
export async function historyRows(db: D1Database, f: HistoryFilter, limit?: number): Promise<StoredHistoryRow[]> {
  const column = f.resolution;
  const where = periodWhere(column, f);
  const { results } = await db
    .prepare(
      `SELECT ${column} AS period, target, prompt_variant, region, ${COUNT_COLUMNS.join(', ')}, note FROM status_${column}s WHERE ${where.sql}
      ORDER BY ${column}, target, prompt_variant, region${limit !== undefined ? ' LIMIT ?' : ''}`,
    )
    .bind(...where.params, ...(limit !== undefined ? [limit] : []))
    .all<StoredHistoryRow>();
  return results.map((r) => ({ ...r, period: Number(r.period) }));
}

/** A page of whole periods from `from` on, at most about `limit` rows; `next` is the next page's first period. */
export function historyPage(db: D1Database, f: HistoryFilter, limit: number): Promise<{ rows: StoredHistoryRow[]; next: number | null }> {
  return wholePeriodPage(
    (from, to, most) => historyRows(db, { ...f, from, to }, most),
    (r) => r.period,
    f.from,
    f.to,
    limit,
  );
}

// --- maintenance windows made through the admin API ---

export async function insertMaintenance(db: D1Database, w: MaintenanceWindow, createdAt: number): Promise<void> {
  await db
    .prepare('INSERT INTO maintenance (id, target, region, starts_at, ends_at, note, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .bind(w.id, w.target, w.region, w.starts_at, w.ends_at, w.note, createdAt)
    .run();
}

/** True when a window with this id was there to delete. */
export async function deleteMaintenance(db: D1Database, id: string): Promise<boolean> {
  const r = await db.prepare('DELETE FROM maintenance WHERE id = ?').bind(id).run();
  return (r.meta.changes ?? 0) > 0;
}

/** The API's windows ending after `since`, soonest first, at most `limit`. */
export async function listMaintenance(db: D1Database, since: number, limit: number): Promise<MaintenanceWindow[]> {
  const { results } = await db
    .prepare('SELECT id, target, region, starts_at, ends_at, note FROM maintenance WHERE ends_at > ? ORDER BY starts_at, id LIMIT ?')
    .bind(since, limit)
    .all<Omit<MaintenanceWindow, 'source'>>();
  return results.map((r) => ({ ...r, starts_at: Number(r.starts_at), ends_at: Number(r.ends_at), source: 'api' as const }));
}

/** Retention: windows that ended before `before`. */
export function deleteMaintenanceBefore(db: D1Database, before: number): D1PreparedStatement {
  return db.prepare('DELETE FROM maintenance WHERE ends_at < ?').bind(before);
}
