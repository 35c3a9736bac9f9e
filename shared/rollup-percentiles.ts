/**
 * Percentiles per group from rollup rows: the rows of each group merged, each percentile estimated
 * from the merged histogram (within HISTOGRAM_RELATIVE_ERROR of the exact value over the same
 * samples), and its 95 % order-statistic interval read from the same histogram. The read API and the
 * site build both answer windows this way.
 */
import { percentileWithCiAt } from './stats/percentile-ci.ts';
import { emptyHistogram, mergeInto, rankReader, type ExpHistogram } from './stats/exp-histogram.ts';
import { mergeRollups, SPLIT_METRICS, type Rollup, type RollupMetric, type SplitMetric } from './rollup.ts';

export const PERCENTILES = [0.5, 0.9, 0.95, 0.99] as const;
export type RollupFigure = RollupMetric | SplitMetric;
export type RollupGroupColumn = 'region' | 'target' | 'prompt_variant' | 'split_source';
export type GroupRecord = Record<string, string | number | null>;

/** Groups in the order of their grouping columns (a null value sorts as ''), whichever source answered them. */
export function sortGroups(groups: GroupRecord[], by: readonly string[]): void {
  groups.sort((a, b) => by.map((c) => String(a[c] ?? '').localeCompare(String(b[c] ?? ''))).find((d) => d !== 0) ?? 0);
}

/** The rows merged per group of `by` (split_source aside: it lives inside a row). */
export function mergeGroups(rows: Iterable<Rollup>, by: readonly RollupGroupColumn[]): Rollup[] {
  const rollupBy = by.filter((c): c is Exclude<RollupGroupColumn, 'split_source'> => c !== 'split_source');
  const groups = new Map<string, Rollup>();
  for (const r of rows) {
    const id = rollupBy.map((c) => r[c]).join('\u0000');
    const g = groups.get(id);
    groups.set(id, g ? mergeRollups(g, r) : r);
  }
  return [...groups.values()];
}

/** One group's sums for one figure: counts, and the figure's histogram (per split_source for a split part). */
interface FigureGroup {
  row: Rollup;
  probes: number;
  successes: number;
  histograms: Map<string | null, ExpHistogram>;
}

/**
 * The rows summed per group of `by` for one figure only, each histogram added in place: a long window
 * is thousands of rows, and merging every figure of each row into a fresh copy cost seconds of CPU.
 */
function sumFigure(rows: Iterable<Rollup>, metric: RollupFigure, by: readonly RollupGroupColumn[]): FigureGroup[] {
  const rollupBy = by.filter((c): c is Exclude<RollupGroupColumn, 'split_source'> => c !== 'split_source');
  const isSplit = (SPLIT_METRICS as readonly string[]).includes(metric);
  const groups = new Map<string, FigureGroup>();
  for (const r of rows) {
    const id = rollupBy.map((c) => r[c]).join('\u0000');
    let g = groups.get(id);
    if (!g) groups.set(id, (g = { row: r, probes: 0, successes: 0, histograms: new Map() }));
    g.probes += r.probes;
    g.successes += r.successes;
    const parts: Array<[string | null, ExpHistogram | undefined]> = isSplit
      ? [...r.split.entries()].map(([source, p]) => [source, p[metric as SplitMetric]])
      : [[null, r.histograms[metric as RollupMetric]]];
    for (const [source, h] of parts) {
      if (!h) continue;
      mergeInto(g.histograms.get(source) ?? g.histograms.set(source, emptyHistogram()).get(source)!, h);
    }
  }
  return [...groups.values()];
}

/** p50/p90/p95/p99 with intervals, n, samples and error rate per group; the split's parts per split_source. */
export function rollupPercentileGroups(rows: Iterable<Rollup>, metric: RollupFigure, by: readonly RollupGroupColumn[]): GroupRecord[] {
  const rollupBy = by.filter((c) => c !== 'split_source') as Array<Exclude<RollupGroupColumn, 'split_source'>>;
  const isSplit = (SPLIT_METRICS as readonly string[]).includes(metric);
  const out: GroupRecord[] = [];
  for (const g of sumFigure(rows, metric, by)) {
    const key = Object.fromEntries(rollupBy.map((c) => [c, g.row[c]]));
    const errors = g.probes - g.successes;
    const base = { samples: g.probes, errors, error_rate: g.probes ? errors / g.probes : null };
    const histograms: Array<[string | null, ExpHistogram]> = isSplit
      ? [...g.histograms.entries()]
      : [[null, g.histograms.get(null) ?? emptyHistogram()]];
    if (by.includes('split_source') && histograms.length === 0) histograms.push([null, emptyHistogram()]);
    for (const [source, h] of histograms) {
      const record: GroupRecord = { ...key, ...(by.includes('split_source') ? { split_source: source } : {}), n: h.count, ...base };
      const at = rankReader(h);
      for (const q of PERCENTILES) {
        const name = `p${Math.round(q * 100)}`;
        const p = percentileWithCiAt(h.count, q, at);
        record[name] = p.value;
        record[`${name}_ci_low`] = p.ci_low;
        record[`${name}_ci_high`] = p.ci_high;
      }
      out.push(record);
    }
  }
  sortGroups(out, by);
  return out;
}
