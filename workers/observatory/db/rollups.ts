/** Every SQL statement for the hourly rollups, each a named function with bound parameters. */
import {
  HOUR_MS, ROLLUP_METRICS, SPLIT_METRICS, decodeSplit, encodeErrors, encodeSplit, type Rollup, type RollupSample,
} from '../../../shared/rollup.ts';
import { decodeHistogram, encodeHistogram, type ExpHistogram } from '../../../shared/stats/exp-histogram.ts';
import type { ErrorClass } from '../../../shared/ids.ts';

const SAMPLE_COLUMNS_READ = ['tick_id', 'region', 'target', 'prompt_variant', 'method_version', 'error', 'split_source', ...ROLLUP_METRICS, ...SPLIT_METRICS];
const ROLLUP_COLUMNS = ['hour', 'region', 'target', 'prompt_variant', 'method_version', 'probes', 'successes', 'errors', ...ROLLUP_METRICS, 'split'];
const KEY = ['hour', 'region', 'target', 'prompt_variant', 'method_version'];

const UPSERT = `INSERT INTO hourly_rollups (${ROLLUP_COLUMNS.join(', ')}) VALUES (${ROLLUP_COLUMNS.map(() => '?').join(', ')})
  ON CONFLICT (${KEY.join(', ')}) DO UPDATE SET ${ROLLUP_COLUMNS.filter((c) => !KEY.includes(c)).map((c) => `${c} = excluded.${c}`).join(', ')}`;

/** The samples of one region's hour, as a rollup reads them (a few columns of tens of rows). */
export async function samplesOfHour(db: D1Database, region: string, hour: number): Promise<RollupSample[]> {
  const { results } = await db.prepare(`SELECT ${SAMPLE_COLUMNS_READ.join(', ')} FROM samples WHERE tick_id >= ? AND tick_id < ? AND region = ?`)
    .bind(hour, hour + HOUR_MS, region).all<RollupSample>();
  return results;
}

/** Writes rollups, replacing any earlier rows of the same keys: writing the same rollup twice changes nothing. */
export async function upsertRollups(db: D1Database, rollups: Rollup[]): Promise<void> {
  if (rollups.length === 0) return;
  const statement = db.prepare(UPSERT);
  await db.batch(rollups.map((r) => statement.bind(
    r.hour, r.region, r.target, r.prompt_variant, r.method_version, r.probes, r.successes, encodeErrors(r.errors),
    ...ROLLUP_METRICS.map((m) => encodeHistogram(r.histograms[m])), encodeSplit(r.split),
  )));
}

export interface RollupFilter {
  fromHour: number;
  toHour: number;
  methodVersion: number;
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
  const clauses = ['hour >= ?', 'hour < ?', 'method_version = ?'];
  const params: Array<string | number> = [f.fromHour, f.toHour, f.methodVersion];
  for (const [column, values] of [['region', f.regions], ['target', f.targets], ['prompt_variant', f.variants]] as const) {
    if (!values || values.length === 0) continue;
    clauses.push(`${column} IN (${values.map(() => '?').join(', ')})`);
    params.push(...values);
  }
  const { results } = await db.prepare(`SELECT ${ROLLUP_COLUMNS.join(', ')} FROM hourly_rollups WHERE ${clauses.join(' AND ')} ORDER BY ${KEY.join(', ')}`)
    .bind(...params).all<Record<string, unknown>>();
  return results.map((row) => ({
    hour: Number(row.hour), region: String(row.region), target: String(row.target), prompt_variant: String(row.prompt_variant),
    method_version: Number(row.method_version), probes: Number(row.probes), successes: Number(row.successes),
    errors: JSON.parse(String(row.errors)) as Partial<Record<ErrorClass, number>>,
    histograms: Object.fromEntries(ROLLUP_METRICS.map((m) => [m, decodeHistogram(bytes(row[m]))])) as Record<(typeof ROLLUP_METRICS)[number], ExpHistogram>,
    split: decodeSplit(bytes(row.split)),
  }));
}

/** Retention: deletes rollups of hours before `beforeHour`. Returns rows deleted. */
export async function deleteRollupsBefore(db: D1Database, beforeHour: number): Promise<number> {
  return (await db.prepare('DELETE FROM hourly_rollups WHERE hour < ?').bind(beforeHour).run()).meta.changes ?? 0;
}
