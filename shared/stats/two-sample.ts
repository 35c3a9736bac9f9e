/**
 * The shift between two independent samples (x against y): the two-sample Hodges–Lehmann estimate, the median of
 * every x_i − y_j, with the Mann–Whitney interval [D(k), D(ab+1−k)] of the a·b sorted differences. Exact (U's
 * distribution counted as the Gaussian binomial coefficient) while its counts fit a double exactly, the normal
 * approximation beyond. Change detection (site/src/data/changes.ts) compares a week of daily medians with the
 * four weeks before this way: each day one value, so hours alike within a day cannot narrow the interval.
 */
import { normalCdf, normalQuantile } from './normal.ts';

export interface ShiftInterval {
  /** Median of x_i − y_j. */
  estimate: number;
  /** The interval at the confidence asked; null when the samples are too small for it. */
  low: number | null;
  high: number | null;
}

/** Largest count the exact distribution may hold (C(a + b, a) must be exact in a double). */
const EXACT_MAX_COUNT = 2 ** 53;

function binomial(n: number, k: number): number {
  let c = 1;
  for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i;
  return c;
}

/** P(U ≤ u) for u = 0..ab, U the Mann–Whitney count of pairs with x > y for sizes a and b under no shift. */
function exactLowerTails(a: number, b: number): Float64Array {
  // The generating function of U is the Gaussian binomial Π_{i=1..a} (1 − q^(b+i)) / (1 − q^i).
  const max = a * b;
  const poly = new Float64Array(max + 1);
  poly[0] = 1;
  for (let i = 1; i <= a; i++) {
    for (let t = max; t >= b + i; t--) poly[t] -= poly[t - b - i];
    for (let t = i; t <= max; t++) poly[t] += poly[t - i];
  }
  const total = binomial(a + b, a);
  const tails = new Float64Array(max + 1);
  let sum = 0;
  for (let t = 0; t <= max; t++) tails[t] = (sum += poly[t]) / total;
  return tails;
}

const tailCache = new Map<string, Float64Array>();

/** k (1-based) such that [D(k), D(ab+1−k)] is the interval at `confidence`, or null when none exists. */
export function shiftIntervalRank(a: number, b: number, confidence: number): number | null {
  if (a < 1 || b < 1) return null;
  const half = (1 - confidence) / 2;
  const max = a * b;
  let lowerTail: (u: number) => number;
  if (binomial(a + b, Math.min(a, b)) <= EXACT_MAX_COUNT) {
    const key = `${a}|${b}`;
    let tails = tailCache.get(key);
    if (!tails) {
      if (tailCache.size > 256) tailCache.clear();
      tailCache.set(key, (tails = exactLowerTails(a, b)));
    }
    lowerTail = (u) => tails[u];
  } else {
    const sd = Math.sqrt((a * b * (a + b + 1)) / 12);
    lowerTail = (u) => normalCdf((u + 0.5 - max / 2) / sd);
  }
  const guess = Math.floor(max / 2 - 0.5 + normalQuantile(Math.max(half, 1e-300)) * Math.sqrt((a * b * (a + b + 1)) / 12));
  let u = Math.min(Math.max(0, guess), max);
  while (u > 0 && lowerTail(u) > half) u--;
  if (lowerTail(u) > half) return null;
  while (u + 1 < max && lowerTail(u + 1) <= half) u++;
  return u + 1;
}

/** The shift of x against y (x − y) with its interval at `confidence`; null when either is empty. */
export function shiftInterval(x: readonly number[], y: readonly number[], confidence = 0.95): ShiftInterval | null {
  if (x.length === 0 || y.length === 0) return null;
  const diffs = new Float64Array(x.length * y.length);
  let w = 0;
  for (const xi of x) for (const yj of y) diffs[w++] = xi - yj;
  diffs.sort();
  const n = diffs.length;
  const estimate = n % 2 === 1 ? diffs[(n - 1) / 2] : (diffs[n / 2 - 1] + diffs[n / 2]) / 2;
  const k = shiftIntervalRank(x.length, y.length, confidence);
  return k === null ? { estimate, low: null, high: null } : { estimate, low: diffs[k - 1], high: diffs[n - k] };
}
