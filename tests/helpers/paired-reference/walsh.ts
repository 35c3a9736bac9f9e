// A reading-only copy of the code before the paired speed-up (commit cf35aa9); see tests/helpers/paired-reference.ts.
/**
 * Order statistics of the Walsh averages (y_i + y_j) / 2, i ≤ j, of m sorted values, without making all
 * M = m(m+1)/2 of them: counting those below a value takes one pass (two pointers), so the k-th smallest is
 * found by halving the range of values until few candidates remain, then sorting only those. O(m log m) and
 * exact: every comparison reads the average computed the same way, so the counts and the value agree.
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
const ENUMERATE_PER_VALUE = 2;

/** The k-th smallest Walsh average (1-based) of `y` (ascending, not empty). */
export function walshOrderStatistic(y: Float64Array, k: number): number {
  const m = y.length;
  const M = (m * (m + 1)) / 2;
  if (k < 1 || k > M) throw new RangeError(`Walsh rank ${k} is outside 1..${M}`);
  // The answer lies in [lo, hi]: fewer than k averages are below lo, at least k are at most hi.
  let lo = y[0];
  let hi = y[m - 1];
  let below = 0;
  for (;;) {
    const within = walshCount(y, hi) - below;
    const mid = lo + (hi - lo) / 2;
    if (within <= ENUMERATE_PER_VALUE * m || mid <= lo || mid >= hi) return walshBetween(y, lo, hi)[k - below - 1];
    const atMostMid = walshCount(y, mid);
    if (atMostMid >= k) hi = mid;
    else {
      lo = mid;
      below = walshCount(y, mid, true);
    }
  }
}

/** Every Walsh average in [lo, hi], sorted. */
function walshBetween(y: Float64Array, lo: number, hi: number): Float64Array {
  const m = y.length;
  const out: number[] = [];
  // For each i, the j ≥ i with lo ≤ w_ij ≤ hi form a run [first, last] that only moves left as i grows.
  let first = m - 1;
  let last = m - 1;
  for (let i = 0; i < m; i++) {
    while (last >= i && walsh(y, i, last) > hi) last--;
    if (last < i) break;
    if (first < i) first = i;
    while (first > i && walsh(y, i, first - 1) >= lo) first--;
    while (first <= last && walsh(y, i, first) < lo) first++;
    for (let j = first; j <= last; j++) out.push(walsh(y, i, j));
  }
  return Float64Array.from(out).sort();
}

/** The median of the Walsh averages: the Hodges–Lehmann estimate of the shift. */
export function walshMedian(y: Float64Array): number {
  const M = (y.length * (y.length + 1)) / 2;
  return M % 2 === 1 ? walshOrderStatistic(y, (M + 1) / 2) : (walshOrderStatistic(y, M / 2) + walshOrderStatistic(y, M / 2 + 1)) / 2;
}
