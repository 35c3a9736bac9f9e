/**
 * The paired comparisons' goals measured on simulated pairs (tests/helpers/paired-sim.ts, correlatedBlocks):
 * a week of hours whose pair effect follows an AR(1) from one hour to the next. Seeded, so every run measures the
 * same weeks: tests/shared/stats/paired-goals.test.ts holds them to the goals, bench/paired.ts prints them.
 */
import {
  comparePaired,
  hodgesLehmann,
  holmLevels,
  pairedResult,
  pairedStats,
  signedRankPValue,
  type PairBlock,
  type PairedStats,
} from '../../shared/stats/paired.ts';
import { correlatedBlocks } from './paired-sim.ts';

/** A week of hours, the default window. */
export const WEEK_HOURS = 7 * 24;
/** The hour effect's standard deviation (ln): with it, hourly blocks cover 77 % at ρ = 0.7, as the issue measured. */
export const HOUR_SD = 0.05;
/** The shift whose interval's coverage is measured (+3 %), and the difference the power is measured at (+10 %). */
export const COVERED_SHIFT = Math.log(1.03);
export const POWER_SHIFT = Math.log(1.1);
/** Comparisons on one simulated page (a region's pairs of six targets). */
export const PAGE_SIZE = 15;

/** A seed per (purpose, ρ, replication), so no two measurements share a week. */
const seedOf = (purpose: number, rho: number, i: number) => purpose * 10_000_000 + Math.round(rho * 100) * 100_000 + i;

/** Share of `reps` weeks whose 95 % interval covers the true shift, and the mean block length. */
export function coverage(rho: number, reps: number): { covered: number; meanBlockHours: number } {
  let covered = 0;
  let hours = 0;
  const truth = 100 * (Math.exp(COVERED_SHIFT) - 1);
  for (let i = 1; i <= reps; i++) {
    const r = comparePaired(correlatedBlocks(seedOf(1, rho, i), WEEK_HOURS, { shift: COVERED_SHIFT, rho, hourSd: HOUR_SD }), 0, 0);
    hours += r.block_hours ?? 0;
    if (r.ci_low_pct !== null && r.ci_high_pct !== null && r.ci_low_pct <= truth && truth <= r.ci_high_pct) covered++;
  }
  return { covered: covered / reps, meanBlockHours: hours / reps };
}

/** The same weeks' coverage with every hour a block of its own (the unit before blocks were sized): what the goal is against. */
export function hourlyCoverage(rho: number, reps: number): number {
  let covered = 0;
  for (let i = 1; i <= reps; i++) {
    const blocks = correlatedBlocks(seedOf(1, rho, i), WEEK_HOURS, { shift: COVERED_SHIFT, rho, hourSd: HOUR_SD });
    const hl = hodgesLehmann(blocks.map((b) => b.d[0]!));
    if (hl?.low != null && hl.high != null && hl.low <= COVERED_SHIFT && COVERED_SHIFT <= hl.high) covered++;
  }
  return covered / reps;
}

/** Pages of PAGE_SIZE null comparisons (no difference), made once per (ρ, pages): their blocks and their stats. */
const pagesMade = new Map<string, Array<Array<{ blocks: PairBlock[]; stats: PairedStats }>>>();
function nullPages(rho: number, pages: number) {
  const key = `${rho}|${pages}`;
  let made = pagesMade.get(key);
  if (!made) {
    made = Array.from({ length: pages }, (_, p) =>
      Array.from({ length: PAGE_SIZE }, (_, k) => {
        const blocks = correlatedBlocks(seedOf(3, rho, p * PAGE_SIZE + k), WEEK_HOURS, { shift: 0, rho, hourSd: HOUR_SD });
        return { blocks, stats: pairedStats(blocks) };
      }),
    );
    pagesMade.set(key, made);
  }
  return made;
}

/** Whether Holm over these comparisons' stats calls one different (margin 0: any interval that leaves out 0). */
function holmCallsAny(stats: readonly PairedStats[], only?: number): boolean {
  const levels = holmLevels(stats.map((st) => st.p_value));
  return stats.some((st, i) => {
    if (only !== undefined && i !== only) return false;
    const v = pairedResult(st, 0, levels[i]).verdict;
    return v === 'a_faster' || v === 'b_faster';
  });
}

/**
 * Share of weeks in which a true +10 % difference is called B faster: alone, or in place of the first comparison of
 * one of the first `reps` null pages (beside PAGE_SIZE − 1 null comparisons, under Holm).
 */
export function power(rho: number, reps: number, onPage: boolean, pages = reps): number {
  let found = 0;
  const shown = onPage ? nullPages(rho, pages) : [];
  for (let i = 1; i <= reps; i++) {
    const week = correlatedBlocks(seedOf(2, rho, i), WEEK_HOURS, { shift: POWER_SHIFT, rho, hourSd: HOUR_SD });
    if (!onPage) {
      if (comparePaired(week).verdict === 'b_faster') found++;
      continue;
    }
    const stats = [pairedStats(week), ...shown[i - 1].slice(1).map((x) => x.stats)];
    const levels = holmLevels(stats.map((st) => st.p_value));
    if (pairedResult(stats[0], undefined, levels[0]).verdict === 'b_faster') found++;
  }
  return found / reps;
}

/** Share of `pages` pages of PAGE_SIZE null comparisons (margin 0) on which Holm still calls some pair different. */
export function falseVerdictPages(rho: number, pages: number): number {
  return nullPages(rho, pages).filter((page) => holmCallsAny(page.map((x) => x.stats))).length / pages;
}

/**
 * The same pages judged as the code did before blocks were sized (what "today's rate" means): every 3 hours joined
 * by their median (a week ranked in 56 blocks), the signed-rank interval over them at Holm's levels.
 */
export function falseVerdictPagesBefore(rho: number, pages: number): number {
  let wrong = 0;
  for (const page of nullPages(rho, pages)) {
    const joined = page.map((x) => threeHourMedians(x.blocks));
    const levels = holmLevels(joined.map((y) => signedRankPValue(y)));
    const called = joined.some((y, i) => {
      const hl = hodgesLehmann(y, levels[i]);
      return hl !== null && hl.low !== null && hl.high !== null && (hl.low > 0 || hl.high < 0);
    });
    if (called) wrong++;
  }
  return wrong / pages;
}

const OLD_BLOCK_HOURS = 3;
function threeHourMedians(blocks: readonly PairBlock[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < blocks.length; i += OLD_BLOCK_HOURS) {
    const group = blocks
      .slice(i, i + OLD_BLOCK_HOURS)
      .map((b) => b.d[0]!)
      .sort((x, y) => x - y);
    const mid = group.length >> 1;
    out.push(group.length % 2 === 1 ? group[mid] : (group[mid - 1] + group[mid]) / 2);
  }
  return out;
}
