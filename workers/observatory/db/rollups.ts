/** Every SQL statement for the hourly rollups, each a named function with bound parameters. */
import { inList, ONLY_LIST_VALUES } from './in-list.ts';
import { periodWhere, wholePeriodPage } from './periods.ts';
import { deletePairedHoursBefore, PAIRED_DAYS_SHAPE, PAIRED_TABLE_SHAPE } from './paired.ts';
import { CACHE_TABLE_SHAPE, deleteCacheHoursBefore } from './cache.ts';
import { deleteHistoryBefore, deleteMaintenanceBefore, STATUS_HISTORY_SHAPES } from './status-history.ts';
import { deleteProfilesBefore, PROFILE_TABLE_SHAPE } from './profiles.ts';
import { PLACES_TABLE_SHAPE } from './places.ts';
import { ROLLUP_METRICS, SPLIT_METRICS, type Rollup, type RollupSample } from '../../../shared/rollup/rollup.ts';
import { bodyValues, fromRollupRow } from './rollup-row.ts';
import type { CacheSample } from '../../../shared/rollup/cache-hours.ts';
import type { PlaceSample } from '../../../shared/rollup/hour-places.ts';
import { DAY_MS, HOUR_MS } from '../../../shared/time.ts';

const SAMPLE_COLUMNS_READ = [
  'tick_id',
  'region',
  'target',
  'prompt_variant',
  'method_version',
  'error',
  'split_source',
  ...ROLLUP_METRICS,
  ...SPLIT_METRICS,
  // The prompt-cache blocks' (shared/rollup/cache-hours.ts), read with the rest.
  'cache_pass',
  'cached_tokens',
  // The place records' (shared/rollup/hour-places.ts).
  'started_at',
  'colo',
  'colo_outside_region',
  'served_by',
  'served_by_source',
  'split_note',
  'rtt_ms',
];
export const ROLLUP_COLUMNS = [
  'hour',
  'region',
  'target',
  'prompt_variant',
  'method_version',
  'probes',
  'successes',
  'errors',
  ...ROLLUP_METRICS,
  'split',
];
export const KEY = ['hour', 'region', 'target', 'prompt_variant', 'method_version'];

const TOTAL_COLUMNS = ROLLUP_COLUMNS.filter((c) => c !== 'hour');
const TOTAL_KEY = KEY.filter((c) => c !== 'hour');
/** The totals' columns as read: each histogram as hex text, which costs the Worker far less to receive than D1's array of numbers. */
const TOTAL_SELECT = TOTAL_COLUMNS.map((c) =>
  (ROLLUP_METRICS as readonly string[]).includes(c) || c === 'split' ? `hex(${c}) AS ${c}` : c,
).join(', ');
const UPSERT_TOTAL = `INSERT INTO rollup_totals (${TOTAL_COLUMNS.join(', ')}) VALUES (${TOTAL_COLUMNS.map(() => '?').join(', ')})
  ON CONFLICT (${TOTAL_KEY.join(', ')}) DO UPDATE SET ${TOTAL_COLUMNS.filter((c) => !TOTAL_KEY.includes(c))
    .map((c) => `${c} = excluded.${c}`)
    .join(', ')}`;

const UPSERT = `INSERT INTO hourly_rollups (${ROLLUP_COLUMNS.join(', ')}) VALUES (${ROLLUP_COLUMNS.map(() => '?').join(', ')})
  ON CONFLICT (${KEY.join(', ')}) DO UPDATE SET ${ROLLUP_COLUMNS.filter((c) => !KEY.includes(c))
    .map((c) => `${c} = excluded.${c}`)
    .join(', ')}`;

/** The daily table: the same columns, keyed by `day` where the hourly one has `hour`. */
const DAILY_COLUMNS = ROLLUP_COLUMNS.map((c) => (c === 'hour' ? 'day' : c));
const DAILY_KEY = KEY.map((c) => (c === 'hour' ? 'day' : c));
const UPSERT_DAILY = `INSERT INTO daily_rollups (${DAILY_COLUMNS.join(', ')}) VALUES (${DAILY_COLUMNS.map(() => '?').join(', ')})
  ON CONFLICT (${DAILY_KEY.join(', ')}) DO UPDATE SET ${DAILY_COLUMNS.filter((c) => !DAILY_KEY.includes(c))
    .map((c) => `${c} = excluded.${c}`)
    .join(', ')}`;

/** The span rollups' table (shared/rollup/spans.ts): the same columns, keyed by `block` (a span's start plus its hours). */
export const SPAN_COLUMNS = ROLLUP_COLUMNS.map((c) => (c === 'hour' ? 'block' : c));
export const SPAN_KEY = KEY.map((c) => (c === 'hour' ? 'block' : c));

/** Each rollup table's columns in order and its key, as the code writes them (tests/workers/schema.test.ts holds the migrations to them). */
export const ROLLUP_TABLE_SHAPES = {
  hourly_rollups: { columns: ROLLUP_COLUMNS, key: KEY },
  daily_rollups: { columns: DAILY_COLUMNS, key: DAILY_KEY },
  rollup_totals: { columns: TOTAL_COLUMNS, key: TOTAL_KEY },
  paired_hours: PAIRED_TABLE_SHAPE,
  paired_days: PAIRED_DAYS_SHAPE,
  cache_hours: CACHE_TABLE_SHAPE,
  ...STATUS_HISTORY_SHAPES,
  hour_profiles: PROFILE_TABLE_SHAPE,
  hour_places: PLACES_TABLE_SHAPE,
  span_rollups: { columns: SPAN_COLUMNS, key: SPAN_KEY },
} as const;

/** A rollup table: hourly rows, or daily rows merged from them. */
export type Resolution = 'hour' | 'day';
const TABLES = {
  hour: { table: 'hourly_rollups', period: 'hour', columns: ROLLUP_COLUMNS, key: KEY },
  day: { table: 'daily_rollups', period: 'day', columns: DAILY_COLUMNS, key: DAILY_KEY },
} as const;

/** The samples of one region's hour, as a rollup reads them (a few columns of tens of rows). */
export async function samplesOfHour(
  db: D1Database,
  region: string,
  hour: number,
): Promise<Array<RollupSample & CacheSample & PlaceSample>> {
  const { results } = await db
    .prepare(`SELECT ${SAMPLE_COLUMNS_READ.join(', ')} FROM samples WHERE tick_id >= ? AND tick_id < ? AND region = ?`)
    .bind(hour, hour + HOUR_MS, region)
    .all<RollupSample & CacheSample & PlaceSample>();
  return results;
}

/**
 * Writes rollups, replacing any earlier rows of the same keys (writing the same rollup twice changes
 * nothing), and the running totals they change, in one transaction: the two never disagree.
 */
export async function upsertRollups(
  db: D1Database,
  rollups: Rollup[],
  totals: Rollup[] = [],
  alongside: D1PreparedStatement[] = [],
): Promise<void> {
  if (rollups.length === 0 && totals.length === 0 && alongside.length === 0) return;
  const rollup = db.prepare(UPSERT);
  const total = db.prepare(UPSERT_TOTAL);
  await db.batch([
    ...rollups.map((r) => rollup.bind(r.hour, r.region, r.target, r.prompt_variant, r.method_version, ...bodyValues(r))),
    ...totals.map((t) => total.bind(t.region, t.target, t.prompt_variant, t.method_version, ...bodyValues(t))),
    ...alongside,
  ]);
}

/** Writes one region's rows of one ended day (merged from its hourly rows), replacing earlier ones. */
export async function upsertDailyRollups(db: D1Database, rows: Rollup[], alongside: D1PreparedStatement[] = []): Promise<void> {
  if (rows.length === 0 && alongside.length === 0) return;
  const daily = db.prepare(UPSERT_DAILY);
  await db.batch([
    ...rows.map((r) => daily.bind(r.hour, r.region, r.target, r.prompt_variant, r.method_version, ...bodyValues(r))),
    ...alongside,
  ]);
}

export interface RollupFilter {
  /** Period starts in [fromHour, toHour): hours, or days' starts for daily rows. */
  fromHour: number;
  toHour: number;
  /** The table read: hourly rows (the default) or daily ones. */
  resolution?: Resolution;
  /** Only this method version (every one when absent). */
  methodVersion?: number;
  regions?: string[];
  targets?: string[];
  variants?: string[];
}

/** The WHERE clause of a filter on one table's periods in [f.fromHour, f.toHour), and its parameters. */
function whereOf(t: (typeof TABLES)[Resolution], f: RollupFilter): { sql: string; params: Array<string | number> } {
  return periodWhere(t.period, { ...f, from: f.fromHour, to: f.toHour });
}

/** The rollups of whole hours (or days) starting in [fromHour, toHour), filtered like samples. */
export async function rollupsIn(db: D1Database, f: RollupFilter, limit?: number): Promise<Rollup[]> {
  const t = TABLES[f.resolution ?? 'hour'];
  const where = whereOf(t, f);
  const { results } = await db
    .prepare(
      `SELECT ${t.columns.join(', ')} FROM ${t.table} WHERE ${where.sql} ORDER BY ${t.key.join(', ')}${limit !== undefined ? ' LIMIT ?' : ''}`,
    )
    .bind(...where.params, ...(limit !== undefined ? [limit] : []))
    .all<Record<string, unknown>>();
  return results.map(fromRollupRow);
}

/**
 * At most about `limit` rows, whole periods only, from `f.fromHour` on; `next` is where the next page
 * starts (a period start, to ask as `fromHour`), null after the last. A period holding more rows than a
 * page comes whole, on a page of its own. `rowsPerPeriod`: the rows a period should hold (the pairs selected).
 */
export async function rollupPage(
  db: D1Database,
  f: RollupFilter,
  limit: number,
  rowsPerPeriod = 1,
): Promise<{ rows: Rollup[]; next: number | null }> {
  return wholePeriodPage(
    (from, to, most) => rollupsIn(db, { ...f, fromHour: from, toHour: to }, most),
    (r) => r.hour,
    f.fromHour,
    f.toHour,
    limit,
    rowsPerPeriod,
  );
}

/**
 * The parts of whole hours [fromHour, toHour) read at the least cost: daily rows for the whole UTC days
 * inside it, hourly rows for the hours at either edge (at most 23 + 23 per group).
 */
function coveringParts(f: RollupFilter): RollupFilter[] {
  const firstDay = Math.ceil(f.fromHour / DAY_MS) * DAY_MS;
  const lastDay = Math.floor(f.toHour / DAY_MS) * DAY_MS;
  if (firstDay >= lastDay) return [{ ...f, resolution: 'hour' }];
  return [
    ...(firstDay > f.fromHour ? [{ ...f, toHour: firstDay, resolution: 'hour' as const }] : []),
    { ...f, fromHour: firstDay, toHour: lastDay, resolution: 'day' },
    ...(f.toHour > lastDay ? [{ ...f, fromHour: lastDay, resolution: 'hour' as const }] : []),
  ];
}

/** The rows covering whole hours [fromHour, toHour) (coveringParts). */
export async function rollupsCovering(db: D1Database, f: RollupFilter): Promise<Rollup[]> {
  return (await Promise.all(coveringParts(f).map((part) => rollupsIn(db, part)))).flat();
}

/** One region's rows of one hour: a seek on the key's first two columns, reading only those rows. */
export async function rollupsOfRegionHour(db: D1Database, region: string, hour: number): Promise<Rollup[]> {
  const { results } = await db
    .prepare(`SELECT ${ROLLUP_COLUMNS.join(', ')} FROM hourly_rollups WHERE hour = ? AND region = ? ORDER BY ${KEY.join(', ')}`)
    .bind(hour, region)
    .all<Record<string, unknown>>();
  return results.map(fromRollupRow);
}

/** The running totals (of the current method version when given), in key order. */
export async function rollupTotals(db: D1Database, filter: { regions?: string[]; methodVersion?: number } = {}): Promise<Rollup[]> {
  const clauses = ['1 = 1'];
  const params: Array<string | number> = [];
  if (filter.regions) {
    const l = inList('region', filter.regions, ONLY_LIST_VALUES);
    clauses.push(l.sql);
    params.push(...l.params);
  }
  if (filter.methodVersion !== undefined) {
    clauses.push('method_version = ?');
    params.push(filter.methodVersion);
  }
  const { results } = await db
    .prepare(`SELECT ${TOTAL_SELECT} FROM rollup_totals WHERE ${clauses.join(' AND ')} ORDER BY ${TOTAL_KEY.join(', ')}`)
    .bind(...params)
    .all<Record<string, unknown>>();
  return results.map(fromRollupRow);
}

/** The UTC days a region has daily rows of (once, to give an upgraded database the span rollups of its past days). */
export async function daysWithDailyRollups(db: D1Database, region: string): Promise<number[]> {
  const { results } = await db
    .prepare('SELECT DISTINCT day FROM daily_rollups WHERE region = ? ORDER BY day')
    .bind(region)
    .all<{ day: number }>();
  return results.map((r) => Number(r.day));
}

/** The UTC days a region has hourly rows of (once, to give an upgraded database its daily rows). */
export async function daysWithHourlyRollups(db: D1Database, region: string): Promise<number[]> {
  const { results } = await db
    .prepare(`SELECT DISTINCT hour - hour % ${DAY_MS} AS day FROM hourly_rollups WHERE region = ? ORDER BY day`)
    .bind(region)
    .all<{ day: number }>();
  return results.map((r) => Number(r.day));
}

/**
 * Retention of what is derived from the samples (archived in R2 themselves), by time: paired hours, cache
 * hours, status history, maintenance windows and time profiles before `beforeHour`. The hourly and daily
 * rollups go only once their archive is confirmed (archive-run.ts deleteArchivedRollups). Returns rows deleted.
 */
export async function deleteDerivedBefore(db: D1Database, beforeHour: number): Promise<number> {
  const results = await db.batch([
    ...deletePairedHoursBefore(db, beforeHour),
    deleteCacheHoursBefore(db, beforeHour),
    ...deleteHistoryBefore(db, beforeHour),
    deleteMaintenanceBefore(db, beforeHour),
    deleteProfilesBefore(db, beforeHour),
  ]);
  return results.reduce((n, r) => n + (r.meta.changes ?? 0), 0);
}

/** Where retention last cut samples: every hour starting at or after it still has all its samples. */
export async function samplesRetainedFrom(db: D1Database): Promise<number> {
  return Number((await db.prepare("SELECT before_ms FROM retention_marks WHERE kind = 'samples'").first<number>('before_ms')) ?? 0);
}

export function markSamplesRetention(db: D1Database, beforeMs: number): D1PreparedStatement {
  return db
    .prepare(
      "INSERT INTO retention_marks (kind, before_ms) VALUES ('samples', ?) ON CONFLICT (kind) DO UPDATE SET before_ms = max(before_ms, excluded.before_ms)",
    )
    .bind(beforeMs);
}

/** One region's hourly rows of the given hours at one method version, in one query: a seek per hour on (hour, region). */
export async function regionRollupsAtHours(db: D1Database, region: string, hours: number[], methodVersion: number): Promise<Rollup[]> {
  if (hours.length === 0) return [];
  const h = inList('hour', hours, ONLY_LIST_VALUES);
  const { results } = await db
    .prepare(
      `SELECT ${ROLLUP_COLUMNS.join(', ')} FROM hourly_rollups WHERE ${h.sql} AND region = ? AND method_version = ? ORDER BY ${KEY.join(', ')}`,
    )
    .bind(...h.params, region, methodVersion)
    .all<Record<string, unknown>>();
  return results.map(fromRollupRow);
}
