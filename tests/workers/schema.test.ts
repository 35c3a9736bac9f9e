/**
 * One sample schema: the D1 table that the numbered migrations build is exactly the field list in
 * shared/sample-fields.ts (names, SQL types, NOT NULL), a sample survives the round trip through a
 * row unchanged, and a database holding rows of the first schema upgrades without losing any.
 */
import { describe, expect, it } from 'vitest';
import { applyD1Migrations, env } from 'cloudflare:test';
import { SQL_TYPES, STORED_FIELDS, emptySample } from '../../shared/sample-fields.ts';
import { fromRow, toRowValues, type StoredSample } from '../../workers/observatory/db/sample-row.ts';
import { insertSamples, listSamples } from '../../workers/observatory/db/samples.ts';
import { ROLLUP_TABLE_SHAPES } from '../../workers/observatory/db/rollups.ts';
import { ROLLUP_METRICS } from '../../shared/rollup/rollup.ts';
import { BURST_ONLY_COLUMNS } from '../../workers/observatory/db/bursts.ts';

const BURST_ONLY: readonly string[] = BURST_ONLY_COLUMNS;

interface ColumnInfo {
  name: string;
  type: string;
  notnull: number;
}

async function columns(db: D1Database, table = 'samples'): Promise<Array<ColumnInfo & { pk: number }>> {
  return (await db.prepare(`PRAGMA table_info(${table})`).all<ColumnInfo & { pk: number }>()).results;
}

function fullSample(tick: number): StoredSample {
  return {
    ...emptySample(),
    method_version: 2,
    target: 'ref-chat',
    api: 'openai-responses',
    model: 'm',
    prompt_variant: 'tiny',
    started_at: tick + 0.25,
    region: 'weur',
    colo: 'AMS',
    upstream_colo: 'FRA',
    served_by: 'Sweden Central',
    served_by_source: 'x-ms-region',
    colo_outside_region: false,
    warm: true,
    status: 200,
    headers_ms: 10.5,
    first_byte_ms: 11,
    ttft_ms: 60,
    ttfa_ms: 400,
    total_ms: 700,
    output_tokens: 320,
    tokens_exact: true,
    reasoning_tokens: 300,
    reasoning_streamed: false,
    answer_tokens: 20,
    prompt_tokens: 40,
    input_tokens: 41,
    max_tokens: 400,
    tpot_ms: 10,
    decode_tps: 100,
    itl_p50_ms: 10,
    itl_p90_ms: 11,
    itl_p99_ms: 12,
    itl_max_ms: 13,
    chunks: 3,
    server_headers_ms: 4,
    server_timings: { 'server-timing.total': 4, 'openai-processing-ms': 5000 },
    server_ttft_ms: 50,
    server_ttft_source: 'metrics',
    rtt_ms: 6,
    network_ms: 6.5,
    server_ms: 53.5,
    residual_ms: 3.5,
    split_source: 'server-timing.total',
    split_note: 'openai-processing-ms 5000 ms > headers_ms 10.5 ms, set aside',
    finish_reason: 'stop',
    error: null,
    error_detail: null,
    timeline: [60, 400.1, 700],
    tick_id: tick,
    simulated: true,
    backfill: false,
    late: false,
    tick_position: 3,
  };
}

describe('the sample schema', () => {
  it('the migrated samples table has exactly the fields of shared/sample-fields.ts', async () => {
    const actual = (await columns(env.DB))
      .filter((c) => c.name !== 'id')
      .map((c) => ({ name: c.name, type: c.type, notNull: c.notnull === 1 }));
    const expected = STORED_FIELDS.map((f) => ({
      name: f.name,
      type: SQL_TYPES[f.type],
      notNull: !f.nullable || f.storedNotNull === true,
    }));
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    expect(actual.sort(byName)).toEqual(expected.sort(byName));
  });

  it("the concurrency probes' table has every sample column, the same way, and its burst columns", async () => {
    const shape = (cs: ColumnInfo[]) => cs.map((c) => ({ name: c.name, type: c.type, notNull: c.notnull === 1 }));
    const samples = shape(await columns(env.DB));
    const bursts = shape(await columns(env.DB, 'burst_samples'));
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    expect(bursts.filter((c) => !BURST_ONLY.includes(c.name)).sort(byName)).toEqual(samples.sort(byName));
    expect(
      bursts
        .filter((c) => BURST_ONLY.includes(c.name))
        .map((c) => c.name)
        .sort(),
    ).toEqual([...BURST_ONLY].sort());
  });

  it('the rollup tables have exactly the columns and keys the code writes, histograms as BLOBs', async () => {
    const types: Record<string, string> = {
      hour: 'INTEGER',
      day: 'INTEGER',
      block: 'INTEGER',
      region: 'TEXT',
      target: 'TEXT',
      prompt_variant: 'TEXT',
      method_version: 'INTEGER',
      probes: 'INTEGER',
      successes: 'INTEGER',
      errors: 'TEXT',
      split: 'BLOB',
      blocks: 'TEXT',
      packed: 'BLOB',
      hours: 'TEXT',
      n: 'INTEGER',
      wins: 'INTEGER',
      d_ttft: 'REAL',
      d_server: 'REAL',
      reported: 'INTEGER',
      hits: 'INTEGER',
      cached_sum: 'INTEGER',
      n_server: 'INTEGER',
      wins_server: 'INTEGER',
      operational: 'INTEGER',
      degraded: 'INTEGER',
      down: 'INTEGER',
      maintenance: 'INTEGER',
      no_data: 'INTEGER',
      late: 'INTEGER',
      note: 'TEXT',
      samples: 'INTEGER',
      last_started_at: 'REAL',
      colos: 'TEXT',
      served: 'TEXT',
      fidelity: 'TEXT',
    };
    // A prompt-cache block's server-time d is null in an hour without a server figure on both passes (TTFT's too, for
    // symmetry); its server-time counts on rows written before migrations/0016.
    const nullable = new Set([
      'cache_hours.d_ttft',
      'cache_hours.d_server',
      'cache_hours.n_server',
      'cache_hours.wins_server',
      'status_hours.note',
      'status_days.note',
    ]);
    for (const m of ROLLUP_METRICS) types[m] = 'BLOB';
    for (const [table, shape] of Object.entries(ROLLUP_TABLE_SHAPES)) {
      const actual = await columns(env.DB, table);
      expect(
        actual.map((c) => c.name),
        table,
      ).toEqual([...shape.columns]);
      expect(
        actual
          .filter((c) => c.pk > 0)
          .sort((a, b) => a.pk - b.pk)
          .map((c) => c.name),
        table,
      ).toEqual([...shape.key]);
      for (const c of actual)
        expect({ column: `${table}.${c.name}`, type: c.type, notNull: c.notnull }).toEqual({
          column: `${table}.${c.name}`,
          type: types[c.name],
          notNull: nullable.has(`${table}.${c.name}`) ? 0 : 1,
        });
    }
  });

  it('a sample with every field set comes back from D1 unchanged', async () => {
    const sample = fullSample(1_000_000_000_000);
    expect(await insertSamples(env.DB, [sample])).toBe(1);
    const [back] = await listSamples(env.DB, { fromTick: sample.tick_id, toTick: sample.tick_id + 1, methodVersion: 2 }, 10);
    const { id, ...rest } = back;
    expect(id).toBeTypeOf('number');
    expect(rest).toEqual(sample);
    expect(fromRow({ id, ...Object.fromEntries(STORED_FIELDS.map((f, i) => [f.name, toRowValues(sample)[i]])) })).toEqual(back);
  });

  it('a database with rows of the first schema upgrades without losing any, and takes new samples', async () => {
    const db = env.UPGRADE_DB;
    const [first, ...later] = env.TEST_MIGRATIONS;
    expect(later.length).toBeGreaterThan(0);
    await applyD1Migrations(db, [first]);
    const oldColumns = (await columns(db)).map((c) => c.name).filter((c) => c !== 'id');
    const v1 = fullSample(1_100_000_000_000) as unknown as Record<string, unknown>;
    const v1Row = Object.fromEntries(
      oldColumns.map((c) => [
        c,
        c === 'method_version' ? 1 : toRowValues(fullSample(1_100_000_000_000))[STORED_FIELDS.findIndex((f) => f.name === c)],
      ]),
    );
    const ticks = [0, 1, 2].map((i) => (v1.tick_id as number) + i * 300_000);
    for (const tick of ticks) {
      await db
        .prepare(`INSERT INTO samples (${oldColumns.join(', ')}) VALUES (${oldColumns.map(() => '?').join(', ')})`)
        .bind(...oldColumns.map((c) => (c === 'tick_id' ? tick : v1Row[c])))
        .run();
    }
    const before = (await db.prepare('SELECT * FROM samples ORDER BY id').all()).results;

    await applyD1Migrations(db, env.TEST_MIGRATIONS);
    const after = (await db.prepare('SELECT * FROM samples ORDER BY id').all<Record<string, unknown>>()).results;
    expect(after).toHaveLength(3);
    for (let i = 0; i < after.length; i++) {
      // Every old column keeps its value; every new figure is NULL (not recorded under method version 1), and a
      // new flag that can't be null holds its default (an old row was never run late).
      expect(Object.fromEntries(oldColumns.map((c) => [c, after[i][c]]))).toEqual(
        Object.fromEntries(oldColumns.map((c) => [c, before[i][c]])),
      );
      for (const f of STORED_FIELDS.filter((x) => !oldColumns.includes(x.name)))
        expect(after[i][f.name], f.name).toBe(f.nullable ? null : 0);
    }
    const old = await listSamples(db, { fromTick: ticks[0], toTick: ticks[2] + 1, methodVersion: 1 }, 10);
    expect(old.map((s) => s.reasoning_streamed)).toEqual([null, null, null]);
    const fresh = fullSample(ticks[2] + 300_000);
    expect(await insertSamples(db, [fresh])).toBe(1);
    const [back] = await listSamples(db, { fromTick: fresh.tick_id, toTick: fresh.tick_id + 1, methodVersion: 2 }, 1);
    expect({ ...back, id: undefined }).toEqual({ ...fresh, id: undefined });
  });
});

describe('the vendor status tables', () => {
  it('have exactly the columns, keys and nullability the code reads and writes (migrations/0015)', async () => {
    const { VENDOR_TABLE_SHAPES } = await import('../../workers/observatory/db/vendor-incidents.ts');
    const integers = ['created_at', 'started_at', 'resolved_at', 'updated_at', 'watched_since', 'changed_at', 'error_since'];
    for (const [table, shape] of Object.entries(VENDOR_TABLE_SHAPES)) {
      const actual = await columns(env.DB, table);
      expect(
        actual.map((c) => c.name),
        table,
      ).toEqual([...shape.columns]);
      expect(
        actual
          .filter((c) => c.pk > 0)
          .sort((a, b) => a.pk - b.pk)
          .map((c) => c.name),
        table,
      ).toEqual([...shape.key]);
      const nullable: readonly string[] = shape.nullable;
      for (const c of actual)
        expect({ column: `${table}.${c.name}`, type: c.type, notNull: c.notnull }).toEqual({
          column: `${table}.${c.name}`,
          type: integers.includes(c.name) ? 'INTEGER' : 'TEXT',
          notNull: nullable.includes(c.name) ? 0 : 1,
        });
    }
  });
});
