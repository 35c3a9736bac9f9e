/**
 * How many consecutive hours one block of a paired comparison joins, from the hours themselves
 * (MEASUREMENT.md, "How this project reads the contract", "Paired comparisons"). A vendor's slow afternoon is
 * slow for hours, so neighbouring hours' medians are alike and a signed-rank interval over single hours is
 * too narrow. The hours' autocorrelation at lags 1..FIT_LAGS is fitted by an hour effect that decays
 * geometrically beside independent noise (r_k = s·ρ^k: AR(1) plus noise, which also covers a pure AR(1) and
 * independent hours); a block is the shortest run of hours whose means, under that fit, correlate with their
 * neighbours' by at most BLOCK_CORRELATION, between MIN_BLOCK_HOURS and MAX_BLOCK_HOURS. A fit that explains no
 * more than noise would (FIT_EVIDENCE) is not believed: the block is then MIN_BLOCK_HOURS.
 */
import { HOUR_MS } from '../time.ts';

/** Lags (hours) the autocorrelation is fitted on: half a day, each lag of a week estimated from at least 156 pairs of hours. */
export const FIT_LAGS = 12;
/** The correlation between neighbouring blocks' means the block length allows, under the fitted model. */
export const BLOCK_CORRELATION = 0.03;
/**
 * The shortest block: 3 hours. A week of hours often cannot tell a correlation of 0.3–0.5 between neighbouring
 * hours from none (the fit then says independent), and 3-hour blocks of independent hours lose nothing measurable.
 */
export const MIN_BLOCK_HOURS = 3;
/** The longest block: a day. */
export const MAX_BLOCK_HOURS = 24;
/**
 * How much of the autocorrelations a fit must explain to be believed, in units of 1/n for n hours (r_k² of
 * independent hours averages about 1/n, so a two-parameter fit of noise explains about 2). Without it, noise
 * fitted as a faint but lasting hour effect gives independent hours blocks of over half a day in about one week in
 * five; with it, about one in twenty (npm run bench:paired).
 */
export const FIT_EVIDENCE = 3;
/** The fitted decay's grid: ρ from 0 to RHO_MAX in steps of RHO_STEP. */
const RHO_STEP = 0.01;
const RHO_MAX = 0.98;

export interface HourValue {
  hour: number;
  y: number;
}

/** The lag-1..lags autocorrelation of values at whole hours (pairs exactly k hours apart; a missing hour pairs with none). */
export function hourAutocorrelation(values: readonly HourValue[], lags: number): number[] | null {
  const { hours, y } = columnsOf(values);
  const r = hourAutocorrelationOf(hours, y, 0, values.length, lags);
  return r === null ? null : Array.from(r);
}

const columnsOf = (values: readonly HourValue[]) => ({
  hours: Float64Array.from(values, (v) => v.hour),
  y: Float64Array.from(values, (v) => v.y),
});

// Scratch of the autocorrelation, grown as needed: each hour's deviation from the mean, and its hour index.
let deviation = new Float64Array(0);
let hourIndex = new Int32Array(0);
let dense = new Float64Array(0);
let present = new Uint8Array(0);

function ascending(index: Int32Array, n: number): boolean {
  for (let i = 1; i < n; i++) if (!(index[i - 1] < index[i])) return false;
  return true;
}

/** Whether each of hours[lo..hi) is a whole hour's milliseconds after the one before (the first a whole number of ms). */
function consecutive(hours: Float64Array, lo: number, hi: number): boolean {
  if (!Number.isSafeInteger(hours[lo]) || !Number.isSafeInteger(hours[hi - 1])) return false;
  for (let i = lo + 1; i < hi; i++) if (hours[i] - hours[i - 1] !== HOUR_MS) return false;
  return true;
}

/** Each hour's index from the first, when every hour of [lo, hi) is a whole number of hours after it (else null). */
function hourIndices(hours: Float64Array, lo: number, hi: number): Int32Array | null {
  if (hourIndex.length < hi - lo) hourIndex = new Int32Array(Math.max(hi - lo, 2 * hourIndex.length));
  const first = hours[lo];
  if (!Number.isSafeInteger(first)) return null;
  for (let i = lo; i < hi; i++) {
    // Exact: whole milliseconds, so the difference and the quotient hold no rounding.
    const ms = hours[i] - first;
    const k = ms / HOUR_MS;
    if (!Number.isSafeInteger(hours[i]) || !Number.isInteger(k) || k * HOUR_MS !== ms || k > 2 ** 30) return null;
    hourIndex[i - lo] = k;
  }
  return hourIndex;
}

/**
 * hourAutocorrelation of the values y[lo..hi) at hours[lo..hi) (in hour order), as a new array. When every hour is
 * a whole number of hours after the first, the lag of two hours is the difference of their indices, which is then
 * exactly what rounding the difference of the hours gives.
 */
export function hourAutocorrelationOf(hours: Float64Array, y: Float64Array, lo: number, hi: number, lags: number): Float64Array | null {
  const n = hi - lo;
  if (n < 2) return null;
  let mean = 0;
  for (let i = lo; i < hi; i++) mean += y[i];
  mean /= n;
  if (deviation.length < n) deviation = new Float64Array(Math.max(n, 2 * deviation.length));
  const dev = deviation;
  let c0 = 0;
  for (let i = lo; i < hi; i++) {
    const e = y[i] - mean;
    dev[i - lo] = e;
    c0 += e ** 2;
  }
  c0 /= n;
  if (!(c0 > 0)) return null;
  const sums = new Float64Array(lags + 1);
  const pairs = new Float64Array(lags + 1);
  if (consecutive(hours, lo, hi)) {
    // Every hour the one after the last (the common case): the hours laid out by hour are the deviations themselves.
    for (let t = 0; t + 1 < n; t++) {
      const x = dev[t];
      const top = Math.min(lags, n - 1 - t);
      for (let k = 1; k <= top; k++) sums[k] += x * dev[t + k];
    }
    const out = new Float64Array(lags);
    for (let k = 1; k <= lags; k++) {
      const count = k < n ? n - k : 0;
      out[k - 1] = count > 0 ? sums[k] / count / c0 : 0;
    }
    return out;
  }
  const index = hourIndices(hours, lo, hi);
  const span = index === null ? 0 : index[n - 1] + 1;
  if (index !== null && ascending(index, n) && span <= 2 * n) {
    // Distinct hours, few missing: laid out by hour (a missing hour holds 0 and counts for no pair), each lag's sum
    // is then one pass. Each sum gets the same products in the same order as pair by pair (by the earlier hour), and
    // a missing hour's product, ±0, leaves a sum as it is (a sum from +0 is never −0).
    if (dense.length < span) {
      dense = new Float64Array(Math.max(span, 2 * dense.length));
      present = new Uint8Array(dense.length);
    }
    dense.fill(0, 0, span);
    present.fill(0, 0, span);
    for (let i = 0; i < n; i++) {
      dense[index[i]] = dev[i];
      present[index[i]] = 1;
    }
    // Every lag in one pass, each lag's sum still taking its products by the earlier hour in order: the lags' sums
    // then wait on no one another (several times faster than a pass a lag, the very same sums).
    for (let t = 0; t + 1 < span; t++) {
      const x = dense[t];
      const top = Math.min(lags, span - 1 - t);
      for (let k = 1; k <= top; k++) sums[k] += x * dense[t + k];
      if (span !== n && present[t]) for (let k = 1; k <= top; k++) pairs[k] += present[t + k];
    }
    if (span === n) for (let k = 1; k <= lags && k < span; k++) pairs[k] = span - k;
  } else if (index !== null)
    for (let i = 0; i < n; i++) {
      const at = index[i];
      const e = dev[i];
      for (let j = i + 1; j < n; j++) {
        const k = index[j] - at;
        if (k > lags) break;
        if (k < 1) continue;
        sums[k] += e * dev[j];
        pairs[k]++;
      }
    }
  else
    for (let i = 0; i < n; i++)
      for (let j = i + 1; j < n; j++) {
        const k = Math.round((hours[lo + j] - hours[lo + i]) / HOUR_MS);
        if (k > lags) break;
        if (k < 1) continue;
        sums[k] += dev[i] * dev[j];
        pairs[k]++;
      }
  const out = new Float64Array(lags);
  for (let k = 1; k <= lags; k++) out[k - 1] = pairs[k] > 0 ? sums[k] / pairs[k] / c0 : 0;
  return out;
}

/** The least-squares fit of r_k = s·ρ^k (0 ≤ s ≤ 1) to the autocorrelations r_1..r_K, and how much of Σ r_k² it explains. */
export function fitDecay(r: ArrayLike<number>): { s: number; rho: number; explained: number } {
  let total = 0;
  for (let k = 0; k < r.length; k++) total += r[k] * r[k];
  const K = r.length;
  const { powers, dens } = gridOf(K);
  let bestS = 0;
  let bestRho = 0;
  let bestError = total;
  for (let g = 0; g < RHO_STEPS; g++) {
    // ρ^k and Σ ρ^2k, as multiplied up lag by lag: the grid's own, the same for every fit of K lags.
    const at = g * K;
    let num = 0;
    for (let k = 0; k < K; k++) num += r[k] * powers[at + k];
    const s = Math.min(1, Math.max(0, num / dens[g]));
    let error = 0;
    for (let k = 0; k < K; k++) error += (r[k] - s * powers[at + k]) ** 2;
    if (error < bestError) {
      bestS = s;
      bestRho = (g + 1) * RHO_STEP;
      bestError = error;
    }
  }
  return { s: bestS, rho: bestRho, explained: total - bestError };
}

/** The grid's steps: ρ = step · RHO_STEP for step 1.. while within RHO_MAX. */
const RHO_STEPS = (() => {
  let steps = 0;
  while ((steps + 1) * RHO_STEP <= RHO_MAX + 1e-9) steps++;
  return steps;
})();
const grids = new Map<number, { powers: Float64Array; dens: Float64Array }>();

/** Per grid step, ρ^1..ρ^K (each the one before times ρ) and their squares' sum in that order. */
function gridOf(K: number): { powers: Float64Array; dens: Float64Array } {
  let grid = grids.get(K);
  if (grid) return grid;
  const powers = new Float64Array(RHO_STEPS * K);
  const dens = new Float64Array(RHO_STEPS);
  for (let g = 0; g < RHO_STEPS; g++) {
    const rho = (g + 1) * RHO_STEP;
    let p = 1;
    let den = 0;
    for (let k = 0; k < K; k++) {
      p *= rho;
      powers[g * K + k] = p;
      den += p * p;
    }
    dens[g] = den;
  }
  grids.set(K, (grid = { powers, dens }));
  return grid;
}

/** The correlation of two neighbouring means of `length` hours when r_k = s·ρ^k. */
export function neighbourCorrelation(s: number, rho: number, length: number): number {
  if (s <= 0 || rho <= 0) return 0;
  // Sums of `length` hours: the cross-covariance is s·ρ·(1 + ρ + … + ρ^(L−1))²; each sum's variance L + 2s·Σ(L − k)ρ^k.
  let geometric = 0;
  let within = 0;
  let p = 1;
  for (let k = 0; k < length; k++) {
    geometric += p;
    if (k > 0) within += (length - k) * p;
    p *= rho;
  }
  return (s * rho * geometric * geometric) / (length + 2 * s * within);
}

export interface BlockLength {
  /** Hours each block joins. */
  hours: number;
  /** The measured lag-1 autocorrelation of the hours' values (null with fewer than two hours, or all alike). */
  lag1: number | null;
}

/** The shortest block (from MIN_BLOCK_HOURS, at most MAX_BLOCK_HOURS) whose means correlate by at most BLOCK_CORRELATION when r_k = s·ρ^k. */
function lengthFor(s: number, rho: number): number {
  let hours = MIN_BLOCK_HOURS;
  while (hours < MAX_BLOCK_HOURS && neighbourCorrelation(s, rho, hours) > BLOCK_CORRELATION) hours++;
  return hours;
}

/** The block length for `values` (in hour order), at least `atLeast` hours (the cap on the blocks ranked). */
export function blockLength(values: readonly HourValue[], atLeast = 1): BlockLength {
  const { hours, y } = columnsOf(values);
  return blockLengthOf(hours, y, 0, values.length, atLeast);
}

/** blockLength of the values y[lo..hi) at hours[lo..hi). */
export function blockLengthOf(hours: Float64Array, y: Float64Array, lo: number, hi: number, atLeast = 1): BlockLength {
  // A lag is fitted only where about four hours or more stand behind each one.
  const lags = Math.min(FIT_LAGS, Math.floor((hi - lo) / 4));
  const r = hourAutocorrelationOf(hours, y, lo, hi, Math.max(1, lags));
  let block = MIN_BLOCK_HOURS;
  if (r !== null && lags >= 1) {
    const fit = fitDecay(r);
    if ((hi - lo) * fit.explained >= FIT_EVIDENCE) block = lengthFor(fit.s, fit.rho);
  }
  return { hours: Math.max(block, atLeast), lag1: r?.[0] ?? null };
}

/** The values joined into blocks of `hours` consecutive hours from the first (each the mean of the hours it holds), in hour order. */
export function joinHours(values: readonly HourValue[], hours: number): number[] {
  const { hours: at, y } = columnsOf(values);
  return Array.from(joinHoursOf(at, y, 0, values.length, hours));
}

let joined = new Float64Array(256);

/** joinHours of the values y[lo..hi) at hours[lo..hi), as a new array. */
export function joinHoursOf(at: Float64Array, y: Float64Array, lo: number, hi: number, hours: number): Float64Array {
  if (hours <= 1) return y.slice(lo, hi);
  // Joined in a scratch array, only the blocks copied out: a long window's hours would otherwise be a new array each.
  if (joined.length < hi - lo) joined = new Float64Array(Math.max(hi - lo, 2 * joined.length));
  const out = joined;
  let size = 0;
  const first = hi > lo ? at[lo] : 0;
  let current = -1;
  let sum = 0;
  let count = 0;
  for (let i = lo; i < hi; i++) {
    const block = Math.floor(Math.round((at[i] - first) / HOUR_MS) / hours);
    if (block !== current && count > 0) {
      out[size++] = sum / count;
      sum = 0;
      count = 0;
    }
    current = block;
    sum += y[i];
    count++;
  }
  if (count > 0) out[size++] = sum / count;
  return out.slice(0, size);
}
