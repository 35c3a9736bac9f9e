/**
 * Vendor comparison by scenario: expected total time = time to first answer token + (answer tokens − 1)
 * × TPOT, from the p50s of each, with an interval from their 95 % intervals. (The first answer token
 * is the first token except for reasoning models; callers pass TTFA percentiles.) A target is faster than another only
 * when the intervals do not overlap; otherwise they are tied at this sample size.
 */
import type { PercentileGroup } from './types.ts';

export { SCENARIOS, type Scenario } from '../../../shared/config/scenarios.ts';

export interface Expected {
  target: string;
  total: number;
  low: number | null;
  high: number | null;
  ttft_n: number;
  tpot_n: number;
}

/** Expected total for one output length, or null when a figure is missing. */
export function expectedTotal(ttft: PercentileGroup | undefined, tpot: PercentileGroup | undefined, tokens: number): Expected | null {
  if (!ttft || !tpot || ttft.p50 === null || tpot.p50 === null) return null;
  const k = tokens - 1;
  const bounded = ttft.p50_ci_low !== null && ttft.p50_ci_high !== null && tpot.p50_ci_low !== null && tpot.p50_ci_high !== null;
  return {
    target: ttft.target!,
    total: ttft.p50 + k * tpot.p50,
    low: bounded ? ttft.p50_ci_low! + k * tpot.p50_ci_low! : null,
    high: bounded ? ttft.p50_ci_high! + k * tpot.p50_ci_high! : null,
    ttft_n: ttft.n,
    tpot_n: tpot.n,
  };
}

export interface Ranked extends Expected {
  rank: number;
  /** 'faster' than the next one, 'tied' with it (overlapping or missing intervals), or null for the last. */
  versus_next: 'faster' | 'tied' | null;
}

export function rank(entries: Expected[]): Ranked[] {
  const sorted = [...entries].sort((a, b) => a.total - b.total);
  return sorted.map((e, i) => {
    const next = sorted[i + 1];
    const faster = next !== undefined && e.high !== null && next.low !== null && e.high < next.low;
    return { ...e, rank: i + 1, versus_next: next === undefined ? null : faster ? 'faster' : 'tied' };
  });
}

/** Output length (tokens) at which two targets' expected totals cross, when it lies in [1, maxTokens]. */
export function crossover(a: { ttft: number; tpot: number }, b: { ttft: number; tpot: number }, maxTokens: number): number | null {
  if (a.tpot === b.tpot) return null;
  const n = 1 + (b.ttft - a.ttft) / (a.tpot - b.tpot);
  return n >= 1 && n <= maxTokens ? n : null;
}

/** The lengths compared when looking for a flip: 1 to FLIP_MAX_TOKENS tokens, 5 % apart. */
export const FLIP_MAX_TOKENS = 2_000;
export function flipGrid(max = FLIP_MAX_TOKENS): number[] {
  const grid: number[] = [];
  for (let n = 1; n <= max; n = Math.ceil(n * 1.05)) grid.push(n);
  if (grid.at(-1) !== max) grid.push(max);
  return grid;
}

/** Whether two expected totals' intervals overlap (tied), separate, or cannot say (an interval missing). */
export function overlap(a: Expected, b: Expected): 'tied' | 'separate' | 'unknown' {
  if (a.low === null || a.high === null || b.low === null || b.high === null) return 'unknown';
  return a.low <= b.high && b.low <= a.high ? 'tied' : 'separate';
}

/**
 * How sure a flip is: around the length where two targets' expected totals cross, the band of lengths
 * (on the flip grid) over which their 95 % intervals overlap, the same tie rule as the rankings. Null
 * when an interval is missing (too few samples to say).
 */
export function tieBandAround(at: number, totalsAt: (n: number) => [Expected, Expected]): { from: number; to: number } | null {
  const grid = flipGrid();
  let i = grid.findIndex((n) => n >= at);
  if (i < 0) i = grid.length - 1;
  const state = (n: number) => overlap(...totalsAt(n));
  if (state(grid[i]) === 'unknown') return null;
  let lo = i;
  let hi = i;
  while (lo > 0 && state(grid[lo - 1]) === 'tied') lo--;
  while (hi < grid.length - 1 && state(grid[hi + 1]) === 'tied') hi++;
  if (state(grid[i]) !== 'tied') return { from: Math.round(at), to: Math.round(at) };
  return { from: grid[lo], to: grid[hi] };
}

/** A flip in words, interval-aware: where the point estimates cross, and over which lengths the two are in fact tied. */
export function flipSentence(flip: { tokens: number; from: string; to: string; band: { from: number; to: number } | null }): string {
  const head = `${flip.from} → ${flip.to} at about ${flip.tokens.toLocaleString('en-US')} tokens`;
  if (flip.band === null) return `${head} (medians only: too few samples for intervals, so the flip is not established)`;
  if (flip.band.from <= 1 && flip.band.to >= FLIP_MAX_TOKENS)
    return `${head}, but their 95 % intervals overlap at every length up to ${FLIP_MAX_TOKENS.toLocaleString('en-US')} tokens: tied throughout at this sample size`;
  if (flip.band.from === flip.band.to) return `${head} (their 95 % intervals separate on both sides)`;
  return `${head}; from ${flip.band.from.toLocaleString('en-US')} to ${flip.band.to.toLocaleString('en-US')} tokens their 95 % intervals overlap, so there the two are tied at this sample size`;
}
