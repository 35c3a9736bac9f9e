// A reading-only copy of the code before the paired speed-up (commit cf35aa9); see tests/helpers/paired-reference.ts.
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
import { HOUR_MS } from '../../../shared/time.ts';

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
  const n = values.length;
  if (n < 2) return null;
  let mean = 0;
  for (const v of values) mean += v.y;
  mean /= n;
  let c0 = 0;
  for (const v of values) c0 += (v.y - mean) ** 2;
  c0 /= n;
  if (!(c0 > 0)) return null;
  const sums = new Float64Array(lags + 1);
  const pairs = new Float64Array(lags + 1);
  // The values are in hour order: each one pairs with the next few within `lags` hours.
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const k = Math.round((values[j].hour - values[i].hour) / HOUR_MS);
      if (k > lags) break;
      if (k < 1) continue;
      sums[k] += (values[i].y - mean) * (values[j].y - mean);
      pairs[k]++;
    }
  const out: number[] = [];
  for (let k = 1; k <= lags; k++) out.push(pairs[k] > 0 ? sums[k] / pairs[k] / c0 : 0);
  return out;
}

/** The least-squares fit of r_k = s·ρ^k (0 ≤ s ≤ 1) to the autocorrelations r_1..r_K, and how much of Σ r_k² it explains. */
export function fitDecay(r: readonly number[]): { s: number; rho: number; explained: number } {
  const total = r.reduce((e, x) => e + x * x, 0);
  let best = { s: 0, rho: 0, error: total };
  for (let step = 1; step * RHO_STEP <= RHO_MAX + 1e-9; step++) {
    const rho = step * RHO_STEP;
    let num = 0;
    let den = 0;
    let p = 1;
    for (const x of r) {
      p *= rho;
      num += x * p;
      den += p * p;
    }
    const s = Math.min(1, Math.max(0, num / den));
    let error = 0;
    p = 1;
    for (const x of r) {
      p *= rho;
      error += (x - s * p) ** 2;
    }
    if (error < best.error) best = { s, rho, error };
  }
  return { s: best.s, rho: best.rho, explained: total - best.error };
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
  // A lag is fitted only where about four hours or more stand behind each one.
  const lags = Math.min(FIT_LAGS, Math.floor(values.length / 4));
  const r = hourAutocorrelation(values, Math.max(1, lags));
  let hours = MIN_BLOCK_HOURS;
  if (r !== null && lags >= 1) {
    const fit = fitDecay(r);
    if (values.length * fit.explained >= FIT_EVIDENCE) hours = lengthFor(fit.s, fit.rho);
  }
  return { hours: Math.max(hours, atLeast), lag1: r?.[0] ?? null };
}

/** The values joined into blocks of `hours` consecutive hours from the first (each the mean of the hours it holds), in hour order. */
export function joinHours(values: readonly HourValue[], hours: number): number[] {
  if (hours <= 1) return values.map((v) => v.y);
  const out: number[] = [];
  const first = values[0]?.hour ?? 0;
  let current = -1;
  let sum = 0;
  let count = 0;
  for (const v of values) {
    const block = Math.floor(Math.round((v.hour - first) / HOUR_MS) / hours);
    if (block !== current && count > 0) {
      out.push(sum / count);
      sum = 0;
      count = 0;
    }
    current = block;
    sum += v.y;
    count++;
  }
  if (count > 0) out.push(sum / count);
  return out;
}
