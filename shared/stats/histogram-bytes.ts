/**
 * The canonical bytes of an exponential histogram (exp-histogram.ts), as D1 stores them and the read API
 * serves them (`histograms=base64`), and the two readers of them: into flat arrays (decoding, /metrics),
 * and straight into a dense sum (merging a window: most of a long-window request's CPU, bench/duties.ts).
 */
import { HISTOGRAM_SCALE, HistogramFormatError, type ExpHistogram } from './exp-histogram.ts';
import { writeVarint } from './varint.ts';

const FORMAT_VERSION = 1;

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

const SCRATCH_BYTES = new Uint8Array(16);
const SCRATCH = new DataView(SCRATCH_BYTES.buffer);
const endsEarly = () => new HistogramFormatError('histogram bytes end early');
const outOfOrder = () => new HistogramFormatError('histogram buckets out of order');
/**
 * Every finite positive double lies in (2^-1075, 2^1024], so its bucket index within ±1100 · 2^scale: an
 * index beyond is broken bytes, refused before a dense sum would make room for it.
 */
export const BUCKET_INDEX_LIMIT = 1100 * 2 ** HISTOGRAM_SCALE;
const indexInRange = (i: number): boolean => i >= -BUCKET_INDEX_LIMIT && i <= BUCKET_INDEX_LIMIT;

/** What canonical bytes say besides the buckets. */
export type HistogramHeader = Pick<ExpHistogram, 'count' | 'zeroCount' | 'sumUnits' | 'min' | 'max'>;

/**
 * A histogram's canonical bytes as readEncoded leaves them: the header, and its non-empty buckets as two
 * flat arrays in index order (indices[k] holds counts[k], k < n). One object for every read, valid until the next.
 */
export interface EncodedBuckets extends HistogramHeader {
  n: number;
  indices: Int32Array;
  counts: Float64Array;
}

const READ: EncodedBuckets = {
  count: 0,
  zeroCount: 0,
  sumUnits: 0,
  min: Infinity,
  max: -Infinity,
  n: 0,
  indices: new Int32Array(256),
  counts: new Float64Array(256),
};

/** Where the buckets start, after readHeader. */
let cursor = 0;

/**
 * Reads the header of bytes[start, end) into READ; returns how many buckets follow, from `cursor`. Its
 * varints are read like the buckets' (below), a read past `end` caught once, before the buckets.
 */
function readHeader(bytes: Uint8Array, start: number, end: number): number {
  if (end - start < 1) throw endsEarly();
  if (bytes[start] !== FORMAT_VERSION) throw new HistogramFormatError(`unknown histogram format ${bytes[start]}`);
  if (end - start < 2) throw endsEarly();
  const scale = bytes[start + 1] > 127 ? bytes[start + 1] - 256 : bytes[start + 1];
  if (scale !== HISTOGRAM_SCALE) throw new HistogramFormatError(`histogram scale ${scale}, expected ${HISTOGRAM_SCALE}`);
  let p = start + 2;
  let b = bytes[p++];
  let count = b & 0x7f;
  for (let mult = 0x80; b >= 0x80; mult *= 0x80) count += ((b = bytes[p++]) & 0x7f) * mult;
  b = bytes[p++];
  let zeroCount = b & 0x7f;
  for (let mult = 0x80; b >= 0x80; mult *= 0x80) zeroCount += ((b = bytes[p++]) & 0x7f) * mult;
  b = bytes[p++];
  let sum = b & 0x7f;
  for (let mult = 0x80; b >= 0x80; mult *= 0x80) sum += ((b = bytes[p++]) & 0x7f) * mult;
  READ.count = count;
  READ.zeroCount = zeroCount;
  READ.sumUnits = unzigzag(sum);
  READ.min = Infinity;
  READ.max = -Infinity;
  if (count > 0) {
    if (p + 16 > end) throw endsEarly();
    // Through one scratch buffer: no copy and no view made per histogram.
    for (let i = 0; i < 16; i++) SCRATCH_BYTES[i] = bytes[p + i];
    READ.min = SCRATCH.getFloat64(0, true);
    READ.max = SCRATCH.getFloat64(8, true);
    p += 16;
  }
  b = bytes[p++];
  let n = b & 0x7f;
  for (let mult = 0x80; b >= 0x80; mult *= 0x80) n += ((b = bytes[p++]) & 0x7f) * mult;
  // A bucket takes two bytes at least: more buckets than that are broken bytes, not room to make.
  if (p > end || n * 2 > end - p) throw endsEarly();
  cursor = p;
  return n;
}

/** Where a bucket loop stopped: past `end` the bytes ended early (an out-of-order or out-of-range index read there says so too). */
function checkEnd(p: number, end: number): void {
  if (p > end) throw endsEarly();
  if (p !== end) throw new HistogramFormatError('trailing bytes after the histogram');
}

export function decodeHistogram(bytes: Uint8Array): ExpHistogram {
  const r = readEncoded(bytes);
  const h: ExpHistogram = {
    scale: HISTOGRAM_SCALE,
    count: r.count,
    zeroCount: r.zeroCount,
    sumUnits: r.sumUnits,
    min: r.min,
    max: r.max,
    buckets: new Map(),
  };
  for (let k = 0; k < r.n; k++) h.buckets.set(r.indices[k], r.counts[k]);
  return h;
}

/*
 * The two bucket loops below read the varints inline, the first bucket's index (zigzag) before the loop
 * and each later one's gap at the end of its turn, so the loop has no first-bucket branch: a long window
 * reads thousands of histograms (15 % less CPU than a branch per bucket, measured side by side). A read
 * past `end` (a Uint8Array gives `undefined`, which reads as 0 and ends a varint) is caught once, at the
 * end, by where the cursor stopped; the loop's length is bounded beforehand by the bytes left.
 */

const outOfRange = (index: number, p: number, end: number): HistogramFormatError =>
  p > end ? endsEarly() : new HistogramFormatError(`histogram bucket index ${index} out of range`);

/**
 * Reads the canonical bytes in bytes[start, end), all of them checked before anything is returned;
 * throws HistogramFormatError. The buckets land in flat arrays, not a Map.
 */
export function readEncoded(bytes: Uint8Array, start = 0, end = bytes.length): EncodedBuckets {
  const n = readHeader(bytes, start, end);
  if (n > READ.indices.length) {
    READ.indices = new Int32Array(2 ** Math.ceil(Math.log2(n)));
    READ.counts = new Float64Array(READ.indices.length);
  }
  READ.n = n;
  if (n === 0) {
    checkEnd(cursor, end);
    return READ;
  }
  const { indices, counts } = READ;
  let p = cursor;
  let b = bytes[p++];
  let gap = b & 0x7f;
  for (let mult = 0x80; b >= 0x80; mult *= 0x80) gap += ((b = bytes[p++]) & 0x7f) * mult;
  let index = unzigzag(gap);
  for (let k = 0; ; ) {
    if (!indexInRange(index)) throw outOfRange(index, p, end);
    b = bytes[p++];
    let count = b & 0x7f;
    for (let mult = 0x80; b >= 0x80; mult *= 0x80) count += ((b = bytes[p++]) & 0x7f) * mult;
    indices[k] = index;
    counts[k] = count;
    if (++k === n) break;
    b = bytes[p++];
    gap = b & 0x7f;
    for (let mult = 0x80; b >= 0x80; mult *= 0x80) gap += ((b = bytes[p++]) & 0x7f) * mult;
    if (gap === 0) throw p > end ? endsEarly() : outOfOrder();
    index += gap;
  }
  checkEnd(p, end);
  return READ;
}

/** A dense sum of buckets as addEncodedInto adds to it: counts[k] is bucket `low + k`. */
export interface DenseCounts {
  counts: Float64Array;
  low: number;
  /** Widens counts to hold buckets from..to (both within ±BUCKET_INDEX_LIMIT), moving `low`. */
  cover(from: number, to: number): void;
  /** Adds what a histogram's header says (its count, zero count, sum, min and max). */
  addHeader(h: HistogramHeader): void;
}

/**
 * Adds the histogram of the canonical bytes in bytes[start, end) to `sum` as its buckets are read. The
 * same checks as readEncoded, but a histogram found broken has already added its buckets before it: a sum
 * that saw a throw is to be thrown away. About a fifth less CPU than reading into readEncoded's arrays and
 * adding from them (measured side by side).
 */
export function addEncodedInto(sum: DenseCounts, bytes: Uint8Array, start = 0, end = bytes.length): void {
  checkEnd(addOneInto(sum, bytes, start, end), end);
}

/**
 * Adds the one histogram that starts at bytes[start] and ends by `end`; returns where it ends (a reader of
 * several things packed one after another goes on from there: shared/rollup/packed-rows.ts).
 */
export function addOneInto(sum: DenseCounts, bytes: Uint8Array, start: number, end: number): number {
  const n = readHeader(bytes, start, end);
  let p = cursor;
  if (n > 0) {
    let b = bytes[p++];
    let gap = b & 0x7f;
    for (let mult = 0x80; b >= 0x80; mult *= 0x80) gap += ((b = bytes[p++]) & 0x7f) * mult;
    let index = unzigzag(gap);
    let counts = sum.counts;
    let low = sum.low;
    let length = counts.length;
    for (let k = 0; ; ) {
      b = bytes[p++];
      let count = b & 0x7f;
      for (let mult = 0x80; b >= 0x80; mult *= 0x80) count += ((b = bytes[p++]) & 0x7f) * mult;
      let at = index - low;
      // Outside the dense range (rare: the range has room on both sides): checked, then widened.
      if (!(at >= 0 && at < length)) {
        if (!indexInRange(index)) throw outOfRange(index, p, end);
        sum.cover(index, index);
        counts = sum.counts;
        low = sum.low;
        length = counts.length;
        at = index - low;
      }
      counts[at] += count;
      if (++k === n) break;
      b = bytes[p++];
      gap = b & 0x7f;
      for (let mult = 0x80; b >= 0x80; mult *= 0x80) gap += ((b = bytes[p++]) & 0x7f) * mult;
      if (gap === 0) throw p > end ? endsEarly() : outOfOrder();
      index += gap;
    }
    if (p > end) throw endsEarly();
  }
  sum.addHeader(READ);
  return p;
}
