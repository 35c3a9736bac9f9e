/** The prompt-cache probes' hourly blocks in D1 (migrations/0013_prompt_cache.sql). */
import type { CacheHour } from '../../../shared/rollup/cache-hours.ts';
import { periodWhere, type PeriodFilter } from './periods.ts';

/** The table's columns and key as the code writes them (tests/workers/schema.test.ts holds the migration to them). */
export const CACHE_TABLE_SHAPE = {
  columns: [
    'hour',
    'region',
    'target',
    'prompt_variant',
    'method_version',
    'n',
    'wins',
    'd_ttft',
    'd_server',
    'reported',
    'hits',
    'cached_sum',
    'n_server',
    'wins_server',
  ],
  key: ['hour', 'region', 'target', 'prompt_variant', 'method_version'],
} as const;

const COLUMNS = CACHE_TABLE_SHAPE.columns;
const UPSERT = `INSERT INTO cache_hours (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})
  ON CONFLICT (${CACHE_TABLE_SHAPE.key.join(', ')}) DO UPDATE SET ${COLUMNS.filter(
    (c) => !(CACHE_TABLE_SHAPE.key as readonly string[]).includes(c),
  )
    .map((c) => `${c} = excluded.${c}`)
    .join(', ')}`;

/** The statements writing one region's hour of blocks (run in the rollup's batch). */
export function upsertCacheHourStatements(db: D1Database, rows: readonly CacheHour[]): D1PreparedStatement[] {
  const upsert = db.prepare(UPSERT);
  return rows.map((r) =>
    upsert.bind(
      r.hour,
      r.region,
      r.target,
      r.prompt_variant,
      r.method_version,
      r.block.n[0],
      r.block.aWins[0],
      r.block.d[0],
      r.block.d[1],
      r.reported,
      r.hits,
      r.cached_sum,
      r.block.n[1],
      r.block.aWins[1],
    ),
  );
}

/** Retention, with the hourly rollups: rows of hours before `beforeHour`. */
export function deleteCacheHoursBefore(db: D1Database, beforeHour: number): D1PreparedStatement {
  return db.prepare('DELETE FROM cache_hours WHERE hour < ?').bind(beforeHour);
}

/** A stored row, as read. */
export interface StoredCacheRow {
  hour: number;
  region: string;
  target: string;
  prompt_variant: string;
  n: number;
  wins: number;
  d_ttft: number | null;
  d_server: number | null;
  reported: number;
  hits: number;
  cached_sum: number;
  /** Server time's own paired ticks and second-pass wins (null on rows written before migrations/0016). */
  n_server: number | null;
  wins_server: number | null;
}

/** The rows of hours in [from, to) that the filter selects, in hour order, at most `limit`. */
export async function cacheRowsIn(db: D1Database, f: PeriodFilter, limit: number): Promise<StoredCacheRow[]> {
  const where = periodWhere('hour', f);
  const { results } = await db
    .prepare(
      `SELECT hour, region, target, prompt_variant, n, wins, d_ttft, d_server, reported, hits, cached_sum, n_server, wins_server FROM cache_hours WHERE ${where.sql} ORDER BY hour LIMIT ?`,
    )
    .bind(...where.params, limit)
    .all<StoredCacheRow>();
  return results.map((r) => ({ ...r, hour: Number(r.hour) }));
}
