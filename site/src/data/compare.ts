/**
 * Vendor comparison by scenario: expected total time = time to first answer token + (answer tokens − 1)
 * × TPOT, from the p50s of each, with an interval from their 95 % intervals. (The first answer token
 * is the first token except for reasoning models; callers pass TTFA percentiles.) This orders targets by
 * medians; whether one is faster than another is the paired comparison's verdict (data/paired.ts), not these
 * intervals'.
 */
import type { PercentileGroup } from './types.ts';
import { expectedTime } from '../../../shared/price/workload-cost.ts';

export { SCENARIOS, type Scenario } from '../../../shared/config/scenarios.ts';

export interface Expected {
  target: string;
  total: number;
  low: number | null;
  high: number | null;
  ttft_n: number;
  tpot_n: number;
}

/** Expected total for one output length, or null when a figure is missing (shared/price/workload-cost.ts, the one definition). */
export function expectedTotal(ttft: PercentileGroup | undefined, tpot: PercentileGroup | undefined, tokens: number): Expected | null {
  const t = expectedTime(ttft, tpot, tokens);
  if (!t) return null;
  return { target: ttft!.target!, total: t.ms, low: t.low_ms, high: t.high_ms, ttft_n: ttft!.n, tpot_n: tpot!.n };
}

export interface Ranked extends Expected {
  rank: number;
}

/** The entries in order of their expected totals (medians), ranked from 1. */
export function rank(entries: Expected[]): Ranked[] {
  return [...entries].sort((a, b) => a.total - b.total).map((e, i) => ({ ...e, rank: i + 1 }));
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

/** A flip in words: where the medians' expected totals cross (whether either is faster is the paired verdict's to say). */
export function flipSentence(flip: { tokens: number; from: string; to: string }): string {
  return `${flip.from} → ${flip.to} at about ${flip.tokens.toLocaleString('en-US')} tokens`;
}
