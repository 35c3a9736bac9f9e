/** The paired comparisons' hourly blocks in D1 (migrations/0011_paired_hours.sql). */
import { encodeBlocks, type PairedHour } from '../../../shared/rollup/paired-hours.ts';
import { periodWhere, wholePeriodPage } from './periods.ts';

/** The table's columns and key as the code writes them (tests/workers/schema.test.ts holds the migration to them). */
export const PAIRED_TABLE_SHAPE = {
  columns: ['hour', 'region', 'prompt_variant', 'method_version', 'blocks'],
  key: ['hour', 'region', 'prompt_variant', 'method_version'],
} as const;

const UPSERT = `INSERT INTO paired_hours (hour, region, prompt_variant, method_version, blocks) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (hour, region, prompt_variant, method_version) DO UPDATE SET blocks = excluded.blocks`;

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

/** A stored row: its hour, region and variant, and every pair's block as the JSON text D1 holds. */
export interface StoredPairedRow {
  hour: number;
  region: string;
  prompt_variant: string;
  blocks: string;
}

/** The rows of [fromHour, toHour) for the regions and variants asked, hour by hour (at most `limit`), their blocks as stored. */
export async function pairedRowsIn(db: D1Database, f: PairedFilter, limit?: number): Promise<StoredPairedRow[]> {
  const where = periodWhere('hour', { ...f, from: f.fromHour, to: f.toHour });
  const { results } = await db
    .prepare(
      `SELECT hour, region, prompt_variant, blocks FROM paired_hours WHERE ${where.sql} ORDER BY hour, region, prompt_variant${limit !== undefined ? ' LIMIT ?' : ''}`,
    )
    .bind(...where.params, ...(limit !== undefined ? [limit] : []))
    .all<StoredPairedRow>();
  return results.map((r) => ({ ...r, hour: Number(r.hour) }));
}

/** Retention, with the hourly rollups: rows of hours before `beforeHour`. */
export function deletePairedHoursBefore(db: D1Database, beforeHour: number): D1PreparedStatement {
  return db.prepare('DELETE FROM paired_hours WHERE hour < ?').bind(beforeHour);
}

/**
 * A page of rows as stored (the blocks' JSON untouched, for a reader that compares on its own: the site
 * build), whole hours from `fromHour` on, at most about `limit` rows; `next` is the first hour of the next page.
 */
export function pairedHoursPage(db: D1Database, f: PairedFilter, limit: number): Promise<{ rows: StoredPairedRow[]; next: number | null }> {
  return wholePeriodPage(
    (from, to, most) => pairedRowsIn(db, { ...f, fromHour: from, toHour: to }, most),
    (r) => r.hour,
    f.fromHour,
    f.toHour,
    limit,
  );
}
