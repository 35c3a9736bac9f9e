/**
 * Order statistics of the Walsh averages (y_i + y_j) / 2, i ≤ j, of m sorted values, without making all
 * M = m(m+1)/2 of them: counting those below a value takes one pass (two pointers), so the k-th smallest is
 * found by narrowing a range of values that holds it (by values interpolated from the counts, halving when they
 * narrow it too little) until few candidates remain, then sorting only those. O(m log m) and exact: every
 * comparison reads the average computed the same way, so the counts and the value agree, and any range that holds
 * the k-th gives the same value.
 */

const walsh = (y: Float64Array, i: number, j: number) => (y[i] + y[j]) / 2;

/** #{i ≤ j : w_ij ≤ v}, or #{w_ij < v} when `strict`; `y` ascending. */
export function walshCount(y: Float64Array, v: number, strict = false): number {
  const m = y.length;
  let count = 0;
  let j = m - 1;
  for (let i = 0; i < m; i++) {
    // The last j ≥ i whose average is within v only moves left as i grows.
    while (j >= i && (strict ? walsh(y, i, j) >= v : walsh(y, i, j) > v)) j--;
    if (j < i) break;
    count += j - i + 1;
  }
  return count;
}

/** Candidates sorted outright once the range holds no more than this many per value. */
const ENUMERATE_PER_VALUE = 1;

/** The k-th smallest Walsh average (1-based) of `y` (ascending, not empty). */
export function walshOrderStatistic(y: Float64Array, k: number): number {
  return walshOrderStatistics(y, k, false);
}

/**
 * The k-th smallest Walsh average, and with `next` the (k+1)-th added to it (the median's two middle ones, halved by
 * the caller): from the same candidates when they hold both.
 */
function walshOrderStatistics(y: Float64Array, k: number, next: boolean): number {
  const m = y.length;
  const M = (m * (m + 1)) / 2;
  if (k < 1 || k > M || (next && k + 1 > M)) throw new RangeError(`Walsh rank ${k} is outside 1..${M}`);
  // The answer lies in [lo, hi]: fewer than k averages are below lo, at least k are at most hi. Any such range gives
  // the same answer (the one sort of its candidates orders equal averages alike, −0 before +0), so how it narrows is
  // free: by two values read off the ranks as if spread evenly over it, on both sides of the k-th, and by halving
  // when they narrow it by less than half.
  let lo = y[0];
  let hi = y[m - 1];
  let below = 0;
  let atMostHi = M;
  const probe = (v: number) => {
    if (!(v > lo && v < hi)) return;
    countBoth(y, v);
    if (atMostV < k) {
      lo = v;
      below = belowV;
    } else if (belowV >= k) {
      hi = v;
      atMostHi = atMostV;
    } else {
      // The k-th is v itself: the range [v, v] holds it and its equals.
      lo = v;
      hi = v;
      below = belowV;
      atMostHi = atMostV;
    }
  };
  for (;;) {
    const within = atMostHi - below;
    const mid = lo + (hi - lo) / 2;
    if (within <= ENUMERATE_PER_VALUE * m || mid <= lo || mid >= hi) {
      const n = walshBetween(y, lo, hi);
      const sorted = scratch.subarray(0, n).sort();
      const at = sorted[k - below - 1];
      if (!next) return at;
      // The (k+1)-th is the next candidate, or else above hi: the smallest average above it.
      return k - below < n ? at + sorted[k - below] : at + walshOrderStatistics(y, k + 1, false);
    }
    // How many ranks each side of the k-th the probes aim at: wide enough that both land on their side of it most
    // times, narrow enough to leave about m candidates (the widths fastest at m = 56 and 166 on this project's machine).
    const margin = Math.max(m / 8, within / 32);
    const width = hi - lo;
    const rank = k - below;
    const from = lo;
    if (rank - margin > 0) probe(from + (width * (rank - margin)) / within);
    if (rank + margin < within) probe(from + (width * (rank + margin)) / within);
    if (2 * (atMostHi - below) > within) probe(lo + (hi - lo) / 2);
  }
}

let atMostV = 0;
let belowV = 0;

/** #{w_ij ≤ v} into atMostV and #{w_ij < v} into belowV, in one pass; `y` ascending. */
function countBoth(y: Float64Array, v: number): void {
  const m = y.length;
  let le = 0;
  let lt = 0;
  let j = m - 1;
  let s = m - 1;
  for (let i = 0; i < m; i++) {
    while (j >= i && (y[i] + y[j]) / 2 > v) j--;
    if (j < i) break;
    le += j - i + 1;
    if (s > j) s = j;
    while (s >= i && (y[i] + y[s]) / 2 >= v) s--;
    if (s >= i) lt += s - i + 1;
  }
  atMostV = le;
  belowV = lt;
}

let scratch = new Float64Array(64);

/** Every Walsh average in [lo, hi], into the scratch (unsorted); returns how many. */
function walshBetween(y: Float64Array, lo: number, hi: number): number {
  const m = y.length;
  let n = 0;
  // For each i, the j ≥ i with lo ≤ w_ij ≤ hi form a run [first, last] that only moves left as i grows.
  let first = m - 1;
  let last = m - 1;
  for (let i = 0; i < m; i++) {
    while (last >= i && walsh(y, i, last) > hi) last--;
    if (last < i) break;
    if (first < i) first = i;
    while (first > i && walsh(y, i, first - 1) >= lo) first--;
    while (first <= last && walsh(y, i, first) < lo) first++;
    if (n + last - first + 1 > scratch.length) {
      const more = new Float64Array(Math.max(2 * scratch.length, n + last - first + 1));
      more.set(scratch.subarray(0, n));
      scratch = more;
    }
    for (let j = first; j <= last; j++) scratch[n++] = walsh(y, i, j);
  }
  return n;
}

/** The median of the Walsh averages: the Hodges–Lehmann estimate of the shift. */
export function walshMedian(y: Float64Array): number {
  const M = (y.length * (y.length + 1)) / 2;
  return M % 2 === 1 ? walshOrderStatistic(y, (M + 1) / 2) : walshOrderStatistics(y, M / 2, true) / 2;
}
