/**
 * Distribution-free confidence interval of a percentile from order statistics: with n sorted samples,
 * the rank of the true q-quantile follows Binomial(n, q), so [x(l), x(u)] covers it with probability
 * P(l ≤ B < u), equal-tailed. Exact binomial up to EXACT_MAX_N, normal approximation above. `null` bounds mean the
 * sample is too small for a 95 % interval at that percentile (say p99 from 20 samples).
 */
import { interpolationRanks, percentileAt } from './percentile.ts';

export const CONFIDENCE = 0.95;
const Z_95 = 1.959963984540054;
const EXACT_MAX_N = 2_000;

export interface PercentileWithCi {
  value: number | null;
  ci_low: number | null;
  ci_high: number | null;
}

/** 1-based ranks [l, u] of the order statistics bounding the interval, or null when n is too small. */
export function ciRanks(n: number, q: number): [number, number] | null {
  if (n < 1) return null;
  if (n > EXACT_MAX_N) return normalRanks(n, q);
  // Groups of one window mostly hold the same count (every tick probed): each (n, q) is summed once an isolate.
  const key = `${n}|${q}`;
  let ranks = exactCache.get(key);
  if (ranks === undefined) {
    if (exactCache.size >= EXACT_CACHE_SIZE) exactCache.clear();
    exactCache.set(key, (ranks = exactRanks(n, q)));
  }
  return ranks === null ? null : [ranks[0], ranks[1]];
}

const EXACT_CACHE_SIZE = 4_096;
const exactCache = new Map<string, [number, number] | null>();

/** Empties the cache of exact ranks (a benchmark measuring the first read of new counts). */
export function forgetCiRanks(): void {
  exactCache.clear();
}

function normalRanks(n: number, q: number): [number, number] | null {
  const half = Z_95 * Math.sqrt(n * q * (1 - q));
  const l = Math.floor(n * q - half);
  const u = Math.ceil(n * q + half) + 1;
  return l < 1 || u > n ? null : [l, u];
}

/**
 * Binomial(n, q) probabilities for k = 0, 1, …: each term is the one before times (n − k + 1)/k ·
 * q/(1 − q), kept as v · e^logBase so that a large n stays finite. One multiplication a term, where
 * logarithms and an exponential a term, and an array of n, cost a long-window read (60 groups × 4
 * percentiles) milliseconds. Used as `for (const b = new BinomialTerms(n, q); b.k <= n; b.next())`.
 */
class BinomialTerms {
  k = 0;
  /** P(B = k). */
  p: number;
  private v = 1;
  private logBase: number;
  private factor: number;
  private readonly ratio: number;
  private readonly n: number;

  constructor(n: number, q: number) {
    this.n = n;
    this.ratio = q / (1 - q);
    // k = 0: (1 − q)^n.
    this.logBase = n * Math.log1p(-q);
    this.factor = Math.exp(this.logBase);
    this.p = this.factor;
  }

  next(): void {
    this.k++;
    this.v *= ((this.n - this.k + 1) / this.k) * this.ratio;
    if (this.v > 1e200) {
      this.v *= 1e-200;
      this.logBase += 200 * Math.LN10;
      this.factor = Math.exp(this.logBase);
    }
    this.p = this.v * this.factor;
  }
}

/**
 * The equal-tailed interval: B counts samples below the true quantile, and x(l) ≤ quantile < x(u)
 * iff l ≤ B ≤ u − 1. Take the largest l with P(B ≤ l − 1) ≤ 2.5 % and the smallest u with
 * P(B ≥ u) ≤ 2.5 %, so coverage is at least 95 %.
 */
function exactRanks(n: number, q: number): [number, number] | null {
  if (q <= 0 || q >= 1) return null;
  const tail = (1 - CONFIDENCE) / 2;
  let cdf = 0;
  let l = 0;
  let u = n + 1;
  for (const b = new BinomialTerms(n, q); b.k <= n; b.next()) {
    // cdf = P(B ≤ k − 1) here
    if (cdf <= tail) l = b.k;
    cdf += b.p;
    // cdf = P(B ≤ k): P(B ≥ k + 1) = 1 − cdf
    if (1 - cdf <= tail) {
      u = b.k + 1;
      break;
    }
  }
  return l < 1 || u > n ? null : [l, u];
}

/**
 * One end of the equal-tailed interval on its own, for a one-sided question ("is the whole interval
 * above x?") when the other end does not exist at this n: p99's lower bound exists from 3 samples,
 * its upper bound only from several hundred. 1-based rank, or null when n is too small.
 */
export function ciLowRank(n: number, q: number): number | null {
  if (n < 1 || q <= 0 || q >= 1) return null;
  const tail = (1 - CONFIDENCE) / 2;
  let cdf = 0;
  let l = 0;
  for (const b = new BinomialTerms(n, q); b.k <= n && cdf <= tail; b.next()) {
    l = b.k;
    cdf += b.p;
  }
  return l < 1 ? null : l;
}

export function ciHighRank(n: number, q: number): number | null {
  const low = ciLowRank(n, 1 - q);
  return low === null ? null : n + 1 - low;
}

/** Percentile (linear interpolation) with its 95 % order-statistic interval, from ascending values. */
export function percentileWithCi(sorted: ArrayLike<number>, q: number): PercentileWithCi {
  return percentileWithCiAt(sorted.length, q, (rank) => sorted[rank - 1]);
}

/** The same from only the order statistics it needs: `at(rank)` gives the rank-th smallest (1-based). */
export function percentileWithCiAt(n: number, q: number, at: (rank: number) => number): PercentileWithCi {
  const ranks = ciRanks(n, q);
  return { value: percentileAt(n, q, at), ci_low: ranks ? at(ranks[0]) : null, ci_high: ranks ? at(ranks[1]) : null };
}

/** Every 1-based rank percentileWithCiAt reads for n samples at q. */
export function ranksNeeded(n: number, q: number): number[] {
  if (n === 0) return [];
  return [...interpolationRanks(n, q), ...(ciRanks(n, q) ?? [])];
}

/** The smallest sample with a 95 % interval at percentile q (for p99, a few hundred samples). */
export function minSamplesForCi(q: number): number {
  let n = 1;
  while (ciRanks(n, q) === null && n < 100_000) n++;
  return n;
}
