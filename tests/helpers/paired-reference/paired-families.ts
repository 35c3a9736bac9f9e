// A reading-only copy of the code before the paired speed-up (commit cf35aa9); see tests/helpers/paired-reference.ts.
/**
 * The families of the paired comparisons (MEASUREMENT.md, "Paired comparisons"): Holm's correction runs across
 * one region × prompt variant × figure, every pair of the targets that run the variant in the region, whatever an
 * answer shows of them. A request's filters then only choose which comparisons are shown (a region or a variant
 * chooses families; targets choose pairs within them): an interval never depends on them, so a narrowed answer is
 * the whole one's lines, and the live route, the public views and the site all give the same number. One
 * function computes a family's comparisons from its stored hourly rows, for each of them.
 */
import type { CompareDoc, ComparisonDoc } from '../../../shared/api-types.ts';
import { compareFamily, DEFAULT_MARGIN, type PairBlock } from './paired.ts';
import {
  BLOCKS_FORMAT,
  blockOf,
  formatOf,
  PAIRED_FIGURES,
  PER_FIGURE,
  pairKey,
  type PairedFigure,
  type StoredBlocks,
} from '../../../shared/rollup/paired-hours.ts';

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
