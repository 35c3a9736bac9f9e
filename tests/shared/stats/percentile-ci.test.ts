import { describe, expect, it } from 'vitest';
import { ciRanks, percentileWithCi } from '../../../shared/stats/percentile-ci.ts';

/** P(l ≤ B ≤ u − 1) for B ~ Binomial(n, q), summed directly (independent of the implementation). */
function coverage(n: number, q: number, l: number, u: number): number {
  let p = 0;
  for (let k = l; k <= u - 1; k++) {
    let c = 1;
    for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i;
    p += c * q ** k * (1 - q) ** (n - k);
  }
  return p;
}

describe('order-statistic confidence intervals', () => {
  it('matches the textbook interval for the median of 100 samples: 40th to 61st', () => {
    expect(ciRanks(100, 0.5)).toEqual([40, 61]);
  });

  it('matches the textbook interval for the median of 20 samples: 6th to 15th', () => {
    expect(ciRanks(20, 0.5)).toEqual([6, 15]);
  });

  it('covers at least 95 % for many n and q', () => {
    for (const n of [10, 25, 59, 100, 250, 800]) {
      for (const q of [0.5, 0.9, 0.95, 0.99]) {
        const r = ciRanks(n, q);
        if (!r) continue;
        expect(coverage(n, q, r[0], r[1])).toBeGreaterThanOrEqual(0.95);
      }
    }
  });

  it('says when a sample is too small for the percentile', () => {
    expect(ciRanks(20, 0.99)).toBeNull();
    expect(ciRanks(3, 0.5)).toBeNull();
    expect(ciRanks(0, 0.5)).toBeNull();
  });

  it('uses the normal approximation for large n, close to the exact interval', () => {
    const r = ciRanks(10_000, 0.9)!;
    expect(r[0]).toBeGreaterThan(8_930);
    expect(r[1]).toBeLessThan(9_070);
    expect(coverage(2_000, 0.9, ...ciRanks(2_000, 0.9)!)).toBeGreaterThanOrEqual(0.95);
  });

  it('returns the bounding values from the sorted sample', () => {
    const sorted = Float64Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentileWithCi(sorted, 0.5)).toEqual({ value: 50.5, ci_low: 40, ci_high: 61 });
  });
});
