/**
 * The rollup merge as it was before issue 33 (commit 0876b4a), kept as it was: each bucket handed to a
 * callback from a cursor in module state, sums turned into a Map per group before any percentile was
 * read, /metrics from every histogram decoded into a Map. The oracle the dense merge is tested equal to
 * (tests/shared/stats/dense-merge.test.ts), and the baseline bench/duties.ts measures beside it, in the same run.
 */
import { ERROR_CLASSES } from '../../shared/ids.ts';
import {
  percentileFields,
  sortGroups,
  type GroupKey,
  type GroupRecord,
  type RollupFigure,
  type RollupGroupColumn,
  type StoredFigureRow,
} from '../../shared/rollup/percentiles.ts';
import {
  SPLIT_METRICS,
  STORED_HISTOGRAM,
  type Rollup,
  type RollupMetric,
  type SplitMetric,
  type WithStoredHistograms,
} from '../../shared/rollup/rollup.ts';
import {
  emptyHistogram,
  HISTOGRAM_SCALE,
  lowerBound,
  rankReader,
  sumOf,
  type ExpHistogram,
  HistogramFormatError,
} from '../../shared/stats/exp-histogram.ts';
import { HISTOGRAM_FAMILIES, SPLIT_FAMILIES, type Family } from '../../workers/observatory/api/prometheus.ts';

const FORMAT_VERSION = 1;
const unzigzag = (n: number): number => (n % 2 === 0 ? n / 2 : -(n + 1) / 2);
const SCRATCH_BYTES = new Uint8Array(16);
const SCRATCH = new DataView(SCRATCH_BYTES.buffer);
const endsEarly = () => new HistogramFormatError('histogram bytes end early');
type HistogramHeader = Pick<ExpHistogram, 'count' | 'zeroCount' | 'sumUnits' | 'min' | 'max'>;

let cursorBytes: Uint8Array = new Uint8Array(0);
let cursor = 0;

function nextVarint(): number {
  let n = 0;
  let mult = 1;
  for (;;) {
    if (cursor >= cursorBytes.length) throw endsEarly();
    const b = cursorBytes[cursor++];
    n += (b & 0x7f) * mult;
    if (b < 0x80) return n;
    mult *= 0x80;
  }
}

function readHistogram(bytes: Uint8Array, header: HistogramHeader, bucket: (index: number, count: number) => void): void {
  const end = bytes.length;
  if (end < 1) throw endsEarly();
  if (bytes[0] !== FORMAT_VERSION) throw new HistogramFormatError(`unknown histogram format ${bytes[0]}`);
  if (end < 2) throw endsEarly();
  const scale = bytes[1] > 127 ? bytes[1] - 256 : bytes[1];
  if (scale !== HISTOGRAM_SCALE) throw new HistogramFormatError(`histogram scale ${scale}, expected ${HISTOGRAM_SCALE}`);
  cursorBytes = bytes;
  cursor = 2;
  header.count = nextVarint();
  header.zeroCount = nextVarint();
  header.sumUnits = unzigzag(nextVarint());
  header.min = Infinity;
  header.max = -Infinity;
  if (header.count > 0) {
    if (cursor + 16 > end) throw endsEarly();
    SCRATCH_BYTES.set(bytes.subarray(cursor, cursor + 16));
    header.min = SCRATCH.getFloat64(0, true);
    header.max = SCRATCH.getFloat64(8, true);
    cursor += 16;
  }
  const n = nextVarint();
  let index = 0;
  for (let k = 0; k < n; k++) {
    index = k === 0 ? unzigzag(nextVarint()) : index + nextVarint();
    bucket(index, nextVarint());
  }
  if (cursor !== end) throw new HistogramFormatError('trailing bytes after the histogram');
}

export function decodeHistogramBefore(bytes: Uint8Array): ExpHistogram {
  const h = emptyHistogram();
  readHistogram(bytes, h, (index, count) => h.buckets.set(index, count));
  return h;
}

function decodeSplitBefore(bytes: Uint8Array): Map<string, Record<SplitMetric, ExpHistogram>> {
  let p = 0;
  const varint = () => {
    let n = 0;
    for (let mult = 1; ; mult *= 0x80) {
      if (p >= bytes.length) throw new Error('split bytes end early');
      const b = bytes[p++];
      n += (b & 0x7f) * mult;
      if (b < 0x80) return n;
    }
  };
  const take = (n: number) => {
    if (p + n > bytes.length) throw new Error('split bytes end early');
    return bytes.subarray(p, (p += n));
  };
  const split = new Map<string, Record<SplitMetric, ExpHistogram>>();
  const n = varint();
  for (let k = 0; k < n; k++) {
    const source = new TextDecoder().decode(take(varint()));
    const network_ms = decodeHistogramBefore(take(varint()));
    const server_ms = decodeHistogramBefore(take(varint()));
    split.set(source, { network_ms, server_ms });
  }
  return split;
}

const READ_HEADER: HistogramHeader = { count: 0, zeroCount: 0, sumUnits: 0, min: Infinity, max: -Infinity };

class HistogramSumBefore {
  count = 0;
  zeroCount = 0;
  sumUnits = 0;
  min = Infinity;
  max = -Infinity;
  private counts = new Float64Array(0);
  private low = 0;
  private readonly bumpBucket = (index: number, count: number): void => this.bump(index, count);

  add(h: ExpHistogram): void {
    this.addHeader(h.count, h.zeroCount, h.sumUnits, h.min, h.max);
    for (const [i, n] of h.buckets) this.bump(i, n);
  }

  addEncoded(bytes: Uint8Array): void {
    readHistogram(bytes, READ_HEADER, this.bumpBucket);
    this.addHeader(READ_HEADER.count, READ_HEADER.zeroCount, READ_HEADER.sumUnits, READ_HEADER.min, READ_HEADER.max);
  }

  toHistogram(): ExpHistogram {
    const h = emptyHistogram();
    Object.assign(h, { count: this.count, zeroCount: this.zeroCount, sumUnits: this.sumUnits, min: this.min, max: this.max });
    for (let k = 0; k < this.counts.length; k++) if (this.counts[k] !== 0) h.buckets.set(this.low + k, this.counts[k]);
    return h;
  }

  private addHeader(count: number, zeroCount: number, sumUnits: number, min: number, max: number): void {
    this.count += count;
    this.zeroCount += zeroCount;
    this.sumUnits += sumUnits;
    if (min < this.min) this.min = min;
    if (max > this.max) this.max = max;
  }

  private bump(i: number, n: number): void {
    let k = i - this.low;
    if (k < 0 || k >= this.counts.length) {
      this.cover(i);
      k = i - this.low;
    }
    this.counts[k] += n;
  }

  private cover(i: number): void {
    const SLACK = 128;
    const from = this.counts.length === 0 ? i - SLACK : Math.min(this.low, i - SLACK);
    const to = this.counts.length === 0 ? i + SLACK : Math.max(this.low + this.counts.length, i + SLACK);
    const counts = new Float64Array(to - from);
    if (this.counts.length > 0) counts.set(this.counts, this.low - from);
    this.counts = counts;
    this.low = from;
  }
}

interface FigureGroup {
  key: Record<string, string>;
  probes: number;
  successes: number;
  histograms: Map<string | null, HistogramSumBefore>;
}
type GroupKeyColumn = Exclude<RollupGroupColumn, 'split_source'>;
type CountedRow = Record<GroupKeyColumn, string> & { probes: number; successes: number };

class Groups {
  private readonly columns: GroupKeyColumn[];
  private readonly byId = new Map<string, FigureGroup>();

  constructor(by: readonly RollupGroupColumn[]) {
    this.columns = by.filter((c): c is GroupKeyColumn => c !== 'split_source');
  }

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

const sumIn = (g: FigureGroup, source: string | null): HistogramSumBefore =>
  g.histograms.get(source) ?? g.histograms.set(source, new HistogramSumBefore()).get(source)!;

function sumFigure(rows: Iterable<Rollup>, metric: RollupFigure, by: readonly RollupGroupColumn[]): FigureGroup[] {
  const isSplit = (SPLIT_METRICS as readonly string[]).includes(metric);
  const groups = new Groups(by);
  for (const r of rows) {
    const g = groups.of(r);
    const stored = r.histograms as WithStoredHistograms;
    if (!isSplit) {
      const bytes = stored[STORED_HISTOGRAM]?.(metric as RollupMetric);
      if (bytes) sumIn(g, null).addEncoded(bytes);
      else sumIn(g, null).add(r.histograms[metric as RollupMetric]);
      continue;
    }
    // As a row read from D1 decoded its split then: every source's histograms, with the decoder of then.
    const splitBytes = stored[STORED_HISTOGRAM]?.('split');
    for (const [source, p] of splitBytes ? decodeSplitBefore(splitBytes) : r.split) sumIn(g, source).add(p[metric as SplitMetric]);
  }
  return groups.all();
}

export function rollupPercentileGroupsBefore(
  rows: Iterable<Rollup>,
  metric: RollupFigure,
  by: readonly RollupGroupColumn[],
): GroupRecord[] {
  return recordsOf(sumFigure(rows, metric, by), (SPLIT_METRICS as readonly string[]).includes(metric), by);
}

export function storedFigurePercentileGroupsBefore(rows: Iterable<StoredFigureRow>, by: readonly RollupGroupColumn[]): GroupRecord[] {
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

const escapeLabel = (v: string): string => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const labels = (pairs: Record<string, string>): string =>
  `{${Object.entries(pairs)
    .map(([k, v]) => `${k}="${escapeLabel(v)}"`)
    .join(',')}}`;
const number = (x: number): string => (Number.isInteger(x) ? String(x) : String(Math.round(x * 1e9) / 1e9));

function histogramLines(out: string[], f: Family, labelText: string, h: ExpHistogram): void {
  const sorted = [...h.buckets.entries()].sort((a, b) => a[0] - b[0]);
  const prefix = `${f.name}_bucket{${labelText}${labelText ? ',' : ''}le="`;
  let k = 0;
  let below = h.zeroCount;
  for (const bound of f.bounds) {
    const limit = bound / f.perUnit;
    if (limit < 0) {
      out.push(`${prefix}${bound}"} 0`);
      continue;
    }
    while (k < sorted.length && lowerBound(sorted[k][0] + 1) <= limit) below += sorted[k++][1];
    out.push(`${prefix}${bound}"} ${below}`);
  }
  out.push(`${prefix}+Inf"} ${h.count}`);
  out.push(`${f.name}_sum{${labelText}} ${number(sumOf(h) * f.perUnit)}`);
  out.push(`${f.name}_count{${labelText}} ${h.count}`);
}

const labelPairs = (pairs: Record<string, string>): string =>
  Object.entries(pairs)
    .map(([k, v]) => `${k}="${escapeLabel(v)}"`)
    .join(',');

/** A total's histogram as a row read from D1 gave it then: decoded into a Map by the decoder of then. */
function histogramOf(t: Rollup, metric: RollupMetric): ExpHistogram {
  const bytes = (t.histograms as WithStoredHistograms)[STORED_HISTOGRAM]?.(metric);
  return bytes ? decodeHistogramBefore(bytes) : t.histograms[metric];
}

function splitOf(t: Rollup): Map<string, Record<SplitMetric, ExpHistogram>> {
  const bytes = (t.histograms as WithStoredHistograms)[STORED_HISTOGRAM]?.('split');
  return bytes ? decodeSplitBefore(bytes) : t.split;
}

export function prometheusTextBefore(totals: Rollup[]): string {
  const out: string[] = [];
  const base = (t: Rollup) => ({ region: t.region, target: t.target, prompt_variant: t.prompt_variant });
  out.push('# HELP llm_probes_total Probes run (each one streamed completion).', '# TYPE llm_probes_total counter');
  for (const t of totals) out.push(`llm_probes_total${labels(base(t))} ${t.probes}`);
  out.push('# HELP llm_probe_failures_total Failed probes by error class (MEASUREMENT.md).', '# TYPE llm_probe_failures_total counter');
  for (const t of totals)
    for (const c of ERROR_CLASSES) out.push(`llm_probe_failures_total${labels({ ...base(t), error: c })} ${t.errors[c] ?? 0}`);
  const baseText = totals.map((t) => labelPairs(base(t)));
  for (const [metric, f] of HISTOGRAM_FAMILIES) {
    out.push(`# HELP ${f.name} ${f.help}`, `# TYPE ${f.name} histogram`);
    totals.forEach((t, i) => {
      histogramLines(out, f, baseText[i], histogramOf(t, metric));
    });
  }
  const splits = totals.map((t) => [...splitOf(t).entries()].sort((a, b) => a[0].localeCompare(b[0])));
  for (const m of SPLIT_METRICS) {
    const f = SPLIT_FAMILIES[m];
    out.push(`# HELP ${f.name} ${f.help}`, `# TYPE ${f.name} histogram`);
    totals.forEach((t, i) => {
      for (const [source, parts] of splits[i]) histogramLines(out, f, labelPairs({ ...base(t), split_source: source }), parts[m]);
    });
  }
  return `${out.join('\n')}\n`;
}
