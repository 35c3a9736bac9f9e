/**
 * Percentiles per group from rollup rows: the rows of each group merged, each percentile estimated
 * from the merged histogram (within HISTOGRAM_RELATIVE_ERROR of the exact value over the same
 * samples), and its 95 % order-statistic interval read from the same histogram. The read API and the
 * site build both answer windows this way.
 */
import { percentileWithCiAt } from '../stats/percentile-ci.ts';
import { HistogramSum } from '../stats/histogram-sum.ts';
import { mergeRollups, SPLIT_METRICS, type Rollup, type RollupMetric } from './rollup.ts';
import { FigureGroups, FigureSums, type FigureGroup, type RollupFigure, type RollupGroupColumn } from './figure-sums.ts';
import type { PackedColumn, PackedRollupRows } from './packed-rows.ts';
import type { PercentileFields, PercentileGroup } from '../api-types.ts';

export { PERCENTILE_NAMES, PERCENTILES } from '../stats/percentile.ts';
import { PERCENTILE_NAMES } from '../stats/percentile.ts';
export type { RollupFigure, RollupGroupColumn } from './figure-sums.ts';
export type { PackedColumn, PackedRollupRows } from './packed-rows.ts';
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

/**
 * What a reader of one figure needs of a stored rollup row: its key, its counts, and that figure's stored bytes.
 */
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
  return rollupPercentileGroupsByFigure(rows, [metric], by).get(metric)!;
}

/**
 * rollupPercentileGroups for several figures at once, from one pass over the rows: for each figure asked,
 * exactly what rollupPercentileGroups(rows, figure, by) gives (the split's parts: what it gives by `partsBy`,
 * `by` with or without split_source), in a Map in the order asked. A reader of many figures over one window
 * (every public view of an hour) finds each row's group once and reads its split once.
 */
export function rollupPercentileGroupsByFigure(
  rows: Iterable<Rollup>,
  figures: readonly RollupFigure[],
  by: readonly RollupGroupColumn[],
  partsBy: readonly RollupGroupColumn[] = by,
): Map<RollupFigure, GroupRecord[]> {
  const sums = new PercentileSums(figures, by, partsBy);
  sums.addRollups(rows);
  return sums.records();
}

/**
 * The same from packed rows (db/rollups.ts packedRowsCovering reads a window so, holding the columns
 * packedColumnsOf(figures) names), for every figure asked at once: what rollupPercentileGroups gives over
 * the rollups those rows hold. The cheapest way to every figure of a window (bench/duties.ts).
 */
export function packedPercentileGroupsByFigure(
  rows: Iterable<PackedRollupRows>,
  figures: readonly RollupFigure[],
  by: readonly RollupGroupColumn[],
  partsBy: readonly RollupGroupColumn[] = by,
): Map<RollupFigure, GroupRecord[]> {
  const sums = new PercentileSums(figures, by, partsBy);
  sums.addPacked(rows);
  return sums.records();
}

/** The columns a packed read must hold for `figures`, in their packed order. */
export function packedColumnsOf(figures: readonly RollupFigure[]): PackedColumn[] {
  return new FigureSums(figures, []).packedColumns;
}

/**
 * Sums of several figures kept open as rows are added, their records read whenever asked (reading them
 * changes nothing): windows that nest are summed once. The public views of 7, 30 and 90 days share their
 * newest rows: add today's hours and the last 7 days, read the 7-day records, add the days back to 30, read,
 * and so on; each window's records are what packedPercentileGroupsByFigure gives over its rows alone.
 */
export class PercentileSums {
  private readonly sums: FigureSums;
  private readonly figures: readonly RollupFigure[];
  private readonly by: readonly RollupGroupColumn[];
  private readonly partsBy: readonly RollupGroupColumn[];

  constructor(figures: readonly RollupFigure[], by: readonly RollupGroupColumn[], partsBy: readonly RollupGroupColumn[] = by) {
    const keyOf = (a: readonly RollupGroupColumn[]) => a.filter((c) => c !== 'split_source').join();
    if (keyOf(partsBy) !== keyOf(by))
      throw new Error(`the split's parts grouped by ${partsBy.join()}, the sums by ${by.join()}: only split_source may differ`);
    this.sums = new FigureSums(figures, by);
    this.figures = figures;
    this.by = by;
    this.partsBy = partsBy;
  }

  /** Packed rows holding packedColumnsOf(figures). */
  addPacked(rows: Iterable<PackedRollupRows>): void {
    for (const r of rows) this.sums.addPacked(r);
  }

  addRollups(rows: Iterable<Rollup>): void {
    for (const r of rows) this.sums.addRollup(r);
  }

  /**
   * One figure of its own column over coarser groups, `by` (a subset of the sums' own grouping: the regions pooled,
   * say), each the sum of the groups it holds: what rollupPercentileGroups gives by `by` over the same rows, with no
   * row read again.
   */
  coarserRecords(figure: RollupMetric, by: readonly RollupGroupColumn[]): GroupRecord[] {
    const columns = by.filter((c): c is Exclude<RollupGroupColumn, 'split_source'> => c !== 'split_source');
    if (columns.some((c) => !this.by.includes(c))) throw new Error(`coarser groups by ${by.join()} than the sums' ${this.by.join()}`);
    const sumOf = this.sums.sumsOf(figure);
    const coarse = new Map<string, { key: Record<string, string>; probes: number; successes: number; sum: HistogramSum }>();
    for (const g of this.sums.all()) {
      const id = columns.map((c) => g.key[c]).join('\u0000');
      let c = coarse.get(id);
      if (!c)
        coarse.set(
          id,
          (c = { key: Object.fromEntries(columns.map((k) => [k, g.key[k]])), probes: 0, successes: 0, sum: new HistogramSum() }),
        );
      c.probes += g.probes;
      c.successes += g.successes;
      c.sum.addSum(sumOf(g)[0][1]);
    }
    const groups = [...coarse.values()].map((c) => ({
      key: c.key,
      probes: c.probes,
      successes: c.successes,
      columns: [c.sum],
      split: new Map(),
    }));
    return recordsOf(groups, by, (g) => [[null, g.columns[0]]]);
  }

  /** Each figure's records over the rows added so far, in a Map in the order asked. */
  records(): Map<RollupFigure, GroupRecord[]> {
    const out = new Map<RollupFigure, GroupRecord[]>();
    for (const f of this.figures)
      if (!out.has(f))
        out.set(
          f,
          recordsOf(this.sums.all(), (SPLIT_METRICS as readonly string[]).includes(f) ? this.partsBy : this.by, this.sums.sumsOf(f)),
        );
    return out;
  }
}

/**
 * The same from rows read for one figure (not a split part) alone: no rollup made per row, each row's
 * bytes added to its group's sum, so a free-plan request merges thousands of rows (bench/duties.ts).
 */
export function storedFigurePercentileGroups(rows: Iterable<StoredFigureRow>, by: readonly RollupGroupColumn[]): GroupRecord[] {
  const groups = new FigureGroups(by, 1);
  for (const r of rows) groups.of(r).columns[0].addEncoded(r.figure);
  return recordsOf(groups.all(), by, (g) => [[null, g.columns[0]]]);
}

/** Each group's records: one per (split_source, sum) `sumsOf` gives, percentiles read from the dense sums. */
function recordsOf(
  groups: FigureGroup[],
  by: readonly RollupGroupColumn[],
  sumsOf: (g: FigureGroup) => Array<[string | null, HistogramSum]>,
): GroupRecord[] {
  const out: GroupRecord[] = [];
  const bySource = by.includes('split_source');
  for (const g of groups) {
    const errors = g.probes - g.successes;
    const base = { samples: g.probes, errors, error_rate: g.probes ? errors / g.probes : null };
    const sums = sumsOf(g);
    if (bySource && sums.length === 0) sums.push([null, new HistogramSum()]);
    for (const [source, sum] of sums) {
      out.push({
        ...(g.key as GroupKey),
        ...(bySource ? { split_source: source } : {}),
        n: sum.count,
        ...base,
        ...percentileFields(sum.count, sum.rankReader()),
      });
    }
  }
  sortGroups(out, by);
  return out;
}
