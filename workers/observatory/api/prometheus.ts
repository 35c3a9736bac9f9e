/**
 * `GET /metrics`: the running totals of the hourly rollups in the Prometheus text exposition format
 * (version 0.0.4), so users can keep their own dashboards and alerts. Per region × target × prompt
 * variant: probe and failure counters, and a classic histogram per figure in seconds (decode speed in
 * tokens per second), the split's parts per split_source. A classic bucket counts an exponential
 * bucket by its upper bound: a count is off by at most the one bucket (1.1 % wide) that straddles it.
 * Counters only grow: an hour rolled up again replaces its share of the totals, never adds it twice.
 */
import { ERROR_CLASSES } from '../../../shared/ids.ts';
import {
  readSplit,
  SPLIT_METRICS,
  STORED_HISTOGRAM,
  type Rollup,
  type RollupMetric,
  type WithStoredHistograms,
} from '../../../shared/rollup/rollup.ts';
import { bucketIndex, lowerBound, sumOf, type ExpHistogram } from '../../../shared/stats/exp-histogram.ts';
import { readEncoded } from '../../../shared/stats/histogram-bytes.ts';
import { SECOND_MS } from '../../../shared/time.ts';
import { FIGURE_DESCRIPTIONS } from '../../../shared/sample-fields.ts';

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Bucket bounds in seconds for latencies, and in tokens per second for decode speed. */
const SECONDS_BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const TPS_BOUNDS = [5, 10, 20, 50, 100, 200, 500, 1000];

export interface Family {
  name: string;
  help: string;
  /** Value scale from the histogram's unit (ms) to the metric's. */
  perUnit: number;
  bounds: number[];
}

export const HISTOGRAM_FAMILIES: Array<[RollupMetric, Family]> = [
  [
    'ttft_ms',
    {
      name: 'llm_ttft_seconds',
      help: FIGURE_DESCRIPTIONS.ttft_ms,
      perUnit: 1 / SECOND_MS,
      bounds: SECONDS_BOUNDS,
    },
  ],
  [
    'ttfa_ms',
    {
      name: 'llm_ttfa_seconds',
      help: FIGURE_DESCRIPTIONS.ttfa_ms,
      perUnit: 1 / SECOND_MS,
      bounds: SECONDS_BOUNDS,
    },
  ],
  ['tpot_ms', { name: 'llm_tpot_seconds', help: FIGURE_DESCRIPTIONS.tpot_ms, perUnit: 1 / SECOND_MS, bounds: SECONDS_BOUNDS }],
  [
    'itl_p99_ms',
    {
      name: 'llm_itl_p99_seconds',
      help: FIGURE_DESCRIPTIONS.itl_p99_ms,
      perUnit: 1 / SECOND_MS,
      bounds: SECONDS_BOUNDS,
    },
  ],
  ['total_ms', { name: 'llm_total_seconds', help: FIGURE_DESCRIPTIONS.total_ms, perUnit: 1 / SECOND_MS, bounds: SECONDS_BOUNDS }],
  [
    'decode_tps',
    {
      name: 'llm_decode_tokens_per_second',
      help: FIGURE_DESCRIPTIONS.decode_tps,
      perUnit: 1,
      bounds: TPS_BOUNDS,
    },
  ],
];
export const SPLIT_FAMILIES: Record<(typeof SPLIT_METRICS)[number], Family> = {
  network_ms: {
    name: 'llm_ttft_network_seconds',
    help: FIGURE_DESCRIPTIONS.network_ms,
    perUnit: 1 / SECOND_MS,
    bounds: SECONDS_BOUNDS,
  },
  server_ms: {
    name: 'llm_ttft_server_seconds',
    help: FIGURE_DESCRIPTIONS.server_ms,
    perUnit: 1 / SECOND_MS,
    bounds: SECONDS_BOUNDS,
  },
};

const escapeLabel = (v: string): string => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const number = (x: number): string => (Number.isInteger(x) ? String(x) : String(Math.round(x * 1e9) / 1e9));

/**
 * A family's classic buckets as the exponential buckets they count, worked out once: a bucket counts
 * at a bound when its upper bound is within it, so each bound counts the buckets up to `lastBucket`
 * (the zero bucket too unless the bound is negative), and each line's `le` text is written once.
 */
interface ClassicLayout {
  family: Family;
  lastBucket: number[];
  countsZero: boolean[];
  le: string[];
}

function layoutOf(f: Family): ClassicLayout {
  const limits = f.bounds.map((bound) => bound / f.perUnit);
  return {
    family: f,
    // bucketIndex(limit) is the bucket holding the limit: it counts only when the limit is its upper bound.
    lastBucket: limits.map((l) => (l <= 0 ? -Infinity : lowerBound(bucketIndex(l) + 1) <= l ? bucketIndex(l) : bucketIndex(l) - 1)),
    countsZero: limits.map((l) => l >= 0),
    le: [...f.bounds.map((b) => `le="${b}"} `), 'le="+Inf"} '],
  };
}

const COLUMN_LAYOUTS = HISTOGRAM_FAMILIES.map(([metric, f]) => [metric, layoutOf(f)] as const);
const SPLIT_LAYOUTS = SPLIT_METRICS.map((m) => layoutOf(SPLIT_FAMILIES[m]));

/** What a histogram's lines read: its header and its non-empty buckets in index order. */
interface Buckets {
  count: number;
  zeroCount: number;
  sumUnits: number;
  n: number;
  indices: ArrayLike<number>;
  counts: ArrayLike<number>;
}

/** A decoded histogram as Buckets (a rollup not read from D1: its buckets sorted once). */
function bucketsOf(h: ExpHistogram): Buckets {
  const sorted = [...h.buckets.entries()].sort((a, b) => a[0] - b[0]);
  return { ...h, n: sorted.length, indices: sorted.map((e) => e[0]), counts: sorted.map((e) => e[1]) };
}

/** A histogram straight from its stored bytes (valid until the next read), or its decoded form. */
const bucketsFrom = (bytes: Uint8Array | undefined, start: number, end: number, decoded: () => ExpHistogram): Buckets =>
  bytes ? readEncoded(bytes, start, end) : bucketsOf(decoded());

/**
 * One classic histogram: the cumulative count at each bound in one pass over the buckets in index order,
 * into the text being built (one string grown in place, not an array of lines).
 */
function histogramLines(text: string, layout: ClassicLayout, labelText: string, h: Buckets): string {
  const f = layout.family;
  const prefix = `${f.name}_bucket{${labelText}${labelText ? ',' : ''}`;
  let k = 0;
  let below = h.zeroCount;
  for (let j = 0; j < layout.lastBucket.length; j++) {
    if (!layout.countsZero[j]) {
      text += `${prefix}${layout.le[j]}0\n`;
      continue;
    }
    const last = layout.lastBucket[j];
    while (k < h.n && h.indices[k] <= last) below += h.counts[k++];
    text += `${prefix}${layout.le[j]}${below}\n`;
  }
  text += `${prefix}${layout.le[layout.lastBucket.length]}${h.count}\n`;
  text += `${f.name}_sum{${labelText}} ${number(sumOf(h) * f.perUnit)}\n`;
  return `${text}${f.name}_count{${labelText}} ${h.count}\n`;
}

const familyHead = (f: Family, type: string): string => `# HELP ${f.name} ${f.help}\n# TYPE ${f.name} ${type}\n`;

/**
 * The exposition of `totals`. A total read from D1 is read from its stored bytes (no histogram decoded
 * into a Map): at the goal's 6 × 10 pairs a scrape is 480 histograms of a few hundred buckets each.
 */
export function prometheusText(totals: Rollup[]): string {
  const baseText = totals.map(
    (t) => `region="${escapeLabel(t.region)}",target="${escapeLabel(t.target)}",prompt_variant="${escapeLabel(t.prompt_variant)}"`,
  );
  let text = '# HELP llm_probes_total Probes run (each one streamed completion).\n# TYPE llm_probes_total counter\n';
  totals.forEach((t, i) => {
    text += `llm_probes_total{${baseText[i]}} ${t.probes}\n`;
  });
  text += '# HELP llm_probe_failures_total Failed probes by error class (MEASUREMENT.md).\n# TYPE llm_probe_failures_total counter\n';
  const errorLabels = ERROR_CLASSES.map((c) => `,error="${escapeLabel(c)}"} `);
  totals.forEach((t, i) => {
    const errors = t.errors;
    for (let c = 0; c < ERROR_CLASSES.length; c++)
      text += `llm_probe_failures_total{${baseText[i]}${errorLabels[c]}${errors[ERROR_CLASSES[c]] ?? 0}\n`;
  });
  const stored = totals.map((t) => t.histograms as WithStoredHistograms);
  for (const [metric, layout] of COLUMN_LAYOUTS) {
    text += familyHead(layout.family, 'histogram');
    totals.forEach((t, i) => {
      const bytes = stored[i][STORED_HISTOGRAM]?.(metric);
      text = histogramLines(
        text,
        layout,
        baseText[i],
        bucketsFrom(bytes, 0, bytes?.length ?? 0, () => t.histograms[metric]),
      );
    });
  }
  // Each total's split sources in name order, with where each one's parts lie in the stored bytes (if stored).
  const splits = totals.map((t, i) => {
    const bytes = stored[i][STORED_HISTOGRAM]?.('split');
    const sources: Array<{ source: string; at: number[]; parts?: Record<(typeof SPLIT_METRICS)[number], ExpHistogram> }> = [];
    if (bytes) readSplit(bytes, (source, at) => sources.push({ source, at: [...at] }));
    else for (const [source, parts] of t.split) sources.push({ source, at: [], parts });
    return { bytes, sources: sources.sort((a, b) => a.source.localeCompare(b.source)) };
  });
  SPLIT_METRICS.forEach((m, p) => {
    const layout = SPLIT_LAYOUTS[p];
    text += familyHead(layout.family, 'histogram');
    splits.forEach(({ bytes, sources }, i) => {
      for (const s of sources)
        text = histogramLines(
          text,
          layout,
          `${baseText[i]},split_source="${escapeLabel(s.source)}"`,
          bucketsFrom(bytes, s.at[2 * p], s.at[2 * p + 1], () => s.parts![m]),
        );
    });
  });
  return text;
}
