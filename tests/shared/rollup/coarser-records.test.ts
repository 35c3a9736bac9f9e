/**
 * TTFT by target with its regions pooled, summed from the region × target sums the public views hold
 * (PercentileSums.coarserRecords): the very groups rollupPercentileGroups gives by target over the same rows.
 */
import { describe, expect, it } from 'vitest';
import { PercentileSums, rollupPercentileGroups } from '../../../shared/rollup/percentiles.ts';
import { rollUp, type RollupSample } from '../../../shared/rollup/rollup.ts';

let seed = 5;
const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;

function samples(): RollupSample[] {
  const out: RollupSample[] = [];
  for (const region of ['weur', 'enam', 'apac'])
    for (const target of ['a', 'b'])
      for (const prompt_variant of ['chat', 'long'])
        for (let k = 0; k < 40; k++) {
          const failed = random() < 0.1;
          // Each region its own level, so pooling regions changes the percentiles.
          const ttft = (region === 'apac' ? 900 : 200) * (0.5 + random());
          out.push({
            tick_id: Date.UTC(2026, 0, 1, 3) + k * 60_000,
            region,
            target,
            prompt_variant,
            method_version: 2,
            error: failed ? 'http' : null,
            split_source: failed ? null : 'rtt',
            ttft_ms: failed ? null : ttft,
            ttfa_ms: failed ? null : ttft,
            tpot_ms: failed ? null : 9,
            itl_p99_ms: failed ? null : 20,
            total_ms: failed ? null : ttft + 300,
            decode_tps: failed ? null : 100,
            network_ms: failed ? null : 20,
            server_ms: failed ? null : ttft - 20,
          } as RollupSample);
        }
  return out;
}

describe('pooled groups from finer sums', () => {
  it('equal the groups of the coarser grouping over the same rows', () => {
    const rows = rollUp(samples());
    const sums = new PercentileSums(
      ['ttft_ms', 'server_ms'],
      ['region', 'target', 'prompt_variant'],
      ['region', 'target', 'prompt_variant', 'split_source'],
    );
    sums.addRollups(rows);
    for (const by of [['target', 'prompt_variant'], ['target'], ['prompt_variant'], []] as const) {
      const pooled = sums.coarserRecords('ttft_ms', by);
      expect(pooled, by.join()).toEqual(rollupPercentileGroups(rows, 'ttft_ms', by));
      expect(pooled.reduce((n, g) => n + g.samples, 0)).toBe(rows.reduce((n, r) => n + r.probes, 0));
    }
    // A grouping the sums do not hold is refused.
    expect(() => new PercentileSums(['ttft_ms'], ['target']).coarserRecords('ttft_ms', ['region'])).toThrow(/coarser/);
  });
});
