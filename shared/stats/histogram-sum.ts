/**
 * Many exponential histograms summed into one dense array: counts[k] is bucket `low + k`, over the
 * range of indices seen, so adding a stored histogram (its canonical bytes, added as they are read by
 * histogram-bytes.ts addEncodedInto) makes no Map or object per histogram or per bucket: a long window
 * sums thousands. Order statistics are read from the dense counts by a cumulative scan, giving exactly
 * what `rankReader` gives over the same histograms merged (`mergeInto`), bucket for bucket.
 *
 * Why dense: a figure's buckets over any window lie within a few hundred indices (a factor of 2 is 64
 * buckets), so a dense array of them is a few kilobytes, and adding to it costs an index subtraction a
 * bucket, where a Map costs a hash and, for a new bucket, an entry (bench/duties.ts measures today's
 * sum beside the one before issue 33, in one run).
 */
import { bucketEstimate, emptyHistogram, HistogramFormatError, quantileAt, type ExpHistogram } from './exp-histogram.ts';
import { addEncodedInto, BUCKET_INDEX_LIMIT, type DenseCounts, type HistogramHeader } from './histogram-bytes.ts';

/** Room left on each side of the indices first seen, so a later histogram's few outliers rarely make it grow. */
const SLACK_BUCKETS = 128;
const NO_COUNTS = new Float64Array(0);

export class HistogramSum implements DenseCounts {
  count = 0;
  zeroCount = 0;
  sumUnits = 0;
  min = Infinity;
  max = -Infinity;
  /** counts[k] is bucket `low + k` (written by addEncodedInto). */
  counts = NO_COUNTS;
  low = 0;

  add(h: ExpHistogram): void {
    this.addHeader(h);
    for (const [i, n] of h.buckets) {
      if (i < this.low || i >= this.low + this.counts.length) this.cover(i, i);
      this.counts[i - this.low] += n;
    }
  }

  /** Adds another sum (the same as adding every histogram it holds). */
  addSum(other: HistogramSum): void {
    this.addHeader(other);
    const n = other.counts.length;
    if (n === 0) return;
    if (other.low < this.low || other.low + n > this.low + this.counts.length) this.cover(other.low, other.low + n - 1);
    const offset = other.low - this.low;
    for (let k = 0; k < n; k++) if (other.counts[k] !== 0) this.counts[offset + k] += other.counts[k];
  }

  /**
   * Adds a histogram in its canonical bytes (encodeHistogram) in bytes[start, end); throws
   * HistogramFormatError as decodeHistogram does (after which the sum is to be thrown away).
   */
  addEncoded(bytes: Uint8Array, start = 0, end = bytes.length): void {
    addEncodedInto(this, bytes, start, end);
  }

  /**
   * The q-quantile of the sum for each q: the very estimates `quantile` gives of `toHistogram()`, read from the dense
   * counts with no Map made (the timeline reads two of each of thousands of sums: a point a row).
   */
  quantiles(qs: readonly number[]): Array<number | null> {
    const at = this.rankReader();
    return qs.map((q) => quantileAt(this.count, at, q));
  }

  /** Empties the sum, keeping its counts' room (a reader that sums group after group). */
  clear(): void {
    this.count = 0;
    this.zeroCount = 0;
    this.sumUnits = 0;
    this.min = Infinity;
    this.max = -Infinity;
    this.counts.fill(0);
  }

  /** The sum as a histogram (one Map, made once). */
  toHistogram(): ExpHistogram {
    const h = emptyHistogram();
    Object.assign(h, { count: this.count, zeroCount: this.zeroCount, sumUnits: this.sumUnits, min: this.min, max: this.max });
    for (let k = 0; k < this.counts.length; k++) if (this.counts[k] !== 0) h.buckets.set(this.low + k, this.counts[k]);
    return h;
  }

  /**
   * `at(rank)`: the estimate of the rank-th smallest value (1-based), as `rankReader(this.toHistogram())`
   * gives it, without the Map: the counts' running sums made once, each rank found in them by bisection.
   */
  rankReader(): (rank: number) => number {
    const { count, zeroCount, min, max, low } = this;
    let cumulative: Float64Array | undefined;
    return (rank) => {
      const k = rank - 1;
      // The extremes are kept exactly; then the zero bucket; then the positive buckets in index order.
      if (k === 0) return min;
      if (k === count - 1) return max;
      if (k < zeroCount) return Math.min(0, max);
      cumulative ??= this.runningSums();
      // The first bucket whose running sum passes k holds rank k (an empty bucket never passes first: its sum is its predecessor's).
      let lo = 0;
      let hi = cumulative.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (cumulative[mid] > k) hi = mid;
        else lo = mid + 1;
      }
      if (lo === cumulative.length) return max;
      return Math.min(Math.max(bucketEstimate(low + lo), min), max);
    };
  }

  /** zeroCount plus the counts of every bucket up to each: exact, as counts are integers below 2^53. */
  private runningSums(): Float64Array {
    const sums = new Float64Array(this.counts.length);
    let seen = this.zeroCount;
    for (let k = 0; k < sums.length; k++) sums[k] = seen += this.counts[k];
    return sums;
  }

  addHeader(h: HistogramHeader): void {
    this.count += h.count;
    this.zeroCount += h.zeroCount;
    this.sumUnits += h.sumUnits;
    if (h.min < this.min) this.min = h.min;
    if (h.max > this.max) this.max = h.max;
  }

  /** Widens the dense range to hold buckets from..to, with SLACK_BUCKETS of room on each side. */
  cover(from: number, to: number): void {
    if (!(from >= -BUCKET_INDEX_LIMIT && to <= BUCKET_INDEX_LIMIT))
      throw new HistogramFormatError(`histogram bucket index out of range: ${from}..${to}`);
    const empty = this.counts.length === 0;
    const low = empty ? from - SLACK_BUCKETS : Math.min(this.low, from - SLACK_BUCKETS);
    const high = empty ? to + 1 + SLACK_BUCKETS : Math.max(this.low + this.counts.length, to + 1 + SLACK_BUCKETS);
    const counts = new Float64Array(high - low);
    if (!empty) counts.set(this.counts, this.low - low);
    this.counts = counts;
    this.low = low;
  }
}
