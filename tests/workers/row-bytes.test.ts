/**
 * What a stored row costs in D1 storage, measured as D1 reports it: each statement's `meta.size_after`
 * (the database's size in bytes after it ran) before and after writing many copies of a real row. The
 * projection of `npm run capacity` (shared/config/projection.ts) grows D1 by these bytes a row; this
 * test holds its constants to the measurement (within 20 %, never below it), and the bytes a sample
 * takes in its day's Parquet archive (shared/archive/parquet-file.ts).
 */
import { describe, expect, it } from 'vitest';
import { env } from 'cloudflare:workers';
import { drain } from './drain.ts';
import { fireCron } from './fire-cron.ts';
import { config } from './test-config.ts';
import { fromRow } from '../../workers/observatory/db/sample-row.ts';
import { insertSamples } from '../../workers/observatory/db/samples.ts';
import { rollUpDay, rollUpHour } from '../../workers/observatory/rollup-hour.ts';
import { ROLLUP_TABLE_SHAPES } from '../../workers/observatory/db/rollups.ts';
import { dayOf } from '../../shared/rollup/rollup.ts';
import { samplesOfRegionDay } from '../../workers/observatory/db/archive.ts';
import { samplesParquet } from '../../shared/archive/parquet-file.ts';
import {
  ARCHIVE_BYTES_PER_SAMPLE,
  D1_BYTES_PER_DAILY_ROLLUP,
  D1_BYTES_PER_HOURLY_ROLLUP,
  D1_BYTES_PER_QUIET_HOURLY_ROLLUP,
  D1_BYTES_PER_SAMPLE,
  QUIET_PROBES_PER_HOUR,
  SIZED_SAMPLE_TOKENS,
} from '../../shared/config/projection.ts';
import { DAY_MS, HOUR_MS } from '../../shared/time.ts';

const REGIONS = config.regions.map((r) => r.code);
const HOUR = 1_767_268_800_000; // 2026-01-01T12:00:00Z
const COPIES = 1_000;
const MINUTE_MS = 60_000;

/** The database's size now, as D1 reports it after a statement. */
async function sizeNow(): Promise<number> {
  const r = await env.DB.prepare('SELECT 1').run();
  return r.meta.size_after;
}

/** A chat answer's token-bearing reads: SIZED_SAMPLE_TOKENS reads 8–40 ms apart after a 450 ms first token. */
function chatTimeline(): number[] {
  return Array.from({ length: SIZED_SAMPLE_TOKENS }, (_, i) => 450 + i * 16 + ((i * 37) % 33) - 8);
}

/** Copies `key`'s row of a rollup table `n` times at later periods (`step` apart), and returns the bytes D1 grew by a copy. */
async function bytesPerRollupCopy(
  table: 'hourly_rollups' | 'daily_rollups',
  period: number,
  step: number,
  n: number,
  region = 'weur',
): Promise<number> {
  const { columns } = ROLLUP_TABLE_SHAPES[table];
  const [keyColumn, ...rest] = columns;
  const before = await sizeNow();
  const r = await env.DB.prepare(
    `WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < ?)
     INSERT INTO ${table} (${columns.join(', ')})
     SELECT ${keyColumn} + k * ?, ${rest.join(', ')} FROM ${table}, n WHERE ${keyColumn} = ? AND region = ? AND target = ?`,
  )
    .bind(n, step, period, region, 'ref-chat')
    .run();
  expect(r.meta.changes).toBe(n);
  return (r.meta.size_after - before) / n;
}

describe('what a row costs in D1 storage (the projection counts these)', () => {
  it('a sample, and the hourly and daily rollup rows of a busy day, measured from real rows', async () => {
    await fireCron(HOUR);
    await drain(REGIONS);
    const row = await env.DB.prepare(
      "SELECT * FROM samples WHERE error IS NULL AND target = 'ref-chat' AND region = 'weur' LIMIT 1",
    ).first();
    expect(row).not.toBeNull();
    const real = fromRow(row as Record<string, unknown>);

    // A real stored sample, its timeline a chat answer's (the projection's variant), copied at later ticks.
    const sized = { ...real, id: undefined, timeline: chatTimeline(), output_tokens: SIZED_SAMPLE_TOKENS, chunks: SIZED_SAMPLE_TOKENS };
    const before = await sizeNow();
    const copies = Array.from({ length: COPIES }, (_, k) => ({ ...sized, tick_id: HOUR + 10 * DAY_MS + k * MINUTE_MS }));
    for (let i = 0; i < copies.length; i += 100) await insertSamples(env.DB, copies.slice(i, i + 100));
    const perSample = ((await sizeNow()) - before) / COPIES;
    console.log(`D1 bytes per sample (${SIZED_SAMPLE_TOKENS}-token timeline, with its index entry): ${perSample.toFixed(0)}`);
    expect(perSample).toBeLessThanOrEqual(D1_BYTES_PER_SAMPLE);
    expect(perSample).toBeGreaterThan(D1_BYTES_PER_SAMPLE * 0.8);

    // A busy day: a probe a minute, its figures spread over a 16:1 range, each hour over all of it, so every probe of
    // an hour, and as many as the histograms' buckets allow over the day, land in buckets of their own.
    const day = dayOf(HOUR + 20 * DAY_MS);
    const spreadDay = (region: string, perHour: number) =>
      Array.from({ length: 24 * perHour }, (_, i) => {
        const [h, m] = [i % 24, Math.floor(i / 24)];
        const f = 0.25 * 16 ** (i / (24 * perHour - 1));
        const scale = (x: number | null) => (x === null ? null : x * f);
        return {
          ...sized,
          region,
          tick_id: day + h * HOUR_MS + m * (HOUR_MS / perHour),
          timeline: sized.timeline.map((t) => t * f),
          headers_ms: scale(real.headers_ms),
          first_byte_ms: scale(real.first_byte_ms),
          ttft_ms: scale(real.ttft_ms),
          ttfa_ms: scale(real.ttfa_ms),
          total_ms: scale(real.total_ms),
          tpot_ms: scale(real.tpot_ms),
          decode_tps: scale(real.decode_tps),
          itl_p99_ms: scale(real.itl_p99_ms),
          network_ms: scale(real.network_ms),
          server_ms: scale(real.server_ms),
        };
      });
    const busy = spreadDay('weur', 60);
    for (let i = 0; i < busy.length; i += 100) await insertSamples(env.DB, busy.slice(i, i + 100));
    for (let h = 0; h < 24; h++) await rollUpHour(env.DB, 'weur', day + h * HOUR_MS);
    await rollUpDay(env.DB, 'weur', day);
    const perHourly = await bytesPerRollupCopy('hourly_rollups', day, 1_000 * DAY_MS, 500);
    const perDaily = await bytesPerRollupCopy('daily_rollups', day, 1_000 * DAY_MS, 500);
    console.log(`D1 bytes per hourly rollup row (60 probes): ${perHourly.toFixed(0)}; per daily row (1,440): ${perDaily.toFixed(0)}`);
    expect(perHourly).toBeLessThanOrEqual(D1_BYTES_PER_HOURLY_ROLLUP);
    expect(perHourly).toBeGreaterThan(D1_BYTES_PER_HOURLY_ROLLUP * 0.8);
    expect(perDaily).toBeLessThanOrEqual(D1_BYTES_PER_DAILY_ROLLUP);
    expect(perDaily).toBeGreaterThan(D1_BYTES_PER_DAILY_ROLLUP * 0.8);

    // A quiet day, the free plan's: a probe every 5 minutes (12 an hour, 288 a day), spread the same way.
    const quiet = spreadDay('enam', QUIET_PROBES_PER_HOUR);
    for (let i = 0; i < quiet.length; i += 100) await insertSamples(env.DB, quiet.slice(i, i + 100));
    for (let h = 0; h < 24; h++) await rollUpHour(env.DB, 'enam', day + h * HOUR_MS);
    await rollUpDay(env.DB, 'enam', day);
    const quietHourly = await bytesPerRollupCopy('hourly_rollups', day, 1_000 * DAY_MS, 500, 'enam');
    const quietDaily = await bytesPerRollupCopy('daily_rollups', day, 1_000 * DAY_MS, 500, 'enam');
    console.log(`D1 bytes per hourly rollup row (12 probes): ${quietHourly.toFixed(0)}; per daily row (288): ${quietDaily.toFixed(0)}`);
    expect(quietHourly).toBeLessThanOrEqual(D1_BYTES_PER_QUIET_HOURLY_ROLLUP);
    expect(quietHourly).toBeGreaterThan(D1_BYTES_PER_QUIET_HOURLY_ROLLUP * 0.8);
    expect(quietDaily).toBeLessThanOrEqual(D1_BYTES_PER_DAILY_ROLLUP);
    expect(quietDaily).toBeGreaterThan(D1_BYTES_PER_DAILY_ROLLUP * 0.8);

    // The same day of the region as its archive holds it: Snappy Parquet, the file's footer included.
    const rows = await samplesOfRegionDay(env.DB, 'weur', day);
    expect(rows).toHaveLength(24 * 60);
    const perArchived = samplesParquet(rows).byteLength / rows.length;
    console.log(`R2 bytes per archived sample (a day of 1,440 as Parquet): ${perArchived.toFixed(0)}`);
    expect(perArchived).toBeLessThanOrEqual(ARCHIVE_BYTES_PER_SAMPLE);
    // The file's bytes follow the real sample's values (its timings, colo, served_by): 151 to 159 measured on this machine.
    expect(perArchived).toBeGreaterThan(ARCHIVE_BYTES_PER_SAMPLE * 0.75);
  });
});
