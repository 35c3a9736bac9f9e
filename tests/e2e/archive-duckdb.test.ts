/**
 * The archive as analysts read it: the archive duty runs in workerd (Miniflare, with its local D1 and
 * R2), and the real DuckDB reads the Parquet objects the local R2 holds, here from files (no network,
 * no DuckDB extension). Row counts and every value equal what D1 held, field by field, nulls included;
 * the schema's units sit in the footer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorker } from '../../scripts/worker-runtime.ts';
import { Miniflare, convertV4MiniflareOptions } from 'miniflare';
import { readD1Migrations } from '@cloudflare/vitest-plugin';
import { DuckDBInstance } from '@duckdb/node-api';
import { MANIFEST_KEY, parseManifest, sampleArchiveKey } from '../../shared/archive/manifest.ts';
import { SAMPLE_ARCHIVE_COLUMNS } from '../../shared/archive/archive-columns.ts';
import { sha256Hex } from '../../shared/archive/checksum.ts';
import { DAY_MS } from '../../shared/time.ts';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const DAY = Date.UTC(2026, 10, 30); // 2026-11-30
const REGIONS = ['weur', 'apac'];
const TICKS = 40;

let mf: Miniflare;
const dir = mkdtempSync(join(tmpdir(), 'archive-duckdb-'));

beforeAll(async () => {
  const bundle = await bundleWorker(here('../workers/archive-export-worker.ts'));
  mf = new Miniflare(
    convertV4MiniflareOptions({
      modules: [{ type: 'ESModule', path: 'worker.mjs', contents: bundle }],
      compatibilityDate: '2026-11-02',
      d1Databases: ['DB'],
      r2Buckets: ['ARCHIVE'],
    }),
  );
  const db = await mf.getD1Database('DB');
  for (const migration of await readD1Migrations(here('../../migrations'))) await db.batch(migration.queries.map((q) => db.prepare(q)));
  for (const region of REGIONS) {
    const inserted = await mf.dispatchFetch(`http://archive/samples?region=${region}&day=${DAY}&ticks=${TICKS}`);
    expect(await inserted.json()).toEqual({ inserted: 2 * TICKS });
    const archived = await mf.dispatchFetch(`http://archive/archive?region=${region}&day=${DAY}`);
    expect(await archived.json()).toEqual({ confirmed: [DAY], errors: [] });
  }
  // The objects out of the local R2, as files: what DuckDB reads from a bucket it reads from disk the same way.
  const bucket = await mf.getR2Bucket('ARCHIVE');
  for (const region of REGIONS) {
    const key = sampleArchiveKey(DAY, region);
    const object = await bucket.get(key);
    const path = join(dir, key);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, new Uint8Array(await object!.arrayBuffer()));
  }
  writeFileSync(join(dir, MANIFEST_KEY), (await (await bucket.get(MANIFEST_KEY))!.text()) ?? '');
}, 120_000);

afterAll(async () => {
  await mf?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

async function duck(sql: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
  } finally {
    connection.closeSync();
  }
}

/** A D1 value as DuckDB gives it back: integers as BIGINT, 0/1 flags as booleans, JSON as its text. */
function asDuckValue(column: (typeof SAMPLE_ARCHIVE_COLUMNS)[number], value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (column.field_type === 'int') return BigInt(value as number);
  if (column.field_type === 'bool') return value === 1;
  return value;
}

describe('DuckDB over the local archive', () => {
  it('counts the rows D1 held, per region and day (Hive partitions as columns), and the manifest agrees', async () => {
    const files = join(dir, 'samples/*/*.parquet');
    const counts = await duck(
      `SELECT region, day::VARCHAR AS day, count(*)::INTEGER AS n FROM read_parquet('${files}', hive_partitioning = true) GROUP BY ALL ORDER BY region`,
    );
    expect(counts).toEqual(REGIONS.toSorted().map((region) => ({ region, day: '2026-11-30', n: 2 * TICKS })));
    const manifest = parseManifest(readFileSync(join(dir, MANIFEST_KEY), 'utf8'));
    expect(manifest.files.map((f) => [f.key, f.rows])).toEqual(REGIONS.toSorted().map((r) => [sampleArchiveKey(DAY, r), 2 * TICKS]));
    for (const f of manifest.files) {
      const bytes = readFileSync(join(dir, f.key));
      expect(bytes.byteLength).toBe(f.bytes);
      expect(await sha256Hex(new Uint8Array(bytes))).toBe(f.sha256);
    }
  });

  it('reads every value D1 held, field by field, nulls included, in the types of the schema', async () => {
    const db = await mf.getD1Database('DB');
    const columns = SAMPLE_ARCHIVE_COLUMNS.map((c) => c.name);
    const { results } = await db
      .prepare(`SELECT ${columns.join(', ')} FROM samples WHERE region = ? AND tick_id >= ? AND tick_id < ? ORDER BY tick_id, target`)
      .bind('weur', DAY, DAY + DAY_MS)
      .all<Record<string, unknown>>();
    const file = join(dir, sampleArchiveKey(DAY, 'weur'));
    const read = await duck(`SELECT * FROM read_parquet('${file}') ORDER BY tick_id, target`);
    expect(read).toHaveLength(results.length);
    // Every null of D1 is a null in Parquet: the sample fixture has some in most nullable columns.
    const nulls = SAMPLE_ARCHIVE_COLUMNS.filter((c) => results.some((r) => r[c.name] === null)).map((c) => c.name);
    expect(nulls).toEqual(expect.arrayContaining(['colo', 'colo_outside_region', 'ttft_ms', 'error', 'tick_position']));
    for (const [i, row] of results.entries())
      for (const c of SAMPLE_ARCHIVE_COLUMNS) {
        const got = read[i][c.name];
        // DuckDB's JSON is its text, as D1 stored it.
        const value = c.field_type === 'json' && typeof got !== 'string' ? JSON.stringify(got) : got;
        expect({ row: i, column: c.name, value }).toEqual({ row: i, column: c.name, value: asDuckValue(c, row[c.name]) });
      }
    const types = await duck(`SELECT name, type FROM parquet_schema('${file}') WHERE name IN ('tick_id', 'ttft_ms', 'warm', 'target')`);
    expect(Object.fromEntries(types.map((t) => [t.name, t.type]))).toEqual({
      tick_id: 'INT64',
      ttft_ms: 'DOUBLE',
      warm: 'BOOLEAN',
      target: 'BYTE_ARRAY',
    });
  });

  it('finds each column’s unit in the footer', async () => {
    const file = join(dir, sampleArchiveKey(DAY, 'weur'));
    const [kv] = await duck(`SELECT decode(value) AS v FROM parquet_kv_metadata('${file}') WHERE decode(key) = 'llm_observatory.columns'`);
    const units = Object.fromEntries(
      (JSON.parse(String(kv.v)) as Array<{ name: string; unit: string | null }>).map((c) => [c.name, c.unit]),
    );
    expect(units).toMatchObject({ ttft_ms: 'ms', output_tokens: 'tokens', started_at: 'epoch ms', decode_tps: 'tokens/s', target: null });
  });
});
