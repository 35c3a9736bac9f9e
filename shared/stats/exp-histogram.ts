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

/** Scale 6: base 2^(1/64) ≈ 1.0109, relative error ≤ 0.54 % (MEASUREMENT.md asks ≤ 1 %). */
export const HISTOGRAM_SCALE = 6;
const BASE = 2 ** (2 ** -HISTOGRAM_SCALE);
/** The largest relative error of a value estimated from its bucket. */
export const HISTOGRAM_RELATIVE_ERROR = (BASE - 1) / (BASE + 1);
/** Sums are kept in integer units of this many ms, so adding them is exact in any order. */
const SUM_UNIT_MS = 0.001;

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

export function sumOf(h: Pick<ExpHistogram, 'sumUnits'>): number {
  return h.sumUnits * SUM_UNIT_MS;
}

/** A value of bucket i estimated by the bucket's point nearest in relative terms (the module's comment). */
export function bucketEstimate(i: number): number {
  return (2 * lowerBound(i + 1)) / (1 + BASE);
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
    if (k < seen) return Math.min(Math.max(bucketEstimate(i), h.min), h.max);
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
export function quantileAt(count: number, at: (rank: number) => number, q: number): number | null {
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

/** Refused histogram bytes or JSON (histogram-bytes.ts reads the bytes). */
export class HistogramFormatError extends Error {}
