/**
 * Paired comparisons (shared/stats/paired.ts) against known truth: the signed-rank machinery on cases
 * counted by hand, a 3 % difference under heavy-tailed noise and a shared daily drift found with far fewer
 * ticks than non-overlapping intervals need, identical targets called different no more often than the
 * nominal 5 %, the verdict's four outcomes, and Holm's levels.
 */
import { describe, expect, it } from 'vitest';
import {
  comparePaired,
  hodgesLehmann,
  holmLevels,
  minimumBlocks,
  pairedDifferences,
  signedRankPValue,
  verdictOf,
} from '../../../shared/stats/paired.ts';
import { normalQuantile } from '../../../shared/stats/normal.ts';
import { percentileWithCi } from '../../../shared/stats/percentile-ci.ts';
import { blocksOf, simulate, TICKS_PER_HOUR } from '../../helpers/paired-sim.ts';

describe('the signed-rank machinery', () => {
  it('needs 6 blocks for a 95 % interval, whose bounds are then the extreme Walsh averages', () => {
    expect(minimumBlocks()).toBe(6);
    // m = 6: P(T ≤ 0) = 1/64 ≤ 2.5 %, P(T ≤ 1) = 2/64 > 2.5 %: the interval is [W(1), W(21)] = [min, max].
    const y = [0.01, 0.02, 0.03, 0.05, 0.08, 0.13];
    expect(hodgesLehmann(y)).toEqual({ estimate: expect.closeTo(0.05, 9), low: 0.01, high: 0.13 });
    expect(hodgesLehmann(y.slice(0, 5))!.low).toBeNull();
  });

  it('gives the exact two-sided p-value: all six positive is 2/64; W+ = 9 of 21 is 2 × 27/64', () => {
    expect(signedRankPValue([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])).toBeCloseTo(2 / 64, 12);
    // Ranks 1, 3, 5 positive: W+ = 9; P(T ≤ 9) = 27/64 for six ranks.
    expect(signedRankPValue([0.1, -0.2, 0.3, -0.4, 0.5, -0.6])).toBeCloseTo(54 / 64, 12);
  });

  it('has a normal quantile good to 1e-6', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963985, 6);
    expect(normalQuantile(0.5)).toBeCloseTo(0, 9);
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232306, 6);
  });

  it('pairs only ticks both have, and counts a win for whichever side is faster, a tie for neither', () => {
    const a = new Map([
      [1, 100],
      [2, 200],
      [3, 300],
    ]);
    a.set(5, 70);
    const b = new Map([
      [2, 100],
      [3, 600],
      [4, 50],
      [5, 70],
    ]);
    const { d, aWins, bWins } = pairedDifferences(a, b);
    expect(d).toEqual([Math.log(2), Math.log(0.5), 0]);
    expect([aWins, bWins]).toEqual([1, 1]);
  });
});

describe('the verdict', () => {
  it('has four outcomes, from the interval and the margin', () => {
    expect(verdictOf(-3, 2)).toBe('no_difference');
    expect(verdictOf(-9, -2)).toBe('a_faster');
    expect(verdictOf(1, 12)).toBe('b_faster');
    expect(verdictOf(-8, 1)).toBe('not_enough_data');
    expect(verdictOf(null, null)).toBe('not_enough_data');
    // Significant, but within the margin: no meaningful difference.
    expect(verdictOf(-4, -0.5)).toBe('no_difference');
  });

  it("Holm: the smallest p-value at α/m, the next at α/(m−1) …, and everything after the first that fails at that one's level", () => {
    const levels = holmLevels([0.04, 0.001, 0.3, 0.01]);
    expect(levels[1]).toBeCloseTo(1 - 0.05 / 4, 12);
    expect(levels[3]).toBeCloseTo(1 - 0.05 / 3, 12);
    // 0.04 > 0.05/2: it fails at 1 − α/2, and 0.3 is judged at that level too.
    expect(levels[0]).toBeCloseTo(1 - 0.05 / 2, 12);
    expect(levels[2]).toBeCloseTo(1 - 0.05 / 2, 12);
  });
});

/** Non-overlap of the two medians' own 95 % intervals, the test the compare page used before. */
function nonOverlapFaster(series: ReturnType<typeof simulate>): boolean {
  const a = percentileWithCi(
    series.map((t) => t.a).sort((x, y) => x - y),
    0.5,
  );
  const b = percentileWithCi(
    series.map((t) => t.b).sort((x, y) => x - y),
    0.5,
  );
  return a.ci_high !== null && b.ci_low !== null && a.ci_high < b.ci_low;
}

/** The fewest ticks (in steps of a day) at which a rule sees A faster, or Infinity within `limitDays`. */
function ticksToDetect(faster: (ticks: number) => boolean, limitDays: number): number {
  for (let days = 1; days <= limitDays; days++) if (faster(days * 24 * TICKS_PER_HOUR)) return days * 24 * TICKS_PER_HOUR;
  return Infinity;
}

describe('against truth: B 3 % slower than A, heavy-tailed noise, a shared daily drift', () => {
  // A 1 % margin: the question is whether 3 % is found at all (at the default 5 % it is, rightly, "no meaningful difference").
  const MARGIN = 0.01;
  const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];

  it('the paired method finds A faster within 3 days on every seed; non-overlapping intervals need several times more', () => {
    const paired: number[] = [];
    const overlap: number[] = [];
    for (const seed of SEEDS) {
      const series = simulate(seed, 14 * 24 * TICKS_PER_HOUR, 1.03);
      paired.push(ticksToDetect((n) => comparePaired(blocksOf(series.slice(0, n)), 0, MARGIN).verdict === 'a_faster', 14));
      overlap.push(ticksToDetect((n) => nonOverlapFaster(series.slice(0, n)), 14));
    }
    for (const n of paired) expect(n).toBeLessThanOrEqual(3 * 24 * TICKS_PER_HOUR);
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
    expect(median(overlap)).toBeGreaterThanOrEqual(3 * median(paired));
  });

  it('calls two identical targets different no more often than the nominal 5 % (500 seeds, a week each)', () => {
    let different = 0;
    const runs = 500;
    for (let seed = 1; seed <= runs; seed++) {
      const r = comparePaired(blocksOf(simulate(1000 + seed, 7 * 24 * TICKS_PER_HOUR, 1)), 0, 0);
      // With no margin, any interval that excludes 0 is a call of "different".
      if (r.verdict === 'a_faster' || r.verdict === 'b_faster') different++;
    }
    // 5 % plus three standard errors of a rate over 500 runs: a correct method stays below; a broken one (blocks ignored,
    // a sign flipped, a one-sided interval) lands far above.
    expect(different / runs).toBeLessThanOrEqual(0.05 + 3 * Math.sqrt((0.05 * 0.95) / runs));
  });

  it('says how many more ticks an unsettled comparison needs, and that number settles it', () => {
    const series = simulate(42, 30 * 24 * TICKS_PER_HOUR, 1.03);
    const early = comparePaired(blocksOf(series.slice(0, 12 * TICKS_PER_HOUR)), 0, MARGIN);
    expect(early.verdict).toBe('not_enough_data');
    expect(early.more_ticks).toBeGreaterThan(0);
    const later = comparePaired(blocksOf(series.slice(0, 12 * TICKS_PER_HOUR + 2 * early.more_ticks!)), 0, MARGIN);
    expect(later.verdict).toBe('a_faster');
    expect(later.difference_pct!).toBeLessThan(0);
    expect(later.win_rate!).toBeGreaterThan(0.5);
  });
});
