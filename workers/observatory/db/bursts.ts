/** The concurrency probes' samples in D1: written like samples, into a table of their own (migrations/0007). */
import { inList } from './in-list.ts';
import { SAMPLE_COLUMNS, toRowValues, type StoredSample } from './sample-row.ts';

export interface StoredBurstSample extends StoredSample {
  burst_id: string;
  burst_level: number;
  burst_stream: number;
  start_offset_ms: number;
}

/** What a concurrency stream's row adds to a sample's columns (tests/workers/schema.test.ts holds migration 0007 to both). */
export const BURST_ONLY_COLUMNS = ['burst_id', 'burst_level', 'burst_stream', 'start_offset_ms'] as const;
const BURST_COLUMNS = [...SAMPLE_COLUMNS, ...BURST_ONLY_COLUMNS];
const INSERT = `INSERT INTO burst_samples (${BURST_COLUMNS.join(', ')}) VALUES (${BURST_COLUMNS.map(() => '?').join(', ')})
  ON CONFLICT (tick_id, region, target, burst_level, burst_stream) DO NOTHING`;

/** One batch; a stream already stored (a retried run) is left as it is. Returns rows inserted. */
export async function insertBurstSamples(db: D1Database, samples: StoredBurstSample[]): Promise<number> {
  if (samples.length === 0) return 0;
  const statement = db.prepare(INSERT);
  const results = await db.batch(
    samples.map((s) => statement.bind(...toRowValues(s), s.burst_id, s.burst_level, s.burst_stream, s.start_offset_ms)),
  );
  return results.reduce((n, r) => n + (r.meta.changes ?? 0), 0);
}

/** The columns a burst report and its chart read. */
export const BURST_READ_COLUMNS = [
  'tick_id',
  'region',
  'target',
  'prompt_variant',
  'colo',
  'burst_id',
  'burst_level',
  'burst_stream',
  'start_offset_ms',
  'status',
  'error',
  'ttft_ms',
  'server_ms',
  'network_ms',
  'split_source',
  'tpot_ms',
  'decode_tps',
] as const;
export type BurstRow = Record<(typeof BURST_READ_COLUMNS)[number], string | number | null>;

/** Targets a region already stored a run of. */
export async function burstTargetsStored(db: D1Database, tickId: number, region: string): Promise<Set<string>> {
  const { results } = await db
    .prepare('SELECT DISTINCT target FROM burst_samples WHERE tick_id = ? AND region = ?')
    .bind(tickId, region)
    .all<{ target: string }>();
  return new Set(results.map((r) => r.target));
}

/** The newest `n` runs' times within the window (walks the index backwards, so it reads about those runs' rows). */
export async function latestBurstRuns(db: D1Database, n: number, f: { fromTick: number; toTick: number }): Promise<number[]> {
  const { results } = await db
    .prepare('SELECT DISTINCT tick_id FROM burst_samples WHERE tick_id >= ? AND tick_id < ? ORDER BY tick_id DESC LIMIT ?')
    .bind(f.fromTick, f.toTick, n)
    .all<{ tick_id: number }>();
  return results.map((r) => r.tick_id);
}

export async function burstSamplesIn(
  db: D1Database,
  f: { fromTick: number; toTick: number; runs?: number[]; regions?: string[]; targets?: string[] },
): Promise<BurstRow[]> {
  const clauses = ['tick_id >= ?', 'tick_id < ?'];
  const params: Array<string | number> = [f.fromTick, f.toTick];
  if (f.runs) {
    if (f.runs.length === 0) return [];
    const l = inList('tick_id', f.runs);
    clauses.push(l.sql);
    params.push(...l.params);
  }
  for (const [column, values] of [
    ['region', f.regions],
    ['target', f.targets],
  ] as const) {
    if (!values || values.length === 0) continue;
    const l = inList(column, values);
    clauses.push(l.sql);
    params.push(...l.params);
  }
  const { results } = await db
    .prepare(
      `SELECT ${BURST_READ_COLUMNS.join(', ')} FROM burst_samples WHERE ${clauses.join(' AND ')} ORDER BY tick_id, region, target, burst_level, burst_stream`,
    )
    .bind(...params)
    .all<BurstRow>();
  return results;
}
