/**
 * The families of the paired comparisons (MEASUREMENT.md, "Paired comparisons"): Holm's correction runs across
 * one region × prompt variant × figure, every pair of the targets that run the variant in the region, whatever an
 * answer shows of them. A request's filters then only choose which comparisons are shown (a region or a variant
 * chooses families; targets choose pairs within them): an interval never depends on them, so a narrowed answer is
 * the whole one's lines, and the live route, the public views and the site all give the same number. One
 * function computes a family's comparisons from its stored hourly rows, for each of them.
 */
import type { CompareDoc, ComparisonDoc } from '../api-types.ts';
import { compareFamily, DEFAULT_MARGIN, familyResults, seriesStats, type PairBlock } from '../stats/paired.ts';
import { hourIndex, PairSeriesBuilder, type PairSeries } from '../stats/pair-series.ts';
import {
  BLOCKS_FORMAT,
  blockOf,
  formatOf,
  PAIRED_FIGURES,
  PER_FIGURE,
  pairKey,
  type PairedFigure,
  type StoredBlocks,
} from './paired-hours.ts';
import { readPackedDay, type PackedDaySink, type PackedPairedDay } from './paired-days.ts';

/** One family: a region and a prompt variant, and the targets that run the variant there (any order). */
export interface PairedFamily {
  region: string;
  prompt_variant: string;
  targets: readonly string[];
}

/** An hour's stored row of one region × variant, its blocks parsed. */
export interface ParsedPairedRow {
  hour: number;
  blocks: StoredBlocks;
}

/** Every pair of a family's targets, in id order (a < b). */
export function familyPairs(f: PairedFamily): Array<{ a: string; b: string }> {
  const ids = [...new Set(f.targets)].sort();
  const out: Array<{ a: string; b: string }> = [];
  for (let i = 0; i < ids.length; i++) for (let j = i + 1; j < ids.length; j++) out.push({ a: ids[i], b: ids[j] });
  return out;
}

/** Comparisons a family holds: what its correction ranks, and what computing it costs (COMPARISONS_PER_REQUEST). */
export const familySize = (f: PairedFamily): number => familyPairs(f).length;

/**
 * Each pair's hourly blocks from the family's rows (any order; each row read once, only the family's pairs taken),
 * holding these figures only, in this order (what familyComparisons is then given).
 */
export function familyBlocks(
  f: PairedFamily,
  rows: readonly ParsedPairedRow[],
  figures: readonly PairedFigure[] = PAIRED_FIGURES,
): Array<{ a: string; b: string; blocks: PairBlock[] }> {
  const indices = figures.map((x) => PAIRED_FIGURES.indexOf(x));
  const all = indices.every((x, i) => x === i) && indices.length === PAIRED_FIGURES.length;
  const pairs = familyPairs(f).map((p) => ({ ...p, key: pairKey(p.a, p.b), blocks: [] as PairBlock[] }));
  for (const row of rows) {
    const format = formatOf(row.blocks);
    for (const p of pairs) {
      const raw = row.blocks[p.key];
      if (!Array.isArray(raw)) continue;
      p.blocks.push(all ? blockOf(row.hour, raw, format) : blockFigures(row.hour, raw, format, indices));
    }
  }
  return pairs.map(({ a, b, blocks }) => ({ a, b, blocks }));
}

/** A stored block's figures at these indices (of PAIRED_FIGURES), in that order: blockOf's numbers, the rest never made. */
function blockFigures(hour: number, raw: Array<number | null>, format: number, indices: readonly number[]): PairBlock {
  if (format !== BLOCKS_FORMAT) {
    const whole = blockOf(hour, raw, format);
    const pick = <T>(xs: T[]) => indices.map((i) => xs[i]);
    return { hour, n: pick(whole.n), aWins: pick(whole.aWins), bWins: pick(whole.bWins), d: pick(whole.d) };
  }
  const block: PairBlock = { hour, n: [], aWins: [], bWins: [], d: [] };
  for (const i of indices) {
    block.n.push(raw[PER_FIGURE * i]);
    block.aWins.push(raw[PER_FIGURE * i + 1]);
    block.bWins.push(raw[PER_FIGURE * i + 2]);
    block.d.push(raw[PER_FIGURE * i + 3]);
  }
  return block;
}

/**
 * The family's comparisons on each figure, from its pairs' blocks (familyBlocks, given the same figures): Holm's
 * levels across the family's pairs on that figure, each interval at its level. Pairs in id order.
 */
export function familyComparisons(
  f: PairedFamily,
  pairs: ReadonlyArray<{ a: string; b: string; blocks: readonly PairBlock[] }>,
  figures: readonly PairedFigure[] = PAIRED_FIGURES,
  margin = DEFAULT_MARGIN,
): Map<PairedFigure, ComparisonDoc[]> {
  const out = new Map<PairedFigure, ComparisonDoc[]>();
  figures.forEach((figure, index) => {
    const results = compareFamily(
      pairs.map((p) => p.blocks),
      index,
      margin,
    );
    out.set(
      figure,
      pairs.map((p, i) => ({ region: f.region, prompt_variant: f.prompt_variant, a: p.a, b: p.b, ...results[i] })),
    );
  });
  return out;
}

/** One pair of a family, its series per figure (in the order familySeries was given them). */
export interface PairOfSeries {
  a: string;
  b: string;
  series: PairSeries[];
}

/**
 * Each pair's series of these figures from the family's rows (any order; each row read once, only the family's pairs
 * taken): the numbers familyBlocks gives, as columns, so that any window of them is a range of hours
 * (familySeriesComparisons). What the live route and the views compute from. `days`: the family's whole days packed
 * (paired-days.ts), none of whose hours `rows` holds.
 */
export function familySeries(
  f: PairedFamily,
  rows: readonly ParsedPairedRow[],
  figures: readonly PairedFigure[] = PAIRED_FIGURES,
  days: readonly PackedPairedDay[] = [],
): PairOfSeries[] {
  const indices = figures.map((x) => PAIRED_FIGURES.indexOf(x));
  const all = familyPairs(f);
  const made = PairSeriesBuilder.many(all.length * indices.length, rows.length + 24 * days.length);
  const pairs = all.map((p, i) => ({
    ...p,
    key: pairKey(p.a, p.b),
    builders: made.slice(i * indices.length, (i + 1) * indices.length),
  }));
  // A packed day's figure at position x of PAIRED_FIGURES goes to slot k of its pair (−1: not asked).
  const slots = new Int32Array(PAIRED_FIGURES.length).fill(-1);
  indices.forEach((x, k) => {
    slots[x] = k;
  });
  const pairIndex = new Map(pairs.map((p, i) => [p.key, i]));
  const sink: PackedDaySink = { pairOf: (key) => pairIndex.get(key) ?? -1, slots, perPair: indices.length, builders: made };
  // In hour order (days and hours never overlap): the series then need no sort.
  let next = 0;
  const sortedDays = [...days].sort((a, b) => a.day - b.day);
  const addDaysBefore = (hour: number) => {
    while (next < sortedDays.length && sortedDays[next].day < hour) readPackedDay(sortedDays[next++], sink);
  };
  for (const row of rows) {
    addDaysBefore(row.hour);
    const format = formatOf(row.blocks);
    for (const p of pairs) {
      const raw = row.blocks[p.key];
      if (!Array.isArray(raw)) continue;
      const builders = p.builders;
      if (format === BLOCKS_FORMAT)
        for (let k = 0; k < indices.length; k++) {
          const at = PER_FIGURE * indices[k];
          builders[k].add(row.hour, raw[at], raw[at + 1], raw[at + 2], raw[at + 3]);
        }
      // Format 1 (blockOf): [ticks, A's wins, d per figure], the counts TTFA's alone, B's wins never stored.
      else
        for (let k = 0; k < indices.length; k++) {
          const x = indices[k];
          builders[k].add(row.hour, x === 0 ? (raw[0] ?? 0) : null, x === 0 ? (raw[1] ?? 0) : null, null, raw[2 + x]);
        }
    }
  }
  addDaysBefore(Infinity);
  return pairs.map(({ a, b, builders }) => ({ a, b, series: builders.map((x) => x.finish()) }));
}

/**
 * The family's comparisons on each figure over the hours [from, to) of its pairs' series (familySeries, given the same
 * figures): familyComparisons' answer, from the same numbers. Pairs in id order.
 */
export function familySeriesComparisons(
  f: PairedFamily,
  pairs: readonly PairOfSeries[],
  figures: readonly PairedFigure[] = PAIRED_FIGURES,
  margin = DEFAULT_MARGIN,
  from = -Infinity,
  to = Infinity,
): Map<PairedFigure, ComparisonDoc[]> {
  const out = new Map<PairedFigure, ComparisonDoc[]>();
  figures.forEach((figure, index) => {
    const results = familyResults(
      pairs.map((p) => {
        const s = p.series[index];
        const lo = hourIndex(s.hours, from);
        return seriesStats(s, lo, hourIndex(s.hours, to, lo));
      }),
      margin,
    );
    out.set(
      figure,
      pairs.map((p, i) => ({ region: f.region, prompt_variant: f.prompt_variant, a: p.a, b: p.b, ...results[i] })),
    );
  });
  return out;
}

/** What a compare answer says of its method: one sentence, the same from the live route and the views. */
export const COMPARE_METHOD =
  "paired by tick: d = ln(x_A / x_B) where both succeeded; each hour its median d; consecutive hours joined into blocks of block_hours, as long as the hours' measured autocorrelation needs (each block the mean of its hours); Hodges-Lehmann shift with the Wilcoxon signed-rank interval over the blocks, Holm-corrected within the family (one region × prompt variant × figure: every pair of the targets that run the variant there, whichever the answer shows) by p-values read from the same ranks; difference_pct = 100(e^shift - 1), negative when A is faster; win_rate and b_win_rate: shares of paired ticks each side was lower on this figure (a tie counts for neither)";

/** GET /api/v1/compare's answer: its window of whole hours, figure, margin and method, and the comparisons shown. */
export function compareDocument(
  fromHour: number,
  toHour: number,
  figure: PairedFigure,
  margin: number,
  comparisons: ComparisonDoc[],
): CompareDoc {
  return {
    window: { from: new Date(fromHour).toISOString(), to: new Date(Math.max(fromHour, toHour)).toISOString() },
    figure,
    margin_pct: margin * 100,
    method: COMPARE_METHOD,
    comparisons,
  };
}
