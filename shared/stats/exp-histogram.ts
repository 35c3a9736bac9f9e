/**
 * A mergeable base-2 exponential histogram: the bucket layout of OpenTelemetry's ExponentialHistogram
 * and Prometheus native histograms. At scale s the base is 2^(2^-s); bucket i holds values in
 * (base^i, base^(i+1)]; values ≤ 0 go to the zero bucket. Estimating a value by the point of its
 * bucket nearest in relative terms, 2·base^(i+1)/(1+base), is off by at most (base−1)/(base+1):
 * at the scale used here, 0.54 %.
 *
 * Merging adds counts bucket by bucket, so any merge order gives the same histogram, and the
 * encoding is canonical (sorted buckets, the sum in integer microseconds), so the same bytes.
 */

import { writeVarint } from './varint.ts';

/** Scale 6: base 2^(1/64) ≈ 1.0109, relative error ≤ 0.54 % (MEASUREMENT.md asks ≤ 1 %). */
export const HISTOGRAM_SCALE = 6;
const BASE = 2 ** (2 ** -HISTOGRAM_SCALE);
/** The largest relative error of a value estimated from its bucket. */
export const HISTOGRAM_RELATIVE_ERROR = (BASE - 1) / (BASE + 1);
/** Sums are kept in integer units of this many ms, so adding them is exact in any order. */
const SUM_UNIT_MS = 0.001;
const FORMAT_VERSION = 1;

export interface ExpHistogram {
  scale: number;
  count: number;
  zeroCount: number;
  /** Sum of the values, in integer SUM_UNIT_MS units. */
  sumUnits: number;
  min: number;
  max: number;
  /** Bucket index → count; only non-empty buckets. */
  buckets: Map<number, number>;
}

export function emptyHistogram(): ExpHistogram {
  return { scale: HISTOGRAM_SCALE, count: 0, zeroCount: 0, sumUnits: 0, min: Infinity, max: -Infinity, buckets: new Map() };
}

/** The bucket of a positive value: the smallest i with value ≤ base^(i+1). */
export function bucketIndex(value: number): number {
  const log = Math.log2(value);
  const scaled = log * 2 ** HISTOGRAM_SCALE;
  let i = Math.ceil(scaled) - 1;
  // Math.log2 may land a hair off a boundary: settle the index on the exact bucket bounds.
  if (value > lowerBound(i + 1)) i++;
  else if (value <= lowerBound(i)) i--;
  return i;
}

/** base^i: the (exclusive) lower bound of bucket i. */
export function lowerBound(i: number): number {
  return 2 ** (i * 2 ** -HISTOGRAM_SCALE);
}

export function record(h: ExpHistogram, value: number): void {
  if (!Number.isFinite(value)) return;
  h.count++;
  h.sumUnits += Math.round(value / SUM_UNIT_MS);
  if (value < h.min) h.min = value;
  if (value > h.max) h.max = value;
  if (value <= 0) {
    h.zeroCount++;
    return;
  }
  const i = bucketIndex(value);
  h.buckets.set(i, (h.buckets.get(i) ?? 0) + 1);
}

export function histogramOf(values: Iterable<number>): ExpHistogram {
  const h = emptyHistogram();
  for (const v of values) record(h, v);
  return h;
}

/** a + b, bucket by bucket (neither is changed). */
export function merge(a: ExpHistogram, b: ExpHistogram): ExpHistogram {
  const buckets = new Map(a.buckets);
  for (const [i, n] of b.buckets) buckets.set(i, (buckets.get(i) ?? 0) + n);
  return {
    scale: HISTOGRAM_SCALE,
    count: a.count + b.count,
    zeroCount: a.zeroCount + b.zeroCount,
    sumUnits: a.sumUnits + b.sumUnits,
    min: Math.min(a.min, b.min),
    max: Math.max(a.max, b.max),
    buckets,
  };
}

/** Adds `from` into `into` in place (for summing many histograms without a copy per step); returns `into`. */
export function mergeInto(into: ExpHistogram, from: ExpHistogram): ExpHistogram {
  for (const [i, n] of from.buckets) into.buckets.set(i, (into.buckets.get(i) ?? 0) + n);
  into.count += from.count;
  into.zeroCount += from.zeroCount;
  into.sumUnits += from.sumUnits;
  into.min = Math.min(into.min, from.min);
  into.max = Math.max(into.max, from.max);
  return into;
}

/**
 * a − b, bucket by bucket, for b a part of a (an hour's old rollup taken out of a running total);
 * never below zero (a part counted before the total began is not there to take out). min and max
 * cannot be taken out: a's stay, so the result's counts, buckets and sum are exact but its extremes
 * may be stale: take no quantile of it (the running totals only feed counters and classic buckets).
 */
export function subtract(a: ExpHistogram, b: ExpHistogram): ExpHistogram {
  const buckets = new Map(a.buckets);
  let taken = 0;
  for (const [i, n] of b.buckets) {
    const have = buckets.get(i) ?? 0;
    const left = Math.max(have - n, 0);
    taken += have - left;
    if (left === 0) buckets.delete(i);
    else buckets.set(i, left);
  }
  const zeroCount = Math.max(a.zeroCount - b.zeroCount, 0);
  taken += a.zeroCount - zeroCount;
  const count = a.count - taken;
  return {
    ...a,
    count,
    zeroCount,
    sumUnits: Math.max(a.sumUnits - b.sumUnits, 0),
    min: count === 0 ? Infinity : a.min,
    max: count === 0 ? -Infinity : a.max,
    buckets,
  };
}

/** How many values are at most `bound`, counting a bucket by its upper bound (off by at most the one bucket that straddles it). */
export function countAtMost(h: ExpHistogram, bound: number): number {
  let n = bound >= 0 ? h.zeroCount : 0;
  for (const [i, c] of h.buckets) if (lowerBound(i + 1) <= bound) n += c;
  return n;
}

export function sumOf(h: ExpHistogram): number {
  return h.sumUnits * SUM_UNIT_MS;
}

/** The estimate of the value of rank k (0-based, ascending): its bucket's best point, kept within [min, max]; for non-negative data. */
function valueAtRank(h: ExpHistogram, sorted: Array<[number, number]>, k: number): number {
  // The extremes are kept exactly.
  if (k === 0) return h.min;
  if (k === h.count - 1) return h.max;
  if (k < h.zeroCount) return Math.min(0, h.max);
  let seen = h.zeroCount;
  for (const [i, n] of sorted) {
    seen += n;
    if (k < seen) {
      const estimate = (2 * lowerBound(i + 1)) / (1 + BASE);
      return Math.min(Math.max(estimate, h.min), h.max);
    }
  }
  return h.max;
}

/** `at(rank)`: the estimate of the rank-th smallest value (1-based), for reading several order statistics of one histogram. */
export function rankReader(h: ExpHistogram): (rank: number) => number {
  const sorted = [...h.buckets.entries()].sort((x, y) => x[0] - y[0]);
  return (rank) => valueAtRank(h, sorted, rank - 1);
}

/**
 * The q-quantile as exact percentiles define it (linear interpolation between closest ranks, numpy's
 * default), from bucket estimates of the two ranks around it: within HISTOGRAM_RELATIVE_ERROR of the
 * exact value for positive data. Null for an empty histogram.
 */
export function quantile(h: ExpHistogram, q: number): number | null {
  return h.count === 0 ? null : quantileAt(h.count, rankReader(h), q);
}

/** The q-quantile of `count` values from `at(rank)`, the estimate of the rank-th smallest (1-based). */
function quantileAt(count: number, at: (rank: number) => number, q: number): number | null {
  if (count === 0) return null;
  const rank = q * (count - 1);
  const lo = Math.floor(rank);
  const a = at(lo + 1);
  if (lo === rank) return a;
  const b = at(lo + 2);
  return a + (rank - lo) * (b - a);
}

/**
 * The JSON form the read API serves: OpenTelemetry's ExponentialHistogramDataPoint fields (scale,
 * count, zero_count, sum, min, max) with the positive buckets sparse, as [index, count] pairs in
 * index order; bucket `index` holds values in (base^index, base^(index+1)], base = 2^(2^-scale).
 */
export interface HistogramJson {
  scale: number;
  count: number;
  zero_count: number;
  sum: number;
  min: number | null;
  max: number | null;
  buckets: Array<[number, number]>;
}

export function histogramToJson(h: ExpHistogram): HistogramJson {
  return {
    scale: h.scale,
    count: h.count,
    zero_count: h.zeroCount,
    sum: sumOf(h),
    min: h.count ? h.min : null,
    max: h.count ? h.max : null,
    buckets: [...h.buckets.entries()].sort((x, y) => x[0] - y[0]),
  };
}

export function histogramFromJson(j: HistogramJson): ExpHistogram {
  if (j.scale !== HISTOGRAM_SCALE) throw new HistogramFormatError(`histogram scale ${j.scale}, expected ${HISTOGRAM_SCALE}`);
  const h = emptyHistogram();
  h.count = j.count;
  h.zeroCount = j.zero_count;
  h.sumUnits = Math.round(j.sum / SUM_UNIT_MS);
  if (j.count > 0) {
    h.min = j.min ?? Infinity;
    h.max = j.max ?? -Infinity;
  }
  for (const [i, c] of j.buckets) h.buckets.set(i, c);
  return h;
}

const zigzag = (n: number): number => (n >= 0 ? n * 2 : -n * 2 - 1);
const unzigzag = (n: number): number => (n % 2 === 0 ? n / 2 : -(n + 1) / 2);

/**
 * Canonical bytes: version, scale, count, zero count, sum (zigzag, so a negative value's sum fits),
 * min and max (float64, little-endian), then the non-empty buckets in index order as (gap from the
 * previous index, zigzag for the first; count) varint pairs. An empty histogram has no min or max.
 */
export function encodeHistogram(h: ExpHistogram): Uint8Array {
  const out: number[] = [FORMAT_VERSION, h.scale & 0xff];
  writeVarint(out, h.count);
  writeVarint(out, h.zeroCount);
  writeVarint(out, zigzag(h.sumUnits));
  if (h.count > 0) {
    const f = new DataView(new ArrayBuffer(16));
    f.setFloat64(0, h.min, true);
    f.setFloat64(8, h.max, true);
    for (let i = 0; i < 16; i++) out.push(f.getUint8(i));
  }
  const sorted = [...h.buckets.keys()].sort((x, y) => x - y);
  writeVarint(out, sorted.length);
  let previous = 0;
  for (const [k, i] of sorted.entries()) {
    writeVarint(out, k === 0 ? zigzag(i) : i - previous);
    writeVarint(out, h.buckets.get(i)!);
    previous = i;
  }
  return new Uint8Array(out);
}

export class HistogramFormatError extends Error {}

const SCRATCH_BYTES = new Uint8Array(16);
const SCRATCH = new DataView(SCRATCH_BYTES.buffer);
const endsEarly = () => new HistogramFormatError('histogram bytes end early');

export function decodeHistogram(bytes: Uint8Array): ExpHistogram {
  const h = emptyHistogram();
  readHistogram(bytes, h, (index, count) => h.buckets.set(index, count));
  return h;
}

/** What canonical bytes say besides the buckets. */
type HistogramHeader = Pick<ExpHistogram, 'count' | 'zeroCount' | 'sumUnits' | 'min' | 'max'>;

let cursorBytes: Uint8Array = new Uint8Array(0);
let cursor = 0;

/** The varint at readHistogram's cursor. */
function nextVarint(): number {
  let n = 0;
  let mult = 1;
  for (;;) {
    if (cursor >= cursorBytes.length) throw endsEarly();
    const b = cursorBytes[cursor++];
    n += (b & 0x7f) * mult;
    if (b < 0x80) return n;
    mult *= 0x80;
  }
}

/**
 * Reads canonical bytes (encodeHistogram): the header into `header`, each bucket to `bucket` in index
 * order; throws HistogramFormatError. A cursor in module state, not a reader per histogram: a long window
 * reads thousands.
 */
function readHistogram(bytes: Uint8Array, header: HistogramHeader, bucket: (index: number, count: number) => void): void {
  const end = bytes.length;
  if (end < 1) throw endsEarly();
  if (bytes[0] !== FORMAT_VERSION) throw new HistogramFormatError(`unknown histogram format ${bytes[0]}`);
  if (end < 2) throw endsEarly();
  const scale = bytes[1] > 127 ? bytes[1] - 256 : bytes[1];
  if (scale !== HISTOGRAM_SCALE) throw new HistogramFormatError(`histogram scale ${scale}, expected ${HISTOGRAM_SCALE}`);
  cursorBytes = bytes;
  cursor = 2;
  header.count = nextVarint();
  header.zeroCount = nextVarint();
  header.sumUnits = unzigzag(nextVarint());
  header.min = Infinity;
  header.max = -Infinity;
  if (header.count > 0) {
    if (cursor + 16 > end) throw endsEarly();
    // Through one scratch buffer: no copy and no view made per histogram.
    SCRATCH_BYTES.set(bytes.subarray(cursor, cursor + 16));
    header.min = SCRATCH.getFloat64(0, true);
    header.max = SCRATCH.getFloat64(8, true);
    cursor += 16;
  }
  const n = nextVarint();
  let index = 0;
  for (let k = 0; k < n; k++) {
    index = k === 0 ? unzigzag(nextVarint()) : index + nextVarint();
    bucket(index, nextVarint());
  }
  if (cursor !== end) throw new HistogramFormatError('trailing bytes after the histogram');
}

/** The header of the histogram HistogramSum.addEncoded is reading (one at a time). */
const READ_HEADER: HistogramHeader = { count: 0, zeroCount: 0, sumUnits: 0, min: Infinity, max: -Infinity };

/**
 * Many histograms summed into one: counts in a dense array over the bucket indices seen, so adding a
 * stored histogram reads its bytes straight into the sum, with no Map or object made per histogram (a
 * long window sums thousands). The same sum as `mergeInto` over the decoded histograms.
 */
export class HistogramSum {
  count = 0;
  zeroCount = 0;
  sumUnits = 0;
  min = Infinity;
  max = -Infinity;
  /** counts[k] is bucket `low + k`. */
  private counts = new Float64Array(0);
  private low = 0;
  private readonly bumpBucket = (index: number, count: number): void => this.bump(index, count);

  add(h: ExpHistogram): void {
    this.addHeader(h.count, h.zeroCount, h.sumUnits, h.min, h.max);
    for (const [i, n] of h.buckets) this.bump(i, n);
  }

  /** Adds a histogram in its canonical bytes (encodeHistogram); throws HistogramFormatError as decodeHistogram does. */
  addEncoded(bytes: Uint8Array): void {
    readHistogram(bytes, READ_HEADER, this.bumpBucket);
    this.addHeader(READ_HEADER.count, READ_HEADER.zeroCount, READ_HEADER.sumUnits, READ_HEADER.min, READ_HEADER.max);
  }

  /**
   * The q-quantile of the sum for each q, the very estimates `quantile` gives of `toHistogram()`, read from the dense
   * counts with no Map made: for a reader of a quantile or two of each of thousands of sums (the timeline: a point a
   * row).
   */
  quantiles(qs: readonly number[]): Array<number | null> {
    // The slack below the smallest value's bucket is empty: each walk starts there.
    const first = this.min > 0 ? bucketIndex(this.min) - this.low : 0;
    return qs.map((q) => quantileAt(this.count, (rank) => this.valueAtRank(rank - 1, first), q));
  }

  /** valueAtRank over the dense counts, walked up from counts[first]. */
  private valueAtRank(k: number, first: number): number {
    if (k === 0) return this.min;
    if (k === this.count - 1) return this.max;
    if (k < this.zeroCount) return Math.min(0, this.max);
    let seen = this.zeroCount;
    for (let j = first; j < this.counts.length; j++) {
      seen += this.counts[j];
      if (k < seen) return Math.min(Math.max((2 * lowerBound(this.low + j + 1)) / (1 + BASE), this.min), this.max);
    }
    return this.max;
  }

  /** Empties the sum, keeping its dense range: a reader summing group after group (the timeline) makes one sum, not one a group. */
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

  private addHeader(count: number, zeroCount: number, sumUnits: number, min: number, max: number): void {
    this.count += count;
    this.zeroCount += zeroCount;
    this.sumUnits += sumUnits;
    if (min < this.min) this.min = min;
    if (max > this.max) this.max = max;
  }

  private bump(i: number, n: number): void {
    let k = i - this.low;
    if (k < 0 || k >= this.counts.length) {
      this.cover(i);
      k = i - this.low;
    }
    this.counts[k] += n;
  }

  /** Widens the dense range to hold bucket i, with room on both sides (a figure's buckets lie within a few hundred). */
  private cover(i: number): void {
    const SLACK = 128;
    const from = this.counts.length === 0 ? i - SLACK : Math.min(this.low, i - SLACK);
    const to = this.counts.length === 0 ? i + SLACK : Math.max(this.low + this.counts.length, i + SLACK);
    const counts = new Float64Array(to - from);
    if (this.counts.length > 0) counts.set(this.counts, this.low - from);
    this.counts = counts;
    this.low = from;
  }
}
