/** Every SQL statement against D1, each a named function with bound parameters. */
import { inList, ONLY_LIST_VALUES } from './in-list.ts';
import { SAMPLE_COLUMNS, fromRow, toRowValues, type StoredSample } from './sample-row.ts';
import { markSamplesRetention } from './rollups.ts';

const INSERT_SAMPLE = `INSERT INTO samples (${SAMPLE_COLUMNS.join(', ')}) VALUES (${SAMPLE_COLUMNS.map(() => '?').join(', ')})
  ON CONFLICT (tick_id, region, target, prompt_variant) DO NOTHING`;

/** Writes samples in one batch; a sample already stored for its tick key is left as it is. Returns rows inserted. */
export async function insertSamples(db: D1Database, samples: StoredSample[]): Promise<number> {
  if (samples.length === 0) return 0;
  const statement = db.prepare(INSERT_SAMPLE);
  const results = await db.batch(samples.map((s) => statement.bind(...toRowValues(s))));
  return results.reduce((n, r) => n + (r.meta.changes ?? 0), 0);
}

/** Keys (`tick|target|variant`) of the samples a region already stored for these ticks. */
export async function storedKeys(db: D1Database, region: string, tickIds: number[]): Promise<Set<string>> {
  if (tickIds.length === 0) return new Set();
  const ticks = inList('tick_id', tickIds, ONLY_LIST_VALUES);
  const { results } = await db
    .prepare(`SELECT tick_id, target, prompt_variant FROM samples WHERE ${ticks.sql} AND region = ?`)
    .bind(...ticks.params, region)
    .all<{ tick_id: number; target: string; prompt_variant: string }>();
  return new Set(results.map((r) => `${r.tick_id}|${r.target}|${r.prompt_variant}`));
}

export interface SampleFilter {
  fromTick: number;
  toTick: number;
  regions?: string[];
  targets?: string[];
  variants?: string[];
  /** Only samples whose split came from these sources (`none`: samples without a split). */
  splitSources?: string[];
  /** 'ok' (no error), 'error' (any error), or one error class. */
  error?: string;
  includeBackfill?: boolean;
  /** Only samples measured under this version of the definitions (they are never mixed silently). */
  methodVersion?: number;
}

function where(f: SampleFilter): { sql: string; params: Array<string | number> } {
  const clauses = ['tick_id >= ?', 'tick_id < ?'];
  const params: Array<string | number> = [f.fromTick, f.toTick];
  const list = (column: string, values?: string[]) => {
    if (!values || values.length === 0) return;
    const l = inList(column, values);
    clauses.push(l.sql);
    params.push(...l.params);
  };
  list('region', f.regions);
  list('target', f.targets);
  list('prompt_variant', f.variants);
  if (f.splitSources && f.splitSources.length > 0) {
    const named = f.splitSources.filter((v) => v !== 'none');
    const sources = inList('split_source', named);
    const alternatives = named.length > 0 ? [sources.sql] : [];
    if (named.length < f.splitSources.length) alternatives.push('split_source IS NULL');
    clauses.push(`(${alternatives.join(' OR ')})`);
    if (named.length > 0) params.push(...sources.params);
  }
  if (f.error === 'ok') clauses.push('error IS NULL');
  else if (f.error === 'error') clauses.push('error IS NOT NULL');
  else if (f.error) {
    clauses.push('error = ?');
    params.push(f.error);
  }
  if (f.includeBackfill === false) clauses.push('backfill = 0');
  if (f.methodVersion !== undefined) {
    clauses.push('method_version = ?');
    params.push(f.methodVersion);
  }
  return { sql: clauses.join(' AND '), params };
}

/** A page of samples, newest first, continuing below `beforeId`. */
export async function listSamples(db: D1Database, f: SampleFilter, limit: number, beforeId?: number): Promise<StoredSample[]> {
  const w = where(f);
  const cursor = beforeId === undefined ? '' : ' AND id < ?';
  const params = beforeId === undefined ? w.params : [...w.params, beforeId];
  const { results } = await db
    .prepare(`SELECT id, ${SAMPLE_COLUMNS.join(', ')} FROM samples WHERE ${w.sql}${cursor} ORDER BY id DESC LIMIT ?`)
    .bind(...params, limit)
    .all<Record<string, unknown>>();
  return results.map(fromRow);
}

/** Grouping columns and metrics are interpolated into SQL: callers pass values from the API's allow-lists only. */
export type GroupKey = Record<string, string | null>;

function groupKey(row: Record<string, string | number | null>, by: readonly string[]): GroupKey {
  return Object.fromEntries(by.map((c) => [c, row[c] === null || row[c] === undefined ? null : String(row[c])]));
}

export interface MetricGroupCount {
  key: GroupKey;
  samples: number;
  errors: number;
  /** Successful samples with a value for the metric: what percentiles are taken over. */
  n: number;
}

/** Per group: all samples, failed ones, and successful ones that have the metric. */
export async function metricGroupCounts(
  db: D1Database,
  f: SampleFilter,
  metric: string,
  by: readonly string[],
): Promise<MetricGroupCount[]> {
  const w = where(f);
  const cols = by.join(', ');
  const { results } = await db
    .prepare(`SELECT ${cols}, COUNT(*) AS samples, SUM(CASE WHEN error IS NOT NULL THEN 1 ELSE 0 END) AS errors,
      SUM(CASE WHEN error IS NULL AND ${metric} IS NOT NULL THEN 1 ELSE 0 END) AS n FROM samples WHERE ${w.sql} GROUP BY ${cols}`)
    .bind(...w.params)
    .all<Record<string, string | number | null>>();
  return results.map((r) => ({ key: groupKey(r, by), samples: Number(r.samples), errors: Number(r.errors), n: Number(r.n) }));
}

/**
 * The order statistics at the given 1-based ranks of the metric within each group (successful
 * samples), ranked inside SQLite: only those few rows come back, not every sample, which keeps a
 * long window inside a Worker's CPU budget.
 */
export async function metricAtRanks(
  db: D1Database,
  f: SampleFilter,
  metric: string,
  by: readonly string[],
  ranks: readonly number[],
): Promise<Array<{ key: GroupKey; rank: number; value: number }>> {
  if (ranks.length === 0) return [];
  const w = where(f);
  const cols = by.join(', ');
  const rankList = ranks.map((r) => String(Math.trunc(r))).join(', ');
  const { results } = await db
    .prepare(`SELECT ${cols}, rn, value FROM (
      SELECT ${cols}, ${metric} AS value, ROW_NUMBER() OVER (PARTITION BY ${cols} ORDER BY ${metric}) AS rn
      FROM samples WHERE ${w.sql} AND error IS NULL AND ${metric} IS NOT NULL
    ) WHERE rn IN (${rankList})`)
    .bind(...w.params)
    .all<Record<string, string | number | null>>();
  return results.map((r) => ({ key: groupKey(r, by), rank: Number(r.rn), value: Number(r.value) }));
}

export interface ColoRow {
  region: string;
  colo: string | null;
  samples: number;
  outside: number;
  last_started_at: number;
}

export async function colosByRegion(db: D1Database, fromTick: number): Promise<ColoRow[]> {
  const { results } = await db
    .prepare(`SELECT region, colo, COUNT(*) AS samples, SUM(CASE WHEN colo_outside_region = 1 THEN 1 ELSE 0 END) AS outside,
      MAX(started_at) AS last_started_at FROM samples WHERE tick_id >= ? GROUP BY region, colo ORDER BY region, samples DESC`)
    .bind(fromTick)
    .all<ColoRow>();
  return results;
}

export async function lastSampleByTarget(
  db: D1Database,
  fromTick: number,
): Promise<Array<{ target: string; samples: number; last_started_at: number }>> {
  const { results } = await db
    .prepare('SELECT target, COUNT(*) AS samples, MAX(started_at) AS last_started_at FROM samples WHERE tick_id >= ? GROUP BY target')
    .bind(fromTick)
    .all<{ target: string; samples: number; last_started_at: number }>();
  return results;
}

export async function latestTick(db: D1Database): Promise<{ tick_id: number; started_at: number } | null> {
  return db
    .prepare('SELECT tick_id, started_at FROM samples ORDER BY tick_id DESC LIMIT 1')
    .first<{ tick_id: number; started_at: number }>();
}

/** Retention: deletes samples of ticks before `beforeTick`. Returns rows deleted. */
export async function deleteSamplesBefore(db: D1Database, beforeTick: number): Promise<number> {
  // The cut is marked in the same transaction: no rollup is rewritten from an hour that lost samples.
  const [, result] = await db.batch([
    markSamplesRetention(db, beforeTick),
    db.prepare('DELETE FROM samples WHERE tick_id < ?').bind(beforeTick),
  ]);
  return result.meta.changes ?? 0;
}
