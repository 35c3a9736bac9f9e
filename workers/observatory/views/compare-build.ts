/**
 * What the compare views hold, from each family's rows (views/compare-views.ts reads them; bench/duties.ts measures
 * this very code at the goal's scale): per window and figure, every family's comparisons, each family computed whole
 * once per window from one decoding of its rows. Plain TypeScript (no binding).
 */
import type { ComparisonDoc } from '../../../shared/api-types.ts';
import {
  compareDocument,
  familySeries,
  familySeriesComparisons,
  type PairedFamily,
  type ParsedPairedRow,
} from '../../../shared/rollup/paired-families.ts';
import type { PackedPairedDay } from '../../../shared/rollup/paired-days.ts';
import { PAIRED_FIGURES } from '../../../shared/rollup/paired-hours.ts';
import { DEFAULT_MARGIN } from '../../../shared/stats/paired.ts';
import type { ViewList } from '../../../shared/views/view-text.ts';
import { keysFirst } from '../../../shared/views/view-match.ts';
import type { ViewSpan } from '../../../shared/views/windows.ts';

/** A comparison's line starts with its family and its pair: what a request narrows by. */
export const COMPARE_LIST: ViewList = { field: 'comparisons', keys: ['region', 'prompt_variant', 'a', 'b'] };

export const compareViewName = (window: string, figure: string) => `compare/${window}/${figure}`;

/** Collects the views family by family (a family's rows may be dropped once added), then gives them. */
export class CompareViewBuilder {
  private readonly spans: readonly ViewSpan[];
  private readonly found: Array<Map<string, ComparisonDoc[]>>;

  constructor(spans: readonly ViewSpan[]) {
    this.spans = spans;
    this.found = spans.map(() => new Map(PAIRED_FIGURES.map((f) => [f, []])));
  }

  /** One family's comparisons in every window and figure, from its hours of the longest window (hourly rows and packed days). */
  add(f: PairedFamily, rows: readonly ParsedPairedRow[], days: readonly PackedPairedDay[] = []): void {
    const pairs = familySeries(f, rows, PAIRED_FIGURES, days);
    this.spans.forEach((span, i) => {
      for (const [figure, comparisons] of familySeriesComparisons(f, pairs, PAIRED_FIGURES, DEFAULT_MARGIN, span.from, span.to))
        this.found[i].get(figure)!.push(...comparisons.map((c) => keysFirst(c, COMPARE_LIST.keys)));
    });
  }

  views(): Array<{ name: string; doc: object; list: ViewList }> {
    return this.spans.flatMap((span, i) =>
      PAIRED_FIGURES.map((figure) => ({
        name: compareViewName(span.id, figure),
        doc: compareDocument(span.from, span.to, figure, DEFAULT_MARGIN, this.found[i].get(figure)!),
        list: COMPARE_LIST,
      })),
    );
  }
}
