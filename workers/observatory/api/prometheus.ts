/**
 * `GET /metrics`: the running totals of the hourly rollups in the Prometheus text exposition format
 * (version 0.0.4), so users can keep their own dashboards and alerts. Per region × target × prompt
 * variant: probe and failure counters, and a classic histogram per figure in seconds (decode speed in
 * tokens per second), the split's parts per split_source. A classic bucket counts an exponential
 * bucket by its upper bound: a count is off by at most the one bucket (1.1 % wide) that straddles it.
 * Counters only grow: an hour rolled up again replaces its share of the totals, never adds it twice.
 */
import { ERROR_CLASSES } from '../../../shared/ids.ts';
import { SPLIT_METRICS, type Rollup, type RollupMetric } from '../../../shared/rollup/rollup.ts';
import { lowerBound, sumOf, type ExpHistogram } from '../../../shared/stats/exp-histogram.ts';

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Bucket bounds in seconds for latencies, and in tokens per second for decode speed. */
const SECONDS_BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const TPS_BOUNDS = [5, 10, 20, 50, 100, 200, 500, 1000];
const MS_PER_S = 1000;

interface Family {
  name: string;
  help: string;
  /** Value scale from the histogram's unit (ms) to the metric's. */
  perUnit: number;
  bounds: number[];
}

const HISTOGRAMS: Array<[RollupMetric, Family]> = [
  [
    'ttft_ms',
    {
      name: 'llm_ttft_seconds',
      help: 'Time to first token (any output, reasoning included), successful probes.',
      perUnit: 1 / MS_PER_S,
      bounds: SECONDS_BOUNDS,
    },
  ],
  [
    'ttfa_ms',
    {
      name: 'llm_ttfa_seconds',
      help: 'Time to the first answer token (after streamed reasoning), successful probes.',
      perUnit: 1 / MS_PER_S,
      bounds: SECONDS_BOUNDS,
    },
  ],
  [
    'tpot_ms',
    { name: 'llm_tpot_seconds', help: 'Time per output token of the answer, per probe.', perUnit: 1 / MS_PER_S, bounds: SECONDS_BOUNDS },
  ],
  [
    'itl_p99_ms',
    {
      name: 'llm_itl_p99_seconds',
      help: 'Per-probe p99 of the gaps between token-bearing chunks.',
      perUnit: 1 / MS_PER_S,
      bounds: SECONDS_BOUNDS,
    },
  ],
  [
    'total_ms',
    { name: 'llm_total_seconds', help: 'End-to-end latency of a streamed completion.', perUnit: 1 / MS_PER_S, bounds: SECONDS_BOUNDS },
  ],
  [
    'decode_tps',
    {
      name: 'llm_decode_tokens_per_second',
      help: 'Decode speed after the first answer token (1000 / TPOT).',
      perUnit: 1,
      bounds: TPS_BOUNDS,
    },
  ],
];
const SPLIT_FAMILIES: Record<(typeof SPLIT_METRICS)[number], Family> = {
  network_ms: {
    name: 'llm_ttft_network_seconds',
    help: 'Network part of TTFT, per split source.',
    perUnit: 1 / MS_PER_S,
    bounds: SECONDS_BOUNDS,
  },
  server_ms: {
    name: 'llm_ttft_server_seconds',
    help: 'Server part of TTFT, per split source.',
    perUnit: 1 / MS_PER_S,
    bounds: SECONDS_BOUNDS,
  },
};

const escape = (v: string): string => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const labels = (pairs: Record<string, string>): string =>
  `{${Object.entries(pairs)
    .map(([k, v]) => `${k}="${escape(v)}"`)
    .join(',')}}`;
const number = (x: number): string => (Number.isInteger(x) ? String(x) : String(Math.round(x * 1e9) / 1e9));

/**
 * One classic histogram: the cumulative count at each bound in one pass over the buckets in index order
 * (a bucket counts when its upper bound is within the bound), the labels written once.
 */
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
    .map(([k, v]) => `${k}="${escape(v)}"`)
    .join(',');

export function prometheusText(totals: Rollup[]): string {
  const out: string[] = [];
  const base = (t: Rollup) => ({ region: t.region, target: t.target, prompt_variant: t.prompt_variant });
  out.push('# HELP llm_probes_total Probes run (each one streamed completion).', '# TYPE llm_probes_total counter');
  for (const t of totals) out.push(`llm_probes_total${labels(base(t))} ${t.probes}`);
  out.push('# HELP llm_probe_failures_total Failed probes by error class (MEASUREMENT.md).', '# TYPE llm_probe_failures_total counter');
  for (const t of totals)
    for (const c of ERROR_CLASSES) out.push(`llm_probe_failures_total${labels({ ...base(t), error: c })} ${t.errors[c] ?? 0}`);
  const baseText = totals.map((t) => labelPairs(base(t)));
  for (const [metric, f] of HISTOGRAMS) {
    out.push(`# HELP ${f.name} ${f.help}`, `# TYPE ${f.name} histogram`);
    totals.forEach((t, i) => histogramLines(out, f, baseText[i], t.histograms[metric]));
  }
  const splits = totals.map((t) => [...t.split.entries()].sort((a, b) => a[0].localeCompare(b[0])));
  for (const m of SPLIT_METRICS) {
    const f = SPLIT_FAMILIES[m];
    out.push(`# HELP ${f.name} ${f.help}`, `# TYPE ${f.name} histogram`);
    totals.forEach((t, i) => {
      for (const [source, parts] of splits[i]) histogramLines(out, f, labelPairs({ ...base(t), split_source: source }), parts[m]);
    });
  }
  return out.join('\n') + '\n';
}
