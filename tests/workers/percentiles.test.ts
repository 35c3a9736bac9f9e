/**
 * Percentiles ranked inside D1 (two small queries) equal the same statistics computed directly over
 * every value, for small and large groups, ties, failed samples and missing values.
 */
import { describe, expect, it } from 'vitest';
import { SELF } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { percentileWithCi } from '../../shared/stats/percentile-ci.ts';
import { METHOD_VERSION } from '../../shared/constants.ts';

const TICK = 1_767_225_600_000;
const GROUPS: Array<{ region: string; target: string; ok: number; failed: number; missing: number }> = [
  { region: 'weur', target: 'ref-chat', ok: 1_500, failed: 30, missing: 5 },
  { region: 'enam', target: 'ref-chat', ok: 7, failed: 2, missing: 0 },
  { region: 'apac', target: 'ref-chat', ok: 0, failed: 4, missing: 0 },
  { region: 'weur', target: 'ref-messages', ok: 60, failed: 0, missing: 3 },
];

/** A deterministic pseudo-random sequence, with many ties (values on a 0.5 ms grid). */
function* values(seed: number): Generator<number> {
  let x = seed;
  for (;;) {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    yield 50 + Math.round((x / 2_147_483_648) ** 3 * 2_000) / 2;
  }
}

describe('percentiles ranked in D1', () => {
  it('equal a direct computation over every value', async () => {
    const expected = new Map<string, number[]>();
    let tick = TICK;
    const insert =
      env.DB.prepare(`INSERT INTO samples (tick_id, region, target, prompt_variant, started_at, simulated, backfill, method_version, api, model, warm,
      tokens_exact, prompt_tokens, max_tokens, chunks, server_timings, timeline, ttft_ms, error) VALUES (?, ?, ?, 'tiny', ?, 0, 0, ${METHOD_VERSION}, 'openai-chat', 'm', 1, 1, 40, 6, 1, '{}', '', ?, ?)`);
    for (const [i, g] of GROUPS.entries()) {
      const gen = values(i + 7);
      const kept: number[] = [];
      const rows = [];
      for (let k = 0; k < g.ok; k++) {
        const v = gen.next().value as number;
        kept.push(v);
        rows.push(insert.bind((tick += 1), g.region, g.target, tick, v, null));
      }
      for (let k = 0; k < g.failed; k++) rows.push(insert.bind((tick += 1), g.region, g.target, tick, 999_999, 'http'));
      for (let k = 0; k < g.missing; k++) rows.push(insert.bind((tick += 1), g.region, g.target, tick, null, null));
      for (let k = 0; k < rows.length; k += 100) await env.DB.batch(rows.slice(k, k + 100));
      expected.set(
        `${g.region}|${g.target}`,
        kept.sort((a, b) => a - b),
      );
    }
    const response = await SELF.fetch(`https://observatory.test/api/v1/percentiles?metric=ttft_ms&source=raw&from=${TICK}&to=${tick + 1}`);
    expect(response.status).toBe(200);
    const { groups } = await response.json<{ groups: Array<Record<string, number | string | null>> }>();
    expect(groups).toHaveLength(GROUPS.length);
    for (const g of GROUPS) {
      const got = groups.find((x) => x.region === g.region && x.target === g.target)!;
      const sorted = Float64Array.from(expected.get(`${g.region}|${g.target}`)!);
      expect(got).toMatchObject({
        n: g.ok,
        samples: g.ok + g.failed + g.missing,
        errors: g.failed,
        error_rate: g.failed / (g.ok + g.failed + g.missing),
      });
      for (const q of [0.5, 0.9, 0.95, 0.99]) {
        const name = `p${Math.round(q * 100)}`;
        const want = percentileWithCi(sorted, q);
        expect([got[name], got[`${name}_ci_low`], got[`${name}_ci_high`]], `${g.region}/${g.target} ${name}`).toEqual([
          want.value,
          want.ci_low,
          want.ci_high,
        ]);
      }
    }
  });
});
