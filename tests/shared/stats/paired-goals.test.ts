/**
 * The paired comparisons' goals (MEASUREMENT.md, "Comparing two targets": paired intervals keep their coverage when
 * neighbouring hours are alike), shown on simulated weeks whose pair effect follows an AR(1) from one hour to the
 * next (tests/helpers/paired-goals.ts; seeded, so every run measures the same weeks). The figures are printed by
 * `npm run bench:paired` and quoted in MEASUREMENT.md ("How this project reads the contract", "Paired comparisons").
 */
import { describe, expect, it } from 'vitest';
import { coverage, falseVerdictPages, falseVerdictPagesBefore, hourlyCoverage, power } from '../../helpers/paired-goals.ts';

const COVERAGE_WEEKS = 2_000;
const POWER_WEEKS = 200;
const PAGES = 300;

describe('paired intervals keep their coverage when neighbouring hours are alike', () => {
  it.each([0, 0.3, 0.5, 0.7])('cover the true shift in at least 93 per cent of 2,000 weeks at an hour-to-hour correlation of %s', (rho) => {
    const { covered, meanBlockHours } = coverage(rho, COVERAGE_WEEKS);
    expect(covered).toBeGreaterThanOrEqual(0.93);
    // The blocks grow with the correlation: an hour's neighbours alike for longer, more hours in a block.
    if (rho >= 0.5) expect(meanBlockHours).toBeGreaterThan(12);
  });

  it('is needed: hours ranked one by one cover the same weeks at 0.7 far less often (about 77 %)', () => {
    expect(hourlyCoverage(0.7, COVERAGE_WEEKS)).toBeLessThan(0.85);
  });
});

describe('no loss of power worth the name', () => {
  it.each([0, 0.3, 0.5, 0.7])(
    'finds a true 10 per cent difference over 7 days in at least 95 per cent of 200 weeks at a correlation of %s',
    (rho) => {
      expect(power(rho, POWER_WEEKS, false)).toBeGreaterThanOrEqual(0.95);
    },
  );

  it('finds it beside 14 null comparisons under Holm too, with independent hours, in at least 92 % of weeks', () => {
    // About 5 % of independent weeks look correlated enough for day-long blocks, whose 7 ranks cannot reach Holm's level.
    expect(power(0, POWER_WEEKS, true, PAGES)).toBeGreaterThanOrEqual(0.92);
  });
});

describe("Holm's false verdicts per page", () => {
  it('stay at the nominal 5 % (two standard errors over 300 pages allowed) with independent hours, as before blocks were sized', () => {
    const now = falseVerdictPages(0, PAGES);
    const before = falseVerdictPagesBefore(0, PAGES);
    const allowance = 2 * Math.sqrt((0.05 * 0.95) / PAGES);
    expect(now).toBeLessThanOrEqual(0.05 + allowance);
    expect(now).toBeLessThanOrEqual(before + allowance);
  });

  it('fall to half or less of what blocks of a fixed 3 hours gave when hours correlate 0.7', () => {
    expect(falseVerdictPages(0.7, PAGES)).toBeLessThanOrEqual(falseVerdictPagesBefore(0.7, PAGES) / 2);
  });
});
