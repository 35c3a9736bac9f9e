/** The paired comparisons' hourly blocks in D1 (migrations/0011_paired_hours.sql). */
import { encodeBlocks, type PairedHour } from '../../../shared/rollup/paired-hours.ts';
import { inList } from './in-list.ts';

/** The table's columns and key as the code writes them (tests/workers/schema.test.ts holds the migration to them). */
export const PAIRED_TABLE_SHAPE = {
  columns: ['hour', 'region', 'prompt_variant', 'method_version', 'blocks'],
  key: ['hour', 'region', 'prompt_variant', 'method_version'],
} as const;

const UPSERT = `INSERT INTO paired_hours (hour, region, prompt_variant, method_version, blocks) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (hour, region, prompt_variant, method_version) DO UPDATE SET blocks = excluded.blocks`;

/** The WHERE clauses of a filter over the blocks. */
function whereOf(f: PairedFilter): { clauses: string[]; params: Array<string | number> } {
  const clauses = ['hour >= ?', 'hour < ?', 'method_version = ?'];
  const params: Array<string | number> = [f.fromHour, f.toHour, f.methodVersion];
  for (const [column, values] of [
    ['region', f.regions],
    ['prompt_variant', f.variants],
  ] as const) {
    if (!values) continue;
    const list = inList(column, values);
    clauses.push(list.sql);
    params.push(...list.params);
  }
  return { clauses, params };
}

/** The statements writing one region's hour of blocks (run in the rollup's batch). */
export function upsertPairedHourStatements(db: D1Database, rows: readonly PairedHour[]): D1PreparedStatement[] {
  const upsert = db.prepare(UPSERT);
  return rows.map((r) => upsert.bind(r.hour, r.region, r.prompt_variant, r.method_version, encodeBlocks(r.blocks)));
}

export interface PairedFilter {
  fromHour: number;
  toHour: number;
  methodVersion: number;
  regions?: string[];
  variants?: string[];
}

/** The rows of [fromHour, toHour) for the regions and variants asked, hour by hour, their blocks as stored (JSON). */
export async function pairedRowsIn(
  db: D1Database,
  f: PairedFilter,
): Promise<Array<{ hour: number; region: string; prompt_variant: string; blocks: string }>> {
  const { clauses, params } = whereOf(f);
  const { results } = await db
    .prepare(`SELECT hour, region, prompt_variant, method_version, blocks FROM paired_hours WHERE ${clauses.join(' AND ')} ORDER BY hour`)
    .bind(...params)
    .all<{ hour: number; region: string; prompt_variant: string; method_version: number; blocks: string }>();
  return results.map((r) => ({ hour: Number(r.hour), region: r.region, prompt_variant: r.prompt_variant, blocks: r.blocks }));
}

/** Retention, with the hourly rollups: rows of hours before `beforeHour`. */
export function deletePairedHoursBefore(db: D1Database, beforeHour: number): D1PreparedStatement {
  return db.prepare('DELETE FROM paired_hours WHERE hour < ?').bind(beforeHour);
}

/**
 * A page of rows as stored (the blocks' JSON untouched, for a reader that compares on its own: the site
 * build), whole hours from `fromHour` on, at most `limit` rows; `next` is the first hour of the next page.
 */
export async function pairedHoursPage(
  db: D1Database,
  f: PairedFilter,
  limit: number,
): Promise<{ rows: Array<{ hour: number; region: string; prompt_variant: string; blocks: string }>; next: number | null }> {
  const { clauses, params } = whereOf(f);
  const { results } = await db
    .prepare(
      `SELECT hour, region, prompt_variant, blocks FROM paired_hours WHERE ${clauses.join(' AND ')} ORDER BY hour, region, prompt_variant LIMIT ?`,
    )
    .bind(...params, limit + 1)
    .all<{ hour: number; region: string; prompt_variant: string; blocks: string }>();
  if (results.length <= limit) return { rows: results, next: null };
  // The page ends with a whole hour: the hour the next page starts with is left to it (a lone hour over the limit stays whole).
  const last = Number(results[limit].hour);
  const whole = results.filter((r) => Number(r.hour) < last);
  return whole.length > 0 ? { rows: whole, next: last } : { rows: results, next: null };
}
