/** The paired comparisons' hourly blocks in D1 (migrations/0011_paired_hours.sql), and their packed days (0020_paired_days.sql). */
import { encodeBlocks, type PairedHour, type StoredBlocks } from '../../../shared/rollup/paired-hours.ts';
import { packPairedDay, type PackedPairedDay } from '../../../shared/rollup/paired-days.ts';
import type { ParsedPairedRow } from '../../../shared/rollup/paired-families.ts';
import { hexToBytes } from '../../../shared/bytes.ts';
import { DAY_MS } from '../../../shared/time.ts';
import { periodWhere, wholePeriodPage } from './periods.ts';

/** The table's columns and key as the code writes them (tests/workers/schema.test.ts holds the migration to them). */
export const PAIRED_TABLE_SHAPE = {
  columns: ['hour', 'region', 'prompt_variant', 'method_version', 'blocks'],
  key: ['hour', 'region', 'prompt_variant', 'method_version'],
} as const;

export const PAIRED_DAYS_SHAPE = {
  columns: ['day', 'region', 'prompt_variant', 'method_version', 'packed'],
  key: ['region', 'prompt_variant', 'method_version', 'day'],
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

/** Retention, with the hourly rollups: rows of hours before `beforeHour`, and the packed days that end by then. */
export function deletePairedHoursBefore(db: D1Database, beforeHour: number): D1PreparedStatement[] {
  return [
    db.prepare('DELETE FROM paired_hours WHERE hour < ?').bind(beforeHour),
    db.prepare('DELETE FROM paired_days WHERE day <= ?').bind(beforeHour - DAY_MS),
  ];
}

/**
 * The statements packing one region's ended day of these variants at one method version (what the readers ask for)
 * from its hourly rows, in one read of them (a seek per variant on the families' index: only those rows): run when
 * the day's daily rollups are written, and again whenever an hour of it is.
 */
export async function packPairedDayStatements(
  db: D1Database,
  region: string,
  day: number,
  variants: readonly string[],
  methodVersion: number,
): Promise<D1PreparedStatement[]> {
  if (variants.length === 0) return [];
  const where = periodWhere('hour', { from: day, to: day + DAY_MS, methodVersion, regions: [region], variants: [...variants] });
  const { results } = await db
    .prepare(`SELECT hour, prompt_variant, method_version, blocks FROM paired_hours WHERE ${where.sql} ORDER BY hour`)
    .bind(...where.params)
    .all<{ hour: number; prompt_variant: string; method_version: number; blocks: string }>();
  const groups = new Map<string, { variant: string; method: number; rows: ParsedPairedRow[] }>();
  for (const r of results) {
    const id = `${r.prompt_variant}|${r.method_version}`;
    let g = groups.get(id);
    if (!g) groups.set(id, (g = { variant: r.prompt_variant, method: Number(r.method_version), rows: [] }));
    g.rows.push({ hour: Number(r.hour), blocks: JSON.parse(r.blocks) as StoredBlocks });
  }
  const upsert = db.prepare(
    `INSERT INTO paired_days (day, region, prompt_variant, method_version, packed) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (region, prompt_variant, method_version, day) DO UPDATE SET packed = excluded.packed`,
  );
  const out: D1PreparedStatement[] = [];
  for (const g of groups.values()) {
    const packed = packPairedDay(day, g.rows);
    if (packed) out.push(upsert.bind(day, region, g.variant, g.method, packed));
  }
  return out;
}

/** The UTC days a region has paired hours of (once, to give an upgraded database its packed days). */
export async function daysWithPairedHours(db: D1Database, region: string): Promise<number[]> {
  const { results } = await db
    .prepare(`SELECT DISTINCT hour - hour % ${DAY_MS} AS day FROM paired_hours WHERE region = ? ORDER BY day`)
    .bind(region)
    .all<{ day: number }>();
  return results.map((r) => Number(r.day));
}

/** One family's stored hours of [fromHour, toHour): its whole days packed where written, and hourly rows for the rest. */
export interface FamilyStored {
  days: PackedPairedDay[];
  rows: ParsedPairedRow[];
}

/** Most hourly reads one family's read makes for its hours not packed (more gaps are read as one span, packed days' rows left out). */
const MOST_HOUR_READS = 3;

/**
 * One family's (region × variant) hours of [fromHour, toHour) of one method version, read at the least cost: the
 * packed days (one row a day) of the whole UTC days inside it, then the hourly rows of what they leave: the edges,
 * today, and a day whose packing has not run yet (just ended, or a rollup that failed).
 */
export async function familyStoredIn(
  db: D1Database,
  f: { region: string; prompt_variant: string; methodVersion: number; fromHour: number; toHour: number },
): Promise<FamilyStored> {
  const firstDay = Math.ceil(f.fromHour / DAY_MS) * DAY_MS;
  const lastDay = Math.floor(f.toHour / DAY_MS) * DAY_MS;
  const days: PackedPairedDay[] = [];
  if (firstDay < lastDay) {
    const { results } = await db
      .prepare(
        'SELECT day, hex(packed) AS packed FROM paired_days WHERE region = ? AND prompt_variant = ? AND method_version = ? AND day >= ? AND day < ? ORDER BY day',
      )
      .bind(f.region, f.prompt_variant, f.methodVersion, firstDay, lastDay)
      .all<{ day: number; packed: string }>();
    for (const r of results) days.push({ day: Number(r.day), packed: hexToBytes(r.packed) });
  }
  // The spans the packed days leave, in order.
  const gaps: Array<[number, number]> = [];
  let at = f.fromHour;
  for (const d of days) {
    if (d.day > at) gaps.push([at, d.day]);
    at = d.day + DAY_MS;
  }
  if (f.toHour > at) gaps.push([at, f.toHour]);
  const reads = gaps.length <= MOST_HOUR_READS ? gaps : gaps.length > 0 ? [[gaps[0][0], gaps[gaps.length - 1][1]] as [number, number]] : [];
  const packedDays = new Set(days.map((d) => d.day));
  const rows: ParsedPairedRow[] = [];
  for (const [from, to] of reads) {
    const got = await pairedRowsIn(db, {
      fromHour: from,
      toHour: to,
      methodVersion: f.methodVersion,
      regions: [f.region],
      variants: [f.prompt_variant],
    });
    for (const r of got)
      if (!packedDays.has(r.hour - (r.hour % DAY_MS))) rows.push({ hour: r.hour, blocks: JSON.parse(r.blocks) as StoredBlocks });
  }
  return { days, rows };
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
