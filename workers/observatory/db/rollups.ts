/** Every SQL statement for the hourly rollups, each a named function with bound parameters. */
import {
  HOUR_MS, ROLLUP_METRICS, SPLIT_METRICS, TOTAL_HOUR, decodeSplit, encodeErrors, encodeSplit, type Rollup, type RollupSample,
} from '../../../shared/rollup.ts';
import { decodeHistogram, encodeHistogram, type ExpHistogram } from '../../../shared/stats/exp-histogram.ts';
import type { ErrorClass } from '../../../shared/ids.ts';

const SAMPLE_COLUMNS_READ = ['tick_id', 'region', 'target', 'prompt_variant', 'method_version', 'error', 'split_source', ...ROLLUP_METRICS, ...SPLIT_METRICS];
const ROLLUP_COLUMNS = ['hour', 'region', 'target', 'prompt_variant', 'method_version', 'probes', 'successes', 'errors', ...ROLLUP_METRICS, 'split'];
const KEY = ['hour', 'region', 'target', 'prompt_variant', 'method_version'];

const TOTAL_COLUMNS = ROLLUP_COLUMNS.filter((c) => c !== 'hour');
const TOTAL_KEY = KEY.filter((c) => c !== 'hour');
const UPSERT_TOTAL = `INSERT INTO rollup_totals (${TOTAL_COLUMNS.join(', ')}) VALUES (${TOTAL_COLUMNS.map(() => '?').join(', ')})
  ON CONFLICT (${TOTAL_KEY.join(', ')}) DO UPDATE SET ${TOTAL_COLUMNS.filter((c) => !TOTAL_KEY.includes(c)).map((c) => `${c} = excluded.${c}`).join(', ')}`;

const UPSERT = `INSERT INTO hourly_rollups (${ROLLUP_COLUMNS.join(', ')}) VALUES (${ROLLUP_COLUMNS.map(() => '?').join(', ')})
  ON CONFLICT (${KEY.join(', ')}) DO UPDATE SET ${ROLLUP_COLUMNS.filter((c) => !KEY.includes(c)).map((c) => `${c} = excluded.${c}`).join(', ')}`;

/** The samples of one region's hour, as a rollup reads them (a few columns of tens of rows). */
export async function samplesOfHour(db: D1Database, region: string, hour: number): Promise<RollupSample[]> {
  const { results } = await db.prepare(`SELECT ${SAMPLE_COLUMNS_READ.join(', ')} FROM samples WHERE tick_id >= ? AND tick_id < ? AND region = ?`)
    .bind(hour, hour + HOUR_MS, region).all<RollupSample>();
  return results;
}

const bodyValues = (r: Rollup) => [r.probes, r.successes, encodeErrors(r.errors), ...ROLLUP_METRICS.map((m) => encodeHistogram(r.histograms[m])), encodeSplit(r.split)];

/**
 * Writes rollups, replacing any earlier rows of the same keys (writing the same rollup twice changes
 * nothing), and the running totals they change, in one transaction: the two never disagree.
 */
export async function upsertRollups(db: D1Database, rollups: Rollup[], totals: Rollup[] = []): Promise<void> {
  if (rollups.length === 0 && totals.length === 0) return;
  const rollup = db.prepare(UPSERT);
  const total = db.prepare(UPSERT_TOTAL);
  await db.batch([
    ...rollups.map((r) => rollup.bind(r.hour, r.region, r.target, r.prompt_variant, r.method_version, ...bodyValues(r))),
    ...totals.map((t) => total.bind(t.region, t.target, t.prompt_variant, t.method_version, ...bodyValues(t))),
  ]);
}

export interface RollupFilter {
  fromHour: number;
  toHour: number;
  /** Only this method version (every one when absent). */
  methodVersion?: number;
  regions?: string[];
  targets?: string[];
  variants?: string[];
}

/** D1 hands BLOBs back as an ArrayBuffer or an array of byte values, depending on the path. */
function bytes(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (Array.isArray(value)) return Uint8Array.from(value as number[]);
  throw new TypeError(`expected a BLOB, got ${typeof value}`);
}

/** The rollups of whole hours in [fromHour, toHour), filtered like samples. */
export async function rollupsIn(db: D1Database, f: RollupFilter): Promise<Rollup[]> {
  const clauses = ['hour >= ?', 'hour < ?'];
  const params: Array<string | number> = [f.fromHour, f.toHour];
  if (f.methodVersion !== undefined) {
    clauses.push('method_version = ?');
    params.push(f.methodVersion);
  }
  for (const [column, values] of [['region', f.regions], ['target', f.targets], ['prompt_variant', f.variants]] as const) {
    if (!values || values.length === 0) continue;
    clauses.push(`${column} IN (${values.map(() => '?').join(', ')})`);
    params.push(...values);
  }
  const { results } = await db.prepare(`SELECT ${ROLLUP_COLUMNS.join(', ')} FROM hourly_rollups WHERE ${clauses.join(' AND ')} ORDER BY ${KEY.join(', ')}`)
    .bind(...params).all<Record<string, unknown>>();
  return results.map(fromRollupRow);
}

function fromRollupRow(row: Record<string, unknown>): Rollup {
  return {
    hour: Number(row.hour ?? TOTAL_HOUR), region: String(row.region), target: String(row.target), prompt_variant: String(row.prompt_variant),
    method_version: Number(row.method_version), probes: Number(row.probes), successes: Number(row.successes),
    errors: JSON.parse(String(row.errors)) as Partial<Record<ErrorClass, number>>,
    histograms: Object.fromEntries(ROLLUP_METRICS.map((m) => [m, decodeHistogram(bytes(row[m]))])) as Record<(typeof ROLLUP_METRICS)[number], ExpHistogram>,
    split: decodeSplit(bytes(row.split)),
  };
}

/** One region's rows of one hour: a seek on the key's first two columns, reading only those rows. */
export async function rollupsOfRegionHour(db: D1Database, region: string, hour: number): Promise<Rollup[]> {
  const { results } = await db.prepare(`SELECT ${ROLLUP_COLUMNS.join(', ')} FROM hourly_rollups WHERE hour = ? AND region = ? ORDER BY ${KEY.join(', ')}`)
    .bind(hour, region).all<Record<string, unknown>>();
  return results.map(fromRollupRow);
}

/** The running totals (of the current method version when given), in key order. */
export async function rollupTotals(db: D1Database, filter: { regions?: string[]; methodVersion?: number } = {}): Promise<Rollup[]> {
  const clauses = ['1 = 1'];
  const params: Array<string | number> = [];
  if (filter.regions) {
    clauses.push(`region IN (${filter.regions.map(() => '?').join(', ')})`);
    params.push(...filter.regions);
  }
  if (filter.methodVersion !== undefined) {
    clauses.push('method_version = ?');
    params.push(filter.methodVersion);
  }
  const { results } = await db.prepare(`SELECT ${TOTAL_COLUMNS.join(', ')} FROM rollup_totals WHERE ${clauses.join(' AND ')} ORDER BY ${TOTAL_KEY.join(', ')}`)
    .bind(...params).all<Record<string, unknown>>();
  return results.map(fromRollupRow);
}

/** Retention: deletes rollups of hours before `beforeHour`. Returns rows deleted. */
export async function deleteRollupsBefore(db: D1Database, beforeHour: number): Promise<number> {
  return (await db.prepare('DELETE FROM hourly_rollups WHERE hour < ?').bind(beforeHour).run()).meta.changes ?? 0;
}
