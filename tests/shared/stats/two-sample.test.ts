/** The two-sample shift and its Mann–Whitney interval (shared/stats/two-sample.ts), against counting by hand. */
import { describe, expect, it } from 'vitest';
import { shiftInterval, shiftIntervalRank } from '../../../shared/stats/two-sample.ts';

/** P(U ≤ u) by enumerating every way to place a x's among a + b ranks (U: pairs with x above y). */
function bruteLowerTail(a: number, b: number, u: number): number {
  let hits = 0;
  let total = 0;
  const n = a + b;
  for (let mask = 0; mask < 1 << n; mask++) {
    let ones = 0;
    for (let i = 0; i < n; i++) if (mask & (1 << i)) ones++;
    if (ones !== a) continue;
    total++;
    // Rank i (0-based, ascending) held by an x counts the y's below it.
    let count = 0;
    let ysBelow = 0;
    for (let i = 0; i < n; i++) {
      if (mask & (1 << i)) count += ysBelow;
      else ysBelow++;
    }
    if (count <= u) hits++;
  }
  return hits / total;
}

describe('the two-sample shift interval', () => {
  it('reads its ranks from the exact distribution of U, as counted by hand', () => {
    for (const [a, b] of [
      [3, 5],
      [4, 9],
      [7, 10],
    ]) {
      const k = shiftIntervalRank(a, b, 0.95)!;
      expect(bruteLowerTail(a, b, k - 1)).toBeLessThanOrEqual(0.025);
      expect(bruteLowerTail(a, b, k)).toBeGreaterThan(0.025);
    }
    // Two against three: C(5, 2) = 10 placements, P(U = 0) = 1/10 > 2.5 %: no 95 % interval.
    expect(shiftIntervalRank(2, 3, 0.95)).toBeNull();
  });

  it('estimates the median of the differences, and covers it: 7 days against 28, a shift of +0.1', () => {
    const before = Array.from({ length: 28 }, (_, i) => ((i * 7) % 11) / 100);
    const now = Array.from({ length: 7 }, (_, i) => 0.1 + ((i * 3) % 11) / 100);
    const s = shiftInterval(now, before)!;
    expect(s.estimate).toBeCloseTo(0.1, 1);
    expect(s.low!).toBeLessThan(0.1);
    expect(s.high!).toBeGreaterThan(0.1);
    expect(shiftInterval([], before)).toBeNull();
  });
});
