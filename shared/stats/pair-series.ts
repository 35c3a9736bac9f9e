/**
 * A pair's hours as columns (shared/stats/paired.ts reads them): for one figure, in hour order, each hour's median d,
 * its paired ticks and each side's wins. Built once per pair and figure, from hourly blocks or from stored rows
 * (shared/rollup/paired-families.ts), in typed arrays that many builders can share, then read over any window.
 */

/**
 * One figure of one pair's hours as columns, in hour order: the hours that have the figure's median d, each
 * hour's paired ticks and each side's wins (`unknown`: per hour, bit 1 the ticks, 2 A's wins, 4 B's wins not stored).
 * What a comparison reads, made once per pair and figure and read over any window of it (a range of its hours).
 */
export interface PairSeries {
  length: number;
  hours: Float64Array;
  d: Float64Array;
  n: Float64Array;
  aWins: Float64Array;
  bWins: Float64Array;
  unknown: Uint8Array;
}

/** Builds a series hour by hour, in any order (kept in the order given among equal hours). */
export class PairSeriesBuilder {
  private size = 0;
  private ordered = true;
  private hours: Float64Array;
  private d: Float64Array;
  private n: Float64Array;
  private aWins: Float64Array;
  private bWins: Float64Array;
  private unknown: Uint8Array;

  /** `columns`/`flags`: where to write (5 × capacity numbers, capacity flags); its own arrays when absent. */
  constructor(capacity = 16, columns?: Float64Array, flags?: Uint8Array) {
    const c = Math.max(1, capacity);
    const numbers = columns ?? new Float64Array(5 * c);
    this.hours = numbers.subarray(0, c);
    this.d = numbers.subarray(c, 2 * c);
    this.n = numbers.subarray(2 * c, 3 * c);
    this.aWins = numbers.subarray(3 * c, 4 * c);
    this.bWins = numbers.subarray(4 * c, 5 * c);
    this.unknown = flags ?? new Uint8Array(c);
  }

  /** `count` builders of `capacity` hours each, in two allocations for them all. */
  static many(count: number, capacity: number): PairSeriesBuilder[] {
    const c = Math.max(1, capacity);
    const numbers = new Float64Array(5 * c * count);
    const flags = new Uint8Array(c * count);
    return Array.from(
      { length: count },
      (_, i) => new PairSeriesBuilder(c, numbers.subarray(5 * c * i, 5 * c * (i + 1)), flags.subarray(c * i, c * (i + 1))),
    );
  }

  /** An hour's figure; nothing when it has no median d (null or absent). */
  add(
    hour: number,
    n: number | null | undefined,
    aWins: number | null | undefined,
    bWins: number | null | undefined,
    d: number | null | undefined,
  ): void {
    if (d === null || d === undefined) return;
    const i = this.size;
    if (i === this.hours.length) this.grow();
    if (i > 0 && !(this.hours[i - 1] < hour)) this.ordered = false;
    this.hours[i] = hour;
    this.d[i] = d;
    let unknown = 0;
    if (n === null || n === undefined) unknown |= 1;
    else this.n[i] = n;
    if (aWins === null || aWins === undefined) unknown |= 2;
    else this.aWins[i] = aWins;
    if (bWins === null || bWins === undefined) unknown |= 4;
    else this.bWins[i] = bWins;
    this.unknown[i] = unknown;
    this.size = i + 1;
  }

  private grow(): void {
    const c = 2 * this.hours.length;
    const more = <T extends Float64Array | Uint8Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(c);
      b.set(a);
      return b;
    };
    this.hours = more(this.hours);
    this.d = more(this.d);
    this.n = more(this.n);
    this.aWins = more(this.aWins);
    this.bWins = more(this.bWins);
    this.unknown = more(this.unknown);
  }

  /** The series, in hour order (a stable sort when the hours came out of order). */
  finish(): PairSeries {
    const length = this.size;
    const cut = <T extends Float64Array | Uint8Array>(a: T): T => a.subarray(0, length) as T;
    const s: PairSeries = {
      length,
      hours: cut(this.hours),
      d: cut(this.d),
      n: cut(this.n),
      aWins: cut(this.aWins),
      bWins: cut(this.bWins),
      unknown: cut(this.unknown),
    };
    if (this.ordered) return s;
    const order = Array.from({ length }, (_, i) => i).sort((x, y) => s.hours[x] - s.hours[y]);
    const pick = <T extends Float64Array | Uint8Array>(a: T): T => {
      const b = a.slice() as T;
      for (let i = 0; i < length; i++) b[i] = a[order[i]];
      return b;
    };
    return {
      length,
      hours: pick(s.hours),
      d: pick(s.d),
      n: pick(s.n),
      aWins: pick(s.aWins),
      bWins: pick(s.bWins),
      unknown: pick(s.unknown),
    };
  }
}

/** The first index of `hours` (ascending) at or after `hour`. */
export function hourIndex(hours: Float64Array, hour: number, from = 0, to = hours.length): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (hours[mid] < hour) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
