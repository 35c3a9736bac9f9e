/**
 * Paired comparisons through the Worker: samples of two targets in one region over 24 hours (A 23 % faster,
 * both on the same noisy path), rolled up as the regional object does; GET /api/v1/compare then reads one
 * row per hour (one for the day once it is packed) and calls A faster, by about the right amount, with Holm across the region's family (every pair of its
 * targets), naming the block length it judged in.
 */
import { describe, expect, it } from 'vitest';
import { SELF, env } from 'cloudflare:test';
import { insertSamples } from '../../workers/observatory/db/samples.ts';
import { rollUpDay, rollUpHour } from '../../workers/observatory/rollup/rollup-hour.ts';
import { emptySample } from '../../shared/sample-fields.ts';
import { METHOD_VERSION, ROWS_READ_HEADER } from '../../shared/constants.ts';
import { HOUR_MS } from '../../shared/time.ts';
import type { StoredSample } from '../../workers/observatory/db/sample-row.ts';
import type { CompareDoc } from '../../shared/api-types.ts';
import { config } from './test-config.ts';

const START = Date.UTC(2026, 5, 1);
// A day: 8 blocks of 3 hours (the shortest block) at least, beyond the 6 a 95 % interval needs.
const HOURS = 24;
const TICK_MS = 300_000;
const VARIANT = config.promptVariants[0].id;

function sample(tick: number, target: string, ttfa: number): StoredSample {
  return {
    ...emptySample(),
    method_version: METHOD_VERSION,
    tick_id: tick,
    started_at: tick + 5,
    region: 'weur',
    target,
    api: 'openai-chat',
    model: 'm',
    prompt_variant: VARIANT,
    status: 200,
    ttft_ms: ttfa,
    ttfa_ms: ttfa,
    tpot_ms: 10,
    total_ms: ttfa + 300,
    chunks: 30,
    timeline: [ttfa],
    simulated: true,
    backfill: true,
    late: false,
    tick_position: 0,
  };
}

describe('GET /api/v1/compare', () => {
  it('reads one row an hour (one a day once the day is packed) and finds the faster of two targets, by about the true difference', async () => {
    const samples: StoredSample[] = [];
    for (let k = 0; k < HOURS * 12; k++) {
      const tick = START + k * TICK_MS;
      // The path both share this tick (up to ±40 %), and a little of each's own.
      const path = 1 + 0.4 * Math.sin(k * 1.7);
      samples.push(sample(tick, 'ref-chat', 100 * path * (1 + 0.02 * Math.sin(k * 3.1))));
      samples.push(sample(tick, 'ref-messages', 130 * path * (1 + 0.02 * Math.cos(k * 2.3))));
    }
    await insertSamples(env.DB, samples);
    for (let h = 0; h < HOURS; h++) await rollUpHour(env.DB, 'weur', START + h * HOUR_MS);

    const url = `http://observatory/api/v1/compare?region=weur&from=${new Date(START).toISOString()}&to=${new Date(START + HOURS * HOUR_MS).toISOString()}`;
    const r = await SELF.fetch(url);
    expect(r.status).toBe(200);
    // The day's hours (and at most one row of the packed days' index, none written yet).
    expect(Number(r.headers.get(ROWS_READ_HEADER))).toBeGreaterThanOrEqual(HOURS);
    expect(Number(r.headers.get(ROWS_READ_HEADER))).toBeLessThanOrEqual(HOURS + 1);
    const doc = await r.json<CompareDoc>();
    // Once the day has ended and its rollup has packed it: one row, the same answer.
    await rollUpDay(env.DB, 'weur', START);
    const packed = await SELF.fetch(url);
    expect(Number(packed.headers.get(ROWS_READ_HEADER))).toBeLessThanOrEqual(2);
    expect(await packed.json<CompareDoc>()).toEqual(doc);
    expect(doc).toMatchObject({ figure: 'ttfa_ms', margin_pct: 5 });
    const pair = doc.comparisons.find((x) => x.a === 'ref-chat' && x.b === 'ref-messages')!;
    expect(pair).toMatchObject({
      region: 'weur',
      prompt_variant: VARIANT,
      pairs: HOURS * 12,
      hours: HOURS,
      win_rate: 1,
      b_win_rate: 0,
      verdict: 'a_faster',
    });
    // The unit: blocks of consecutive hours, at least 3, as many as fit the day.
    expect(pair.block_hours!).toBeGreaterThanOrEqual(3);
    expect(pair.blocks).toBe(Math.ceil(HOURS / pair.block_hours!));
    expect(pair.difference_pct!).toBeCloseTo(100 * (100 / 130 - 1), 0);
    expect(pair.ci_low_pct!).toBeLessThan(pair.difference_pct!);
    expect(pair.ci_high_pct!).toBeLessThan(-5);
    // Every other pair of the region's targets is answered too, without data: not enough of it, and Holm counts them.
    const others = doc.comparisons.filter((x) => x !== pair);
    expect(others.length).toBeGreaterThan(0);
    for (const o of others) expect(o).toMatchObject({ pairs: 0, verdict: 'not_enough_data' });
    expect(pair.confidence).toBeGreaterThan(0.95);

    // The chat scenario's expected total (TTFA + 49 TPOT, the same TPOT for both) is closer, and judged on its own figures.
    const chat = await (await SELF.fetch(`${url}&figure=total_chat`)).json<CompareDoc>();
    const total = chat.comparisons.find((x) => x.a === 'ref-chat' && x.b === 'ref-messages')!;
    expect(total.difference_pct!).toBeGreaterThan(pair.difference_pct!);
    expect(total.difference_pct!).toBeLessThan(0);
    // Its wins are its own figure's: A's total is lower on every tick here as well, but counted on the total.
    expect(total).toMatchObject({ pairs: HOURS * 12, win_rate: 1, b_win_rate: 0 });
  });

  it('serves the blocks themselves in pages of whole hours, for a reader that compares on its own', async () => {
    const url = `http://observatory/api/v1/paired-hours?region=weur&from=${new Date(START).toISOString()}&to=${new Date(START + HOURS * HOUR_MS).toISOString()}`;
    const page = await (await SELF.fetch(url)).json<{
      rows: Array<{ hour: number; blocks: Record<string, number[] | number> }>;
      next_cursor: number | null;
    }>();
    expect(page.next_cursor).toBeNull();
    expect(page.rows.map((r) => r.hour)).toEqual(Array.from({ length: HOURS }, (_, h) => START + h * HOUR_MS));
    // Format 2: per figure [paired ticks, A's wins, B's wins, median d].
    expect(page.rows[0].blocks.v).toBe(2);
    const [n, aWins, bWins, ttfa] = page.rows[0].blocks['ref-chat|ref-messages'] as number[];
    expect([n, aWins, bWins]).toEqual([12, 12, 0]);
    expect(ttfa).toBeCloseTo(Math.log(100 / 130), 1);
  });

  it('answers every region at once, each family whole, within the free plan cap (weur 6 pairs, enam and apac 3 each)', async () => {
    const all = await (await SELF.fetch('http://observatory/api/v1/compare')).json<CompareDoc>();
    expect(all.comparisons).toHaveLength(12);
    expect(new Set(all.comparisons.map((c) => c.region))).toEqual(new Set(['weur', 'enam', 'apac']));
  });

  it('refuses what it cannot answer, saying why', async () => {
    for (const [query, message] of [
      ['figure=ttft_p99', 'figure must be one of'],
      ['margin=90', 'margin must be a percentage from 0 to 50'],
      ['region=mars', 'unknown region "mars"'],
      ['window=90d', 'token'],
    ] as const) {
      const r = await SELF.fetch(`http://observatory/api/v1/compare?${query}`);
      expect(r.status, query).toBeGreaterThanOrEqual(400);
      expect(((await r.json()) as { error: { message: string } }).error.message, query).toContain(message);
    }
  });
});
