/**
 * One paired family's part of a weekly report (build-report.ts reads its rows; bench/duties.ts measures this very
 * code at the goal's scale): its pairs' blocks from one parse of its rows of both weeks, each week ranked whole on
 * every figure by the compare code (shared/rollup/paired-families.ts), the leaders and the verdicts that changed.
 * Plain TypeScript (no binding).
 */
import { familyBlocks, familyComparisons, type PairedFamily, type ParsedPairedRow } from '../../../shared/rollup/paired-families.ts';
import { PAIRED_FIGURES } from '../../../shared/rollup/paired-hours.ts';
import { leadersOf, verdictChanges, type ReportFamily } from '../../../shared/reports/report.ts';
import { DEFAULT_MARGIN } from '../../../shared/stats/paired.ts';

/** One family's figures: this week's comparisons, its leaders, and its changes against the week before. */
export function familyReport(
  f: PairedFamily,
  rows: readonly ParsedPairedRow[],
  week: { from: number; to: number },
  before: { from: number; to: number },
): ReportFamily {
  const pairs = familyBlocks(f, rows);
  const inSpan = (s: { from: number; to: number }) =>
    pairs.map((p) => ({ ...p, blocks: p.blocks.filter((b) => b.hour >= s.from && b.hour < s.to) }));
  const now = familyComparisons(f, inSpan(week), PAIRED_FIGURES, DEFAULT_MARGIN);
  const then = familyComparisons(f, inSpan(before), PAIRED_FIGURES, DEFAULT_MARGIN);
  return {
    region: f.region,
    prompt_variant: f.prompt_variant,
    targets: [...new Set(f.targets)].sort(),
    figures: PAIRED_FIGURES.map((figure) => {
      const comparisons = now.get(figure)!;
      const previous = then.get(figure)!;
      return {
        figure,
        comparisons,
        leaders: leadersOf(comparisons),
        previous_leaders: leadersOf(previous),
        changes: verdictChanges(comparisons, previous),
      };
    }),
  };
}
