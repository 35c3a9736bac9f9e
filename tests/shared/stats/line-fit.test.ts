/** The robust line fit behind the prefill rate: a known slope recovered, outliers ignored, an interval that covers. */
import { describe, expect, it } from 'vitest';
import { theilSen } from '../../../shared/stats/line-fit.ts';

/** A deterministic generator (mulberry32), so the test data are the same on every run. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** server_ms = 40 + 0.08 · prompt tokens (80 ms per 1,000), noise ±10 ms, at three prompt sizes. */
function prefillData(perSize: number, seed: number, outliers = 0): Array<[number, number]> {
  const r = rng(seed);
  const points: Array<[number, number]> = [];
  for (const x of [200, 1_000, 32_000]) for (let i = 0; i < perSize; i++) points.push([x, 40 + 0.08 * x + (r() - 0.5) * 20]);
  for (let i = 0; i < outliers; i++) points[i * 3] = [points[i * 3][0], points[i * 3][1] + 3_000];
  return points;
}

describe('Theil–Sen line fit', () => {
  it('recovers a known slope and intercept, with an interval around each', () => {
    const fit = theilSen(prefillData(12, 1))!;
    expect(fit.slope * 1_000).toBeCloseTo(80, 0);
    expect(fit.intercept).toBeGreaterThan(30);
    expect(fit.intercept).toBeLessThan(50);
    expect(fit.slope_low!).toBeLessThanOrEqual(fit.slope);
    expect(fit.slope_high!).toBeGreaterThanOrEqual(fit.slope);
    expect(fit.slope_low! * 1_000).toBeGreaterThan(79);
    expect(fit.slope_high! * 1_000).toBeLessThan(81);
    expect(fit.intercept_low!).toBeLessThanOrEqual(fit.intercept);
    expect(fit.intercept_high!).toBeGreaterThanOrEqual(fit.intercept);
    expect([fit.n, fit.distinct_x]).toEqual([36, 3]);
  });

  it('is not tilted by outliers that would drag a least-squares line', () => {
    const fit = theilSen(prefillData(12, 2, 4))!;
    expect(fit.slope * 1_000).toBeCloseTo(80, 0);
  });

  it('covers the true slope in about 95 % of repeated experiments', () => {
    let covered = 0;
    const runs = 200;
    for (let s = 0; s < runs; s++) {
      const fit = theilSen(prefillData(6, 100 + s))!;
      if (fit.slope_low! <= 0.08 && 0.08 <= fit.slope_high!) covered++;
    }
    // Sen's interval is conservative with many ties in x: at least 90 % here (a definition error gives far less).
    expect(covered / runs).toBeGreaterThanOrEqual(0.9);
  });

  it('needs two prompt sizes and three points', () => {
    expect(
      theilSen([
        [200, 10],
        [200, 12],
        [200, 11],
      ]),
    ).toBeNull();
    expect(
      theilSen([
        [200, 10],
        [1_000, 70],
      ]),
    ).toBeNull();
    const two = theilSen([
      [200, 10],
      [200, 12],
      [1_000, 70],
      [1_000, 72],
    ])!;
    expect(two.slope).toBeCloseTo(0.075, 3);
    expect(two.slope_low).toBeNull();
  });
});
