/**
 * Paired comparison of two targets (MEASUREMENT.md, "Comparing two targets"): in one region and prompt
 * variant, every tick where both succeeded gives d = ln(x_A / x_B). Ticks of one hour share the hour's network
 * and load, and neighbouring hours share a vendor's slow afternoon, so ticks are not independent: each hour is
 * summarised by the median of its d, consecutive hours are joined into blocks as long as the hours' measured
 * autocorrelation needs (shared/stats/block-length.ts; an hour when hours are independent), each block the mean
 * of its hours' medians, and the interval is the Hodges–Lehmann one of the Wilcoxon signed-rank test over the
 * blocks. The p-value is read from the same Walsh averages and the same distribution (shared/stats/signed-rank.ts),
 * so it is at most α exactly when the 1 − α interval leaves out 0, ties and zeros included. No resampling: the
 * same data give the same answer, in O(m log m) for m blocks.
 */
import { HOUR_MS } from '../time.ts';
import { blockLengthOf, joinHoursOf } from './block-length.ts';
import { normalQuantile } from './normal.ts';
import { percentile } from './percentile.ts';
import { intervalRank, minimumBlocks as minimumBlocksAt, signedRankPFromCounts } from './signed-rank.ts';
import { walshCount, walshMedian, walshOrderStatistic } from './walsh.ts';
import { PairSeriesBuilder, type PairSeries } from './pair-series.ts';

export const CONFIDENCE = 0.95;
/** Default equivalence margin: a difference within ±5 % is no meaningful difference. */
export const DEFAULT_MARGIN = 0.05;
/**
 * Most blocks one comparison ranks: a week of hours. A longer window's blocks join at least ⌈hours / 168⌉
 * hours (30 days: 5), so the cost stays bounded whatever the window.
 */
export const MAX_BLOCKS = 168;

/** One hour of one pair: per figure, its ticks where both had the figure, how often each was lower, and the median d. */
export interface PairBlock {
  hour: number;
  /** Per figure: paired ticks (null: not stored; rows written before per-figure counts kept TTFA's alone). */
  n: Array<number | null>;
  /** Per figure: ticks where A's figure was lower (a tie counts for neither side), and where B's was. */
  aWins: Array<number | null>;
  bWins: Array<number | null>;
  /** Median of d = ln(x_A / x_B) over the hour's pairs, per figure (null: the figure had no pair this hour). */
  d: Array<number | null>;
}

export type Verdict = 'a_faster' | 'b_faster' | 'no_difference' | 'not_enough_data';

export interface PairedResult {
  /** Paired ticks of the figure; null when an hour of the window was stored without its per-figure count. */
  pairs: number | null;
  hours: number;
  /** Hours each ranked block joins: from the hours' autocorrelation, at least ⌈hours / MAX_BLOCKS⌉; null without hours. */
  block_hours: number | null;
  /** The measured lag-1 autocorrelation of the hours' median d (null with too few hours, or all alike). */
  hour_autocorrelation: number | null;
  /** The blocks ranked. */
  blocks: number;
  /** A's figure relative to B's, in percent: 100·(e^shift − 1); negative when A is faster. */
  difference_pct: number | null;
  ci_low_pct: number | null;
  ci_high_pct: number | null;
  /** The confidence level the interval was computed at (lower than 95 % only when it stands alone; Holm raises it). */
  confidence: number;
  /** Share of paired ticks where A's figure was lower, and where B's was (a tie counts for neither); null when not stored. */
  win_rate: number | null;
  b_win_rate: number | null;
  /** Two-sided p-value of no shift, from the interval's own ranks (≤ 1 − confidence exactly when the interval excludes 0). */
  p_value: number | null;
  verdict: Verdict;
  /** With `not_enough_data`: about how many more paired ticks would settle it (an estimate from the interval's width). */
  more_ticks: number | null;
}

const pct = (x: number) => 100 * (Math.exp(x) - 1);

/** d = ln(a/b) of each tick where both have a positive figure; `aWins`: ticks where a < b, `bWins`: where b < a. */
export function pairedDifferences(
  a: ReadonlyMap<number, number>,
  b: ReadonlyMap<number, number>,
): { d: number[]; aWins: number; bWins: number } {
  const d: number[] = [];
  let aWins = 0;
  let bWins = 0;
  for (const [tick, x] of a) {
    const y = b.get(tick);
    if (y === undefined || !(x > 0) || !(y > 0)) continue;
    d.push(Math.log(x / y));
    if (x < y) aWins++;
    else if (y < x) bWins++;
  }
  return { d, aWins, bWins };
}

/** The hour's block: per figure its pairs' count, each side's wins and median d; null when no figure has a pair. */
export function pairBlock(
  hour: number,
  figures: ReadonlyArray<{ a: ReadonlyMap<number, number>; b: ReadonlyMap<number, number> }>,
): PairBlock | null {
  const per = figures.map((f) => pairedDifferences(f.a, f.b));
  if (per.every((p) => p.d.length === 0)) return null;
  return {
    hour,
    n: per.map((p) => p.d.length),
    aWins: per.map((p) => p.aWins),
    bWins: per.map((p) => p.bWins),
    d: per.map((p) => (p.d.length > 0 ? percentile(p.d, 0.5) : null)),
  };
}

/** Two-sided p-value of no shift over `y` (block values, any order), read from their Walsh averages. */
export function signedRankPValue(y: readonly number[]): number | null {
  if (y.length === 0) return null;
  return walshPValue(Float64Array.from(y).sort());
}

function walshPValue(sorted: Float64Array): number {
  const m = sorted.length;
  const M = (m * (m + 1)) / 2;
  return signedRankPFromCounts(m, walshCount(sorted, 0), M - walshCount(sorted, 0, true));
}

/** The Hodges–Lehmann shift of block values and its signed-rank interval at `confidence`. */
export function hodgesLehmann(
  y: readonly number[],
  confidence = CONFIDENCE,
): { estimate: number; low: number | null; high: number | null } | null {
  if (y.length === 0) return null;
  const sorted = Float64Array.from(y).sort();
  const bounds = walshInterval(sorted, confidence);
  return { estimate: walshMedian(sorted), low: bounds?.[0] ?? null, high: bounds?.[1] ?? null };
}

/** [W(k), W(M+1−k)] at `confidence`, or null when the blocks are too few for it. */
function walshInterval(sorted: Float64Array, confidence: number): [number, number] | null {
  const m = sorted.length;
  const k = m > 0 ? intervalRank(m, confidence) : null;
  if (k === null) return null;
  const M = (m * (m + 1)) / 2;
  return [walshOrderStatistic(sorted, k), walshOrderStatistic(sorted, M + 1 - k)];
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

/** What a comparison needs of its blocks, whatever the confidence: worked out once, then read at each Holm level. */
export interface PairedStats {
  pairs: number | null;
  aWins: number | null;
  bWins: number | null;
  hours: number;
  blockHours: number | null;
  lag1: number | null;
  /** The block values ranked, ascending. */
  y: Float64Array;
  /** Their Hodges–Lehmann estimate (null without blocks). */
  estimate: number | null;
  p_value: number | null;
}

/** A figure's series from hourly blocks (`figure`: the index into each block's per-figure arrays). */
export function seriesOf(blocks: readonly PairBlock[], figure = 0): PairSeries {
  const builder = new PairSeriesBuilder(blocks.length);
  for (const b of blocks) builder.add(b.hour, b.n[figure], b.aWins[figure], b.bWins[figure], b.d[figure]);
  return builder.finish();
}

/** A figure's stats from its hourly blocks (`figure`: the index into each block's per-figure arrays). */
export function pairedStats(blocks: readonly PairBlock[], figure = 0): PairedStats {
  const s = seriesOf(blocks, figure);
  return seriesStats(s, 0, s.length);
}

/** The stats of a series' hours [lo, hi) (those of [from, to) from hourIndex). */
export function seriesStats(s: PairSeries, lo: number, hi: number): PairedStats {
  // Summed in hour order; a count any hour did not store makes its total unknown (what the sum then holds is unread).
  let n = 0;
  let a = 0;
  let b = 0;
  let u = 0;
  const { unknown } = s;
  for (let i = lo; i < hi; i++) {
    u |= unknown[i];
    n += s.n[i];
    a += s.aWins[i];
    b += s.bWins[i];
  }
  const pairs = u & 1 ? null : n;
  const aWins = u & 2 ? null : a;
  const bWins = u & 4 ? null : b;
  if (hi <= lo)
    return { pairs, aWins, bWins, hours: 0, blockHours: null, lag1: null, y: new Float64Array(0), estimate: null, p_value: null };
  const span = Math.round((s.hours[hi - 1] - s.hours[lo]) / HOUR_MS) + 1;
  const length = blockLengthOf(s.hours, s.d, lo, hi, Math.ceil(span / MAX_BLOCKS));
  const y = joinHoursOf(s.hours, s.d, lo, hi, length.hours).sort();
  return {
    pairs,
    aWins,
    bWins,
    hours: hi - lo,
    blockHours: length.hours,
    lag1: length.lag1,
    y,
    estimate: walshMedian(y),
    p_value: walshPValue(y),
  };
}

/** The comparison's figures at `confidence`: interval, verdict and the estimate of more ticks needed. */
export function pairedResult(st: PairedStats, margin = DEFAULT_MARGIN, confidence = CONFIDENCE): PairedResult {
  const { pairs, y } = st;
  const m = y.length;
  const bounds = walshInterval(y, confidence);
  const low = bounds?.[0] ?? null;
  const high = bounds?.[1] ?? null;
  const lowPct = low === null ? null : pct(low);
  const highPct = high === null ? null : pct(high);
  const verdict = verdictOf(lowPct, highPct, margin);
  const more = verdict === 'not_enough_data' && pairs !== null ? moreTicks(y, pairs, low, high, margin, confidence) : null;
  const share = (wins: number | null) => (wins === null || pairs === null || pairs === 0 ? null : wins / pairs);
  return {
    pairs,
    hours: st.hours,
    block_hours: st.blockHours,
    hour_autocorrelation: st.lag1,
    blocks: m,
    difference_pct: st.estimate === null ? null : pct(st.estimate),
    ci_low_pct: lowPct,
    ci_high_pct: highPct,
    confidence,
    win_rate: share(st.aWins),
    b_win_rate: share(st.bWins),
    p_value: st.p_value,
    verdict,
    more_ticks: more,
  };
}

/**
 * About how many more paired ticks an unsettled comparison needs: the blocks needed scale with the square of how
 * much the interval's half-width must shrink (to whichever of "fits the margin" or "excludes 0" is nearer), times
 * ticks per block. Without an interval yet (too few blocks), its half-width is foreseen from the blocks' spread
 * (the Hodges–Lehmann shift's standard error, about 1.02 σ / √m for symmetric blocks), and at least the blocks an
 * interval needs. An estimate, not a promise.
 */
function moreTicks(
  y: Float64Array,
  pairs: number,
  low: number | null,
  high: number | null,
  margin: number,
  confidence: number,
): number | null {
  const m = y.length;
  if (m === 0) return null;
  const perBlock = pairs / m;
  const edge = Math.log(1 + margin);
  const needed = (centre: number, half: number) => {
    const target = Math.max(edge - Math.abs(centre), Math.abs(centre));
    return Math.ceil(m * (half / Math.max(target, 1e-9)) ** 2);
  };
  let blocks: number;
  if (low !== null && high !== null) blocks = needed((low + high) / 2, (high - low) / 2);
  else {
    blocks = minimumBlocks(confidence);
    if (m >= 2) {
      let mean = 0;
      for (const v of y) mean += v;
      mean /= m;
      let ss = 0;
      for (const v of y) ss += (v - mean) ** 2;
      const half = normalQuantile(1 - (1 - confidence) / 2) * HL_SE_FACTOR * Math.sqrt(ss / (m - 1) / m);
      blocks = Math.max(blocks, needed(walshMedian(y), half));
    }
  }
  return Math.ceil(perBlock * Math.max(1, blocks - m));
}

/** The Hodges–Lehmann shift's standard error over m symmetric blocks of spread σ, in units of σ / √m (√(π/3) for normal blocks). */
const HL_SE_FACTOR = Math.sqrt(Math.PI / 3);

/**
 * A over B on one figure from its hourly blocks, at `confidence` (`more_ticks`: see moreTicks).
 */
export function comparePaired(blocks: readonly PairBlock[], figure = 0, margin = DEFAULT_MARGIN, confidence = CONFIDENCE): PairedResult {
  return pairedResult(pairedStats(blocks, figure), margin, confidence);
}

/**
 * Comparisons shown together, each from its own hourly blocks, on one figure: Holm's levels from their p-values,
 * then each interval at its level. Results in input order. A pure function of the blocks, for whoever shows a family.
 */
export function compareFamily(blockSets: ReadonlyArray<readonly PairBlock[]>, figure = 0, margin = DEFAULT_MARGIN): PairedResult[] {
  return familyResults(
    blockSets.map((blocks) => pairedStats(blocks, figure)),
    margin,
  );
}

/** A family's results from its comparisons' stats: Holm's levels from their p-values, then each interval at its level. */
export function familyResults(stats: readonly PairedStats[], margin = DEFAULT_MARGIN): PairedResult[] {
  const levels = holmLevels(stats.map((st) => st.p_value));
  return stats.map((st, i) => pairedResult(st, margin, levels[i]));
}

/** The fewest blocks with which the signed-rank interval exists at `confidence` (6 at 95 %). */
export function minimumBlocks(confidence = CONFIDENCE): number {
  return minimumBlocksAt(confidence);
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
