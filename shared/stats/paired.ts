/**
 * Paired comparison of two targets (MEASUREMENT.md, "Comparing two targets"): in one region and prompt
 * variant, every tick where both succeeded gives d = ln(x_A / x_B). Ticks of one hour share the hour's
 * network and load, so they are not independent: each hour is one block, summarised by the median of its
 * d, and the interval is the Hodges–Lehmann one of the Wilcoxon signed-rank test over the hourly block
 * medians. It assumes only that block medians are independent and symmetric about the true shift; it
 * needs no bootstrap (the same data give the same interval) and costs O(m² log m) for m hours. With few
 * hours it is exact (the signed-rank statistic's distribution counted), with many the normal approximation.
 */
import { percentile } from './percentile.ts';

export const CONFIDENCE = 0.95;
/** Default equivalence margin: a difference within ±5 % is no meaningful difference. */
export const DEFAULT_MARGIN = 0.05;
/** Up to this many blocks the signed-rank distribution is counted exactly. */
const EXACT_MAX_BLOCKS = 80;
/**
 * Most blocks one comparison ranks: 56, a week in blocks of 3 hours (its Walsh averages sort in under 0.1 ms,
 * so a request answers dozens of comparisons within a free-plan Worker's CPU; a week of single hours takes
 * 1 ms each, 30 days 25 ms). A longer window joins consecutive hours into blocks of ⌈hours / 56⌉, each
 * summarised by the median of its hours' medians: still blocks of neighbouring ticks (so no narrower an
 * interval than hourly blocks give), at a bounded cost.
 */
export const MAX_BLOCKS = 56;

/** The median of a few values (a copy sorted). */
function smallMedian(values: number[]): number {
  values.sort((a, b) => a - b);
  const mid = values.length >> 1;
  return values.length % 2 === 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

/** Consecutive blocks joined so that at most MAX_BLOCKS remain (the input in hour order, as D1 returns it, or sorted here). */
function boundedBlocks(values: ReadonlyArray<{ hour: number; y: number }>): number[] {
  if (values.length <= MAX_BLOCKS) return values.map((v) => v.y);
  let ordered = true;
  for (let i = 1; i < values.length && ordered; i++) ordered = values[i - 1].hour <= values[i].hour;
  const sorted = ordered ? values : [...values].sort((a, b) => a.hour - b.hour);
  const size = Math.ceil(sorted.length / MAX_BLOCKS);
  const out: number[] = [];
  for (let i = 0; i < sorted.length; i += size) {
    const group: number[] = [];
    for (let j = i; j < Math.min(i + size, sorted.length); j++) group.push(sorted[j].y);
    out.push(smallMedian(group));
  }
  return out;
}

/** One hour of one pair: its ticks where both succeeded, how often A was faster, and the median of d per figure. */
export interface PairBlock {
  hour: number;
  n: number;
  wins: number;
  /** Median of d = ln(x_A / x_B) over the hour's pairs, per figure (null: the figure had no pair this hour). */
  d: Array<number | null>;
}

export type Verdict = 'a_faster' | 'b_faster' | 'no_difference' | 'not_enough_data';

export interface PairedResult {
  pairs: number;
  hours: number;
  /** The blocks ranked: one an hour, or joined hours beyond MAX_BLOCKS. */
  blocks: number;
  /** A's figure relative to B's, in percent: 100·(e^shift − 1); negative when A is faster. */
  difference_pct: number | null;
  ci_low_pct: number | null;
  ci_high_pct: number | null;
  /** The confidence level the interval was computed at (lower than 95 % only when it stands alone; Holm raises it). */
  confidence: number;
  /** Share of paired ticks where A was faster. */
  win_rate: number | null;
  /** Two-sided signed-rank p-value of no shift. */
  p_value: number | null;
  verdict: Verdict;
  /** With `not_enough_data`: about how many more paired ticks would settle it (an estimate from the interval's width). */
  more_ticks: number | null;
}

const pct = (x: number) => 100 * (Math.exp(x) - 1);

/** d = ln(a/b) of each tick where both have a positive figure; `wins`: ticks where a < b. */
export function pairedDifferences(a: ReadonlyMap<number, number>, b: ReadonlyMap<number, number>): { d: number[]; wins: number } {
  const d: number[] = [];
  let wins = 0;
  for (const [tick, x] of a) {
    const y = b.get(tick);
    if (y === undefined || !(x > 0) || !(y > 0)) continue;
    d.push(Math.log(x / y));
    if (x < y) wins++;
  }
  return { d, wins };
}

/** The hour's block: its pairs' count, wins (on the first figure) and median d per figure. */
export function pairBlock(
  hour: number,
  figures: ReadonlyArray<{ a: ReadonlyMap<number, number>; b: ReadonlyMap<number, number> }>,
): PairBlock | null {
  const per = figures.map((f) => pairedDifferences(f.a, f.b));
  if (per[0].d.length === 0) return null;
  return { hour, n: per[0].d.length, wins: per[0].wins, d: per.map((p) => (p.d.length > 0 ? percentile(p.d, 0.5) : null)) };
}

/**
 * Number of sign assignments of ranks 1..m with signed-rank sum T = t, for every t: the exact null
 * distribution (count / 2^m), by the usual dynamic programme.
 */
function signedRankCounts(m: number): Float64Array {
  let counts = countsCache.get(m);
  if (!counts) countsCache.set(m, (counts = countSignedRanks(m)));
  return counts;
}

/** Distributions counted so far, by m (a page of comparisons mostly shares a few block counts). */
const countsCache = new Map<number, Float64Array>();

function countSignedRanks(m: number): Float64Array {
  const max = (m * (m + 1)) / 2;
  const counts = new Float64Array(max + 1);
  counts[0] = 1;
  for (let r = 1; r <= m; r++) for (let t = max; t >= r; t--) counts[t] += counts[t - r];
  return counts;
}

/** Standard normal quantile (Acklam's rational approximation, |error| < 1.2e-9). */
export function normalQuantile(p: number): number {
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - low) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) /
    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
  );
}

/** Standard normal CDF (Abramowitz–Stegun 7.1.26 on erf, |error| < 1.5e-7). */
function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}

/**
 * k such that [W(k), W(M+1−k)] of the M sorted Walsh averages is the signed-rank interval at `confidence`
 * (1-based); null when m blocks are too few for that confidence.
 */
function intervalRank(m: number, confidence: number): number | null {
  const key = `${m}|${confidence}`;
  let k = rankCache.get(key);
  if (k === undefined) {
    if (rankCache.size > 4_096) rankCache.clear();
    rankCache.set(key, (k = computeIntervalRank(m, confidence)));
  }
  return k;
}

const rankCache = new Map<string, number | null>();

function computeIntervalRank(m: number, confidence: number): number | null {
  const M = (m * (m + 1)) / 2;
  const alpha = 1 - confidence;
  let k: number;
  if (m <= EXACT_MAX_BLOCKS) {
    // The largest k with P(T ≤ k − 1) ≤ α/2.
    const counts = signedRankCounts(m);
    const total = 2 ** m;
    let cum = 0;
    k = 0;
    for (let t = 0; t <= M; t++) {
      cum += counts[t];
      if (cum / total > alpha / 2) break;
      k = t + 1;
    }
  } else {
    const sd = Math.sqrt((m * (m + 1) * (2 * m + 1)) / 24);
    k = Math.floor(M / 2 - normalQuantile(1 - alpha / 2) * sd);
  }
  return k >= 1 ? k : null;
}

/** Two-sided p-value of the signed-rank test of no shift (zeros dropped, ties at mid-ranks, normal approximation with tie correction above EXACT_MAX_BLOCKS or with ties). */
export function signedRankPValue(y: readonly number[]): number | null {
  const abs = Float64Array.from(
    y.filter((v) => v !== 0),
    Math.abs,
  ).sort();
  const m = abs.length;
  if (m === 0) return 1;
  // Ties at mid-ranks: a value's rank is the middle of the run of equal absolute values it sits in.
  let ties = 0;
  let tieCorrection = 0;
  for (let i = 0; i < m; ) {
    let j = i;
    while (j + 1 < m && abs[j + 1] === abs[i]) j++;
    const t = j - i + 1;
    if (t > 1) {
      ties++;
      tieCorrection += t ** 3 - t;
    }
    i = j + 1;
  }
  let wPlus = 0;
  for (const v of y) if (v > 0) wPlus += midRank(abs, v);
  const M = (m * (m + 1)) / 2;
  if (m <= EXACT_MAX_BLOCKS && ties === 0) {
    const counts = signedRankCounts(m);
    const total = 2 ** m;
    const lowTail = Math.min(wPlus, M - wPlus);
    let cum = 0;
    for (let t = 0; t <= lowTail; t++) cum += counts[t];
    return Math.min(1, (2 * cum) / total);
  }
  const variance = (m * (m + 1) * (2 * m + 1)) / 24 - tieCorrection / 48;
  if (variance <= 0) return 1;
  const z = (Math.abs(wPlus - M / 2) - 0.5) / Math.sqrt(variance);
  return Math.min(1, 2 * (1 - normalCdf(Math.max(0, z))));
}

/** The 1-based mid-rank of `v` among the sorted values (the middle of its run of equal values). */
function midRank(sorted: Float64Array, v: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  let last = lo;
  while (last + 1 < sorted.length && sorted[last + 1] === v) last++;
  return (lo + last) / 2 + 1;
}

/** Every (y_i + y_j) / 2 with i ≤ j, sorted: the Walsh averages the signed-rank interval reads its bounds from. */
function walshSorted(y: readonly number[]): Float64Array {
  const m = y.length;
  const walsh = new Float64Array((m * (m + 1)) / 2);
  let w = 0;
  for (let i = 0; i < m; i++) for (let j = i; j < m; j++) walsh[w++] = (y[i] + y[j]) / 2;
  return walsh.sort();
}

/** The Hodges–Lehmann shift of the block medians and its signed-rank interval at `confidence`. */
export function hodgesLehmann(
  y: readonly number[],
  confidence = CONFIDENCE,
): { estimate: number; low: number | null; high: number | null } | null {
  const m = y.length;
  if (m === 0) return null;
  const walsh = walshSorted(y);
  const M = walsh.length;
  const estimate = M % 2 === 1 ? walsh[(M - 1) / 2] : (walsh[M / 2 - 1] + walsh[M / 2]) / 2;
  const k = intervalRank(m, confidence);
  return k === null ? { estimate, low: null, high: null } : { estimate, low: walsh[k - 1], high: walsh[M - k] };
}

/**
 * The verdict of an interval (in percent) against the equivalence margin (a fraction): inside ±margin, no
 * meaningful difference; wholly below 0 and reaching past −margin, A faster; the mirror, B faster; an
 * interval that holds 0 and reaches past the margin, or none at all, not enough data.
 */
export function verdictOf(lowPct: number | null, highPct: number | null, margin = DEFAULT_MARGIN): Verdict {
  if (lowPct === null || highPct === null) return 'not_enough_data';
  const m = margin * 100;
  if (lowPct > -m && highPct < m) return 'no_difference';
  if (highPct < 0 && lowPct <= -m) return 'a_faster';
  if (lowPct > 0 && highPct >= m) return 'b_faster';
  return 'not_enough_data';
}

/**
 * A over B on one figure (`figure`: the index into each block's d) from its hourly blocks, at `confidence`.
 * `more_ticks`, for an unsettled verdict, scales the blocks needed by the square of how much the interval
 * must narrow (its half-width to whichever of "fits the margin" or "excludes 0" is nearer), times ticks per block.
 */
export function comparePaired(blocks: readonly PairBlock[], figure = 0, margin = DEFAULT_MARGIN, confidence = CONFIDENCE): PairedResult {
  return pairedResult(pairedStats(blocks, figure), margin, confidence);
}

/** What a comparison needs of its blocks, whatever the confidence: worked out once, then read at each Holm level. */
export interface PairedStats {
  pairs: number;
  wins: number;
  hours: number;
  /** The block values ranked (at most MAX_BLOCKS). */
  blocks: number;
  /** Their Walsh averages, sorted (empty without blocks). */
  walsh: Float64Array;
  p_value: number | null;
}

export function pairedStats(blocks: readonly PairBlock[], figure = 0): PairedStats {
  const used = blocks.filter((b) => b.d[figure] !== null);
  let pairs = 0;
  let wins = 0;
  for (const b of used) {
    pairs += b.n;
    wins += b.wins;
  }
  const y = boundedBlocks(used.map((b) => ({ hour: b.hour, y: b.d[figure]! })));
  const m = y.length;
  const walsh = walshSorted(y);
  return { pairs, wins, hours: used.length, blocks: m, walsh, p_value: m > 0 ? signedRankPValue(y) : null };
}

/** The comparison's figures at `confidence` (shared/stats/paired.ts's verdict and estimate of more ticks needed). */
export function pairedResult(st: PairedStats, margin = DEFAULT_MARGIN, confidence = CONFIDENCE): PairedResult {
  const { pairs, wins, walsh } = st;
  const m = st.blocks;
  const M = walsh.length;
  const estimate = M === 0 ? null : M % 2 === 1 ? walsh[(M - 1) / 2] : (walsh[M / 2 - 1] + walsh[M / 2]) / 2;
  const k = m > 0 ? intervalRank(m, confidence) : null;
  const low = k === null ? null : walsh[k - 1];
  const high = k === null ? null : walsh[M - k];
  const lowPct = low === null ? null : pct(low);
  const highPct = high === null ? null : pct(high);
  const verdict = verdictOf(lowPct, highPct, margin);
  let more: number | null = null;
  if (verdict === 'not_enough_data' && m > 0) {
    const perBlock = pairs / m;
    if (low === null || high === null) more = Math.ceil(perBlock * Math.max(1, minimumBlocks(confidence) - m));
    else {
      const centre = (low + high) / 2;
      const half = (high - low) / 2;
      const edge = Math.log(1 + margin);
      const target = Math.max(edge - Math.abs(centre), Math.abs(centre));
      const needed = Math.ceil(m * (half / Math.max(target, 1e-9)) ** 2);
      more = Math.ceil(perBlock * Math.max(1, needed - m));
    }
  }
  return {
    pairs,
    hours: st.hours,
    blocks: m,
    difference_pct: estimate === null ? null : pct(estimate),
    ci_low_pct: lowPct,
    ci_high_pct: highPct,
    confidence,
    win_rate: pairs > 0 ? wins / pairs : null,
    p_value: st.p_value,
    verdict,
    more_ticks: more,
  };
}

/** The fewest blocks with which the signed-rank interval exists at `confidence` (6 at 95 %). */
export function minimumBlocks(confidence = CONFIDENCE): number {
  for (let m = 1; m <= 200; m++) if (intervalRank(m, confidence) !== null) return m;
  return Infinity;
}

/**
 * Holm's step-down over the comparisons shown together: the one with the i-th smallest p-value (0-based)
 * of `count` is judged at 1 − α/(count − i), and once one fails every later one is judged at the level of the
 * first that failed. Returns each comparison's confidence level, in input order.
 */
export function holmLevels(pValues: ReadonlyArray<number | null>, confidence = CONFIDENCE): number[] {
  const alpha = 1 - confidence;
  const count = pValues.length;
  const order = pValues.map((p, i) => ({ p: p ?? 1, i })).sort((a, b) => a.p - b.p);
  const levels = new Array<number>(count).fill(confidence);
  let stopped: number | null = null;
  order.forEach(({ p, i }, rank) => {
    const level = stopped ?? 1 - alpha / (count - rank);
    levels[i] = level;
    if (stopped === null && p > alpha / (count - rank)) stopped = level;
  });
  return levels;
}
