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
  return n <= EXACT_MAX_N ? exactRanks(n, q) : normalRanks(n, q);
}

function normalRanks(n: number, q: number): [number, number] | null {
  const half = Z_95 * Math.sqrt(n * q * (1 - q));
  const l = Math.floor(n * q - half);
  const u = Math.ceil(n * q + half) + 1;
  return l < 1 || u > n ? null : [l, u];
}

/** Binomial pmf for k = 0..n, computed in log space so large n stays finite. */
function binomialPmf(n: number, q: number): Float64Array {
  const pmf = new Float64Array(n + 1);
  const logQ = Math.log(q);
  const log1Q = Math.log1p(-q);
  let logCoeff = 0;
  for (let k = 0; k <= n; k++) {
    if (k > 0) logCoeff += Math.log(n - k + 1) - Math.log(k);
    pmf[k] = Math.exp(logCoeff + k * logQ + (n - k) * log1Q);
  }
  return pmf;
}

/**
 * The equal-tailed interval: B counts samples below the true quantile, and x(l) ≤ quantile < x(u)
 * iff l ≤ B ≤ u − 1. Take the largest l with P(B ≤ l − 1) ≤ 2.5 % and the smallest u with
 * P(B ≥ u) ≤ 2.5 %, so coverage is at least 95 %.
 */
function exactRanks(n: number, q: number): [number, number] | null {
  if (q <= 0 || q >= 1) return null;
  const pmf = binomialPmf(n, q);
  const tail = (1 - CONFIDENCE) / 2;
  let cdf = 0;
  let l = 0;
  let u = n + 1;
  for (let k = 0; k <= n; k++) {
    // cdf = P(B ≤ k − 1) here
    if (cdf <= tail) l = k;
    cdf += pmf[k];
    // cdf = P(B ≤ k): P(B ≥ k + 1) = 1 − cdf
    if (1 - cdf <= tail) {
      u = k + 1;
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
  const pmf = binomialPmf(n, q);
  const tail = (1 - CONFIDENCE) / 2;
  let cdf = 0;
  let l = 0;
  for (let k = 0; k <= n && cdf <= tail; k++) {
    l = k;
    cdf += pmf[k];
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
