/**
 * Rollup rows summed per group for every figure asked for, in one pass: each row's group found once
 * (one Map per grouping column, no key string made per row), each figure's stored bytes added straight
 * to a dense sum (shared/stats/histogram-sum.ts), the split's parts found in the stored split bytes
 * without decoding the parts not asked for. percentiles.ts reads the percentiles from the sums.
 */
import { HistogramSum } from '../stats/histogram-sum.ts';
import { addOneInto } from '../stats/histogram-bytes.ts';
import { readPackedKey, type PackedColumn, type PackedKey, type PackedRollupRows } from './packed-rows.ts';
import {
  readSplit,
  SPLIT_METRICS,
  STORED_HISTOGRAM,
  type Rollup,
  type RollupMetric,
  type SplitMetric,
  type WithStoredHistograms,
} from './rollup.ts';

export type RollupFigure = RollupMetric | SplitMetric;
export type RollupGroupColumn = 'region' | 'target' | 'prompt_variant' | 'split_source';
type GroupKeyColumn = Exclude<RollupGroupColumn, 'split_source'>;
type CountedRow = Record<GroupKeyColumn, string> & { probes: number; successes: number };

/** One group's counts and sums: per figure of its own column, and per split source for the split's parts. */
export interface FigureGroup {
  key: Record<string, string>;
  probes: number;
  successes: number;
  /** By the figure's place among the column figures asked for. */
  columns: HistogramSum[];
  /** split_source (in the order first seen) → by the part's place among the split parts asked for. */
  split: Map<string, HistogramSum[]>;
}

const isSplitFigure = (f: RollupFigure): f is SplitMetric => (SPLIT_METRICS as readonly string[]).includes(f);

/** The groups of `by`, each made on its first row. */
export class FigureGroups {
  private readonly columns: GroupKeyColumn[];
  private readonly root = new Map<string, unknown>();
  private readonly made: FigureGroup[] = [];
  private readonly sumsPerGroup: number;

  constructor(by: readonly RollupGroupColumn[], sumsPerGroup: number) {
    this.columns = by.filter((c): c is GroupKeyColumn => c !== 'split_source');
    this.sumsPerGroup = sumsPerGroup;
  }

  /** The row's group, its counts added. */
  of(row: CountedRow): FigureGroup {
    const columns = this.columns;
    let g: FigureGroup | undefined;
    if (columns.length === 0) g = this.made[0] ?? this.make(row);
    else {
      let level = this.root;
      for (let c = 0; c < columns.length - 1; c++) {
        let next = level.get(row[columns[c]]) as Map<string, unknown> | undefined;
        if (!next) level.set(row[columns[c]], (next = new Map()));
        level = next;
      }
      const value = row[columns[columns.length - 1]];
      g = level.get(value) as FigureGroup | undefined;
      if (!g) level.set(value, (g = this.make(row)));
    }
    g.probes += row.probes;
    g.successes += row.successes;
    return g;
  }

  all(): FigureGroup[] {
    return this.made;
  }

  private make(row: CountedRow): FigureGroup {
    const g: FigureGroup = {
      key: Object.fromEntries(this.columns.map((c) => [c, row[c]])),
      probes: 0,
      successes: 0,
      columns: Array.from({ length: this.sumsPerGroup }, () => new HistogramSum()),
      split: new Map(),
    };
    this.made.push(g);
    return g;
  }
}

/** The sums of `figures` per group of `by`, rows added one at a time. */
export class FigureSums {
  private readonly groups: FigureGroups;
  private readonly columnFigures: RollupMetric[];
  private readonly splitParts: number;
  /** For each of SPLIT_METRICS, its place among the split parts asked for (-1: not asked). */
  private readonly splitSlot: number[];

  constructor(figures: readonly RollupFigure[], by: readonly RollupGroupColumn[]) {
    this.columnFigures = [...new Set(figures.filter((f): f is RollupMetric => !isSplitFigure(f)))];
    const parts = [...new Set(figures.filter(isSplitFigure))];
    this.splitParts = parts.length;
    this.splitSlot = SPLIT_METRICS.map((m) => parts.indexOf(m));
    this.groups = new FigureGroups(by, this.columnFigures.length);
  }

  /** A rollup: its stored bytes when it came from D1 (one row's histogram each), else its decoded histograms. */
  addRollup(r: Rollup): void {
    const g = this.groups.of(r);
    const stored = r.histograms as WithStoredHistograms;
    for (let f = 0; f < this.columnFigures.length; f++) {
      const bytes = stored[STORED_HISTOGRAM]?.(this.columnFigures[f]);
      if (bytes) g.columns[f].addEncoded(bytes);
      else g.columns[f].add(r.histograms[this.columnFigures[f]]);
    }
    if (this.splitParts === 0) return;
    const splitBytes = stored[STORED_HISTOGRAM]?.('split');
    if (splitBytes) readSplit(splitBytes, this.splitVisitor(g, splitBytes));
    else
      for (const [source, parts] of r.split) {
        const sums = this.splitSums(g, source);
        for (let m = 0; m < this.splitSlot.length; m++) if (this.splitSlot[m] >= 0) sums[this.splitSlot[m]].add(parts[SPLIT_METRICS[m]]);
      }
  }

  /** The columns a packed read must hold for these sums, in the order they are read (packed-rows.ts). */
  get packedColumns(): PackedColumn[] {
    return [...this.columnFigures, ...(this.splitParts > 0 ? (['split'] as const) : [])];
  }

  /** A region's packed rows (packed-rows.ts), holding `packedColumns` in their order; throws on bytes that do not. */
  addPacked(rows: PackedRollupRows): void {
    const { bytes, region } = rows;
    const key = PACKED_ROW;
    key.region = region;
    for (let p = 0; p < bytes.length; ) {
      p = readPackedKey(bytes, p, key);
      const g = this.groups.of(key);
      for (let f = 0; f < this.columnFigures.length; f++) p = addOneInto(g.columns[f], bytes, p, bytes.length);
      if (this.splitParts > 0) p = readSplit(bytes, this.splitVisitor(g, bytes), p);
    }
  }

  all(): FigureGroup[] {
    return this.groups.all();
  }

  /** A group's sums of `figure`, each with its split_source (null for a figure of its own column), in the order first seen. */
  sumsOf(figure: RollupFigure): (g: FigureGroup) => Array<[string | null, HistogramSum]> {
    if (isSplitFigure(figure)) {
      const slot = this.splitSlot[SPLIT_METRICS.indexOf(figure)];
      return (g) => [...g.split].map(([source, sums]) => [source, sums[slot]]);
    }
    const slot = this.columnFigures.indexOf(figure);
    return (g) => [[null, g.columns[slot]]];
  }

  private splitVisitor(g: FigureGroup, bytes: Uint8Array): (source: string, at: readonly number[]) => void {
    return (source, at) => {
      const sums = this.splitSums(g, source);
      for (let m = 0; m < this.splitSlot.length; m++)
        if (this.splitSlot[m] >= 0) sums[this.splitSlot[m]].addEncoded(bytes, at[2 * m], at[2 * m + 1]);
    };
  }

  /** A group's sums of the split's parts for one source, made when the source is first seen in the group. */
  private splitSums(g: FigureGroup, source: string): HistogramSum[] {
    let sums = g.split.get(source);
    if (!sums) g.split.set(source, (sums = Array.from({ length: this.splitParts }, () => new HistogramSum())));
    return sums;
  }
}

/** The key of the packed row being read (one object for every row: FigureGroups.of copies what it keeps). */
const PACKED_ROW: PackedKey & CountedRow = { region: '', target: '', prompt_variant: '', probes: 0, successes: 0 };
