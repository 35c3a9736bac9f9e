/**
 * Vendor comparison by scenario: expected total time = time to first answer token + (answer tokens − 1)
 * × TPOT, from the p50s of each, with an interval from their 95 % intervals. (The first answer token
 * is the first token except for reasoning models; callers pass TTFA percentiles.) A target is faster than another only
 * when the intervals do not overlap; otherwise they are tied at this sample size.
 */
import type { PercentileGroup } from './types.ts';

export interface Scenario {
  id: string;
  label: string;
  minTokens: number;
  maxTokens: number;
}

/** The scenarios of the field, by output length. */
export const SCENARIOS: Scenario[] = [
  { id: 'code', label: 'Code completion', minTokens: 5, maxTokens: 30 },
  { id: 'chat', label: 'Chat reply', minTokens: 20, maxTokens: 80 },
  { id: 'summary', label: 'Summary', minTokens: 300, maxTokens: 1_000 },
  { id: 'batch', label: 'Batch generation', minTokens: 500, maxTokens: 2_000 },
];

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
