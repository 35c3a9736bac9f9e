/**
 * Percentiles per group from rollup rows: the rows of each group merged, each percentile estimated
 * from the merged histogram (within HISTOGRAM_RELATIVE_ERROR of the exact value over the same
 * samples), and its 95 % order-statistic interval read from the same histogram. The read API and the
 * site build both answer windows this way.
 */
import { percentileWithCiAt } from '../stats/percentile-ci.ts';
import { emptyHistogram, HistogramSum, rankReader, type ExpHistogram } from '../stats/exp-histogram.ts';
import {
  mergeRollups,
  SPLIT_METRICS,
  STORED_HISTOGRAM,
  type Rollup,
  type RollupMetric,
  type SplitMetric,
  type WithStoredHistograms,
} from './rollup.ts';

import type { PercentileFields, PercentileGroup } from '../api-types.ts';

export { PERCENTILE_NAMES, PERCENTILES } from '../stats/percentile.ts';
import { PERCENTILE_NAMES } from '../stats/percentile.ts';
export type RollupFigure = RollupMetric | SplitMetric;
export type RollupGroupColumn = 'region' | 'target' | 'prompt_variant' | 'split_source';
/** One group's answer (shared/api-types.ts PercentileGroup): both the raw and the rollup paths build it. */
export type GroupRecord = PercentileGroup;
/** A group's key: the values of the columns it is grouped by. */
export type GroupKey = Pick<PercentileGroup, 'region' | 'target' | 'prompt_variant' | 'split_source' | 'served_by'>;

/** Every percentile of PERCENTILE_NAMES with its 95 % interval, over `n` values read by rank. */
export function percentileFields(n: number, at: (rank: number) => number): PercentileFields {
  const out = {} as PercentileFields;
  for (const name of PERCENTILE_NAMES) {
    const p = percentileWithCiAt(n, Number(name.slice(1)) / 100, at);
    out[name] = p.value;
    out[`${name}_ci_low`] = p.ci_low;
    out[`${name}_ci_high`] = p.ci_high;
  }
  return out;
}

/** Groups in the order of their grouping columns (a null value sorts as ''), whichever source answered them. */
export function sortGroups(groups: GroupRecord[], by: readonly string[]): void {
  const value = (g: GroupRecord, c: string) => String((g as unknown as Record<string, unknown>)[c] ?? '');
  groups.sort((a, b) => by.map((c) => value(a, c).localeCompare(value(b, c))).find((d) => d !== 0) ?? 0);
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
  key: Record<string, string>;
  probes: number;
  successes: number;
  histograms: Map<string | null, HistogramSum>;
}

type GroupKeyColumn = Exclude<RollupGroupColumn, 'split_source'>;

type CountedRow = Record<GroupKeyColumn, string> & { probes: number; successes: number };

/** The groups of `by`, each made on its first row, by the row's key columns. */
class Groups {
  private readonly columns: GroupKeyColumn[];
  private readonly byId = new Map<string, FigureGroup>();

  constructor(by: readonly RollupGroupColumn[]) {
    this.columns = by.filter((c): c is GroupKeyColumn => c !== 'split_source');
  }

  /** The row's group, its counts added. */
  of(row: CountedRow): FigureGroup {
    const id = this.columns.length === 1 ? row[this.columns[0]] : this.columns.map((c) => row[c]).join('\u0000');
    let g = this.byId.get(id);
    if (!g)
      this.byId.set(
        id,
        (g = { key: Object.fromEntries(this.columns.map((c) => [c, row[c]])), probes: 0, successes: 0, histograms: new Map() }),
      );
    g.probes += row.probes;
    g.successes += row.successes;
    return g;
  }

  all(): FigureGroup[] {
    return [...this.byId.values()];
  }
}

const sumIn = (g: FigureGroup, source: string | null): HistogramSum =>
  g.histograms.get(source) ?? g.histograms.set(source, new HistogramSum()).get(source)!;

/**
 * The rows summed per group of `by` for one figure only, each histogram added in place: a long window
 * is thousands of rows, and merging every figure of each row into a fresh copy cost seconds of CPU.
 */
function sumFigure(rows: Iterable<Rollup>, metric: RollupFigure, by: readonly RollupGroupColumn[]): FigureGroup[] {
  const isSplit = (SPLIT_METRICS as readonly string[]).includes(metric);
  const groups = new Groups(by);
  for (const r of rows) {
    const g = groups.of(r);
    if (!isSplit) {
      // Straight from the stored bytes when the row came from D1 (no decoded copy per row).
      const stored = (r.histograms as WithStoredHistograms)[STORED_HISTOGRAM]?.(metric as RollupMetric);
      if (stored) sumIn(g, null).addEncoded(stored);
      else sumIn(g, null).add(r.histograms[metric as RollupMetric]);
      continue;
    }
    for (const [source, p] of r.split) sumIn(g, source).add(p[metric as SplitMetric]);
  }
  return groups.all();
}

/** What a reader of one figure needs of a stored rollup row: its key, its counts, and that figure's stored bytes. */
export interface StoredFigureRow {
  region: string;
  target: string;
  prompt_variant: string;
  probes: number;
  successes: number;
  figure: Uint8Array;
}

/** p50/p90/p95/p99 with intervals, n, samples and error rate per group; the split's parts per split_source. */
export function rollupPercentileGroups(rows: Iterable<Rollup>, metric: RollupFigure, by: readonly RollupGroupColumn[]): GroupRecord[] {
  return recordsOf(sumFigure(rows, metric, by), (SPLIT_METRICS as readonly string[]).includes(metric), by);
}

/**
 * The same from rows read for one figure (not a split part) alone: no rollup made per row, each row's
 * bytes added to its group's sum, so a free-plan request merges thousands of rows (bench/duties.ts).
 */
export function storedFigurePercentileGroups(rows: Iterable<StoredFigureRow>, by: readonly RollupGroupColumn[]): GroupRecord[] {
  const groups = new Groups(by);
  for (const r of rows) sumIn(groups.of(r), null).addEncoded(r.figure);
  return recordsOf(groups.all(), false, by);
}

function recordsOf(groups: FigureGroup[], isSplit: boolean, by: readonly RollupGroupColumn[]): GroupRecord[] {
  const out: GroupRecord[] = [];
  for (const g of groups) {
    const errors = g.probes - g.successes;
    const base = { samples: g.probes, errors, error_rate: g.probes ? errors / g.probes : null };
    const histograms: Array<[string | null, ExpHistogram]> = isSplit
      ? [...g.histograms.entries()].map(([source, sum]) => [source, sum.toHistogram()])
      : [[null, g.histograms.get(null)?.toHistogram() ?? emptyHistogram()]];
    if (by.includes('split_source') && histograms.length === 0) histograms.push([null, emptyHistogram()]);
    for (const [source, h] of histograms) {
      out.push({
        ...(g.key as GroupKey),
        ...(by.includes('split_source') ? { split_source: source } : {}),
        n: h.count,
        ...base,
        ...percentileFields(h.count, rankReader(h)),
      });
    }
  }
  sortGroups(out, by);
  return out;
}
