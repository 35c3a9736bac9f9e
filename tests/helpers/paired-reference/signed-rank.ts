// A reading-only copy of the code before the paired speed-up (commit cf35aa9); see tests/helpers/paired-reference.ts.
/**
 * The null distribution of the Wilcoxon signed-rank statistic T over m blocks (T = the number of Walsh
 * averages above the true shift), and the two things read from it: the rank of the interval's bounds and the
 * p-value. Both go through one function, `signedRankLowerTail`, so a p-value ≤ α exactly when the 1 − α
 * interval leaves the tested value out. Exact (the distribution counted) up to EXACT_MAX_BLOCKS, the normal
 * approximation with continuity correction beyond.
 */
import { normalCdf } from '../../../shared/stats/normal.ts';

/** Up to this many blocks the signed-rank distribution is counted exactly. */
export const EXACT_MAX_BLOCKS = 80;

/**
 * P(T ≤ t) for each t, per m, counted once an isolate: the counts for m follow from those for m − 1 in one pass
 * (a sign for rank m added), so every m up to the largest asked costs about as much as that one alone.
 */
const lowerTails: Float64Array[] = [];
let counts = Float64Array.of(1);

function lowerTailsOf(m: number): Float64Array {
  for (let r = lowerTails.length; r <= m; r++) {
    if (r > 0) {
      const max = (r * (r + 1)) / 2;
      const next = new Float64Array(max + 1);
      next.set(counts);
      for (let t = r; t <= max; t++) next[t] += counts[t - r];
      counts = next;
    }
    // The lower half only: the distribution is symmetric about M/2.
    const total = 2 ** r;
    const cum = new Float64Array(Math.floor((counts.length - 1) / 2) + 1);
    let sum = 0;
    for (let t = 0; t < cum.length; t++) cum[t] = (sum += counts[t]) / total;
    lowerTails.push(cum);
  }
  return lowerTails[m];
}

/** P(T ≤ t) under no shift, for m blocks (M = m(m+1)/2 Walsh averages). */
export function signedRankLowerTail(m: number, t: number): number {
  const M = (m * (m + 1)) / 2;
  if (t < 0) return 0;
  if (t >= M) return 1;
  if (m <= EXACT_MAX_BLOCKS) {
    const tails = lowerTailsOf(m);
    const at = Math.floor(t);
    // P(T ≤ t) = 1 − P(T ≤ M − t − 1) by symmetry.
    return at < tails.length ? tails[at] : 1 - tails[M - at - 1];
  }
  return normalCdf((Math.floor(t) + 0.5 - M / 2) / signedRankSd(m));
}

const signedRankSd = (m: number) => Math.sqrt((m * (m + 1) * (2 * m + 1)) / 24);

/**
 * k such that [W(k), W(M+1−k)] of the M sorted Walsh averages is the signed-rank interval at `confidence`
 * (1-based): one more than the largest t with P(T ≤ t) ≤ α/2. Null when m blocks are too few for that confidence.
 */
export function intervalRank(m: number, confidence: number): number | null {
  const key = `${m}|${confidence}`;
  let k = rankCache.get(key);
  if (k === undefined) {
    if (rankCache.size > 4_096) rankCache.clear();
    rankCache.set(key, (k = computeIntervalRank(m, confidence)));
  }
  return k;
}

const rankCache = new Map<string, number | null>();

function computeIntervalRank(m: number, confidence: number): number | null {
  if (m < 1) return null;
  const half = (1 - confidence) / 2;
  const M = (m * (m + 1)) / 2;
  if (signedRankLowerTail(m, 0) > half) return null;
  // The largest t with P(T ≤ t) ≤ α/2, by halving [0, M/2] (the tail only grows with t; past M/2 it exceeds 1/2).
  let lo = 0;
  let hi = Math.floor(M / 2);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (signedRankLowerTail(m, mid) <= half) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** The fewest blocks with which the signed-rank interval exists at `confidence` (6 at 95 %). */
export function minimumBlocks(confidence: number): number {
  for (let m = 1; m <= 200; m++) if (intervalRank(m, confidence) !== null) return m;
  return Infinity;
}

/**
 * The two-sided p-value of no shift from the Walsh averages' counts: `atMost` of them ≤ 0 and `atLeast` ≥ 0
 * (one at exactly 0 counts on both sides). The smallest α at which the 1 − α interval leaves 0 out.
 */
export function signedRankPFromCounts(m: number, atMost: number, atLeast: number): number {
  if (m === 0) return 1;
  return Math.min(1, 2 * signedRankLowerTail(m, Math.min(atMost, atLeast)));
}
