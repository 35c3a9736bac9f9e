/**
 * An hour's rollups as an OTLP/HTTP JSON metrics export (ExportMetricsServiceRequest, protobuf JSON
 * mapping: lowerCamelCase fields, 64-bit integers as strings, enums as numbers). Each region ×
 * target × variant row becomes delta points over its hour: probe and failure counts as monotonic
 * sums, and each latency figure as an ExponentialHistogram point with the rollup's own scale and
 * buckets (the layout is OpenTelemetry's, so nothing is re-bucketed). Units stay those of
 * MEASUREMENT.md: ms, and tokens per second for decode speed.
 */
import { ROLLUP_METRICS, SPLIT_METRICS, type Rollup, type RollupMetric } from './rollup.ts';
import { sumOf, type ExpHistogram } from '../stats/exp-histogram.ts';
import { ERROR_CLASSES } from '../ids.ts';
import { HOUR_MS } from '../time.ts';
import { FIGURE_DESCRIPTIONS, unitOf } from '../sample-fields.ts';

/** Where to push: the endpoint (a URL, or `{VAR}` for a Worker variable), and a header whose value is a Worker secret. */
export interface OtlpConfig {
  endpoint: string;
  /** Header carrying the secret, like `authorization` or `x-api-key`. */
  header?: string;
  /** Name of the Worker secret holding that header's value (`wrangler secret put NAME`). */
  secret?: string;
}

/** Delta temporality in the AggregationTemporality enum. */
const DELTA = 1;
export const OTLP_SCOPE = 'llm-latency-observatory';

/** OTLP's units are UCUM: a field's unit (sample-fields.ts), tokens as the annotation {token}. */
const ucum = (m: RollupMetric | (typeof SPLIT_METRICS)[number]): string => unitOf(m)!.replace('tokens', '{token}');

type Attribute = { key: string; value: { stringValue: string } };
const attr = (key: string, value: string): Attribute => ({ key, value: { stringValue: value } });
const nanos = (ms: number) => `${BigInt(ms) * 1_000_000n}`;

function keyAttributes(r: Rollup): Attribute[] {
  return [
    attr('region', r.region),
    attr('target', r.target),
    attr('prompt_variant', r.prompt_variant),
    attr('method_version', String(r.method_version)),
  ];
}

/** One ExponentialHistogramDataPoint: dense positive buckets from the lowest non-empty index. */
function histogramPoint(h: ExpHistogram, start: number, attributes: Attribute[]) {
  const indices = [...h.buckets.keys()].sort((a, b) => a - b);
  const offset = indices.length ? indices[0] : 0;
  const counts = indices.length
    ? Array.from({ length: indices[indices.length - 1] - offset + 1 }, (_, k) => String(h.buckets.get(offset + k) ?? 0))
    : [];
  return {
    attributes,
    startTimeUnixNano: nanos(start),
    timeUnixNano: nanos(start + HOUR_MS),
    count: String(h.count),
    sum: sumOf(h),
    scale: h.scale,
    zeroCount: String(h.zeroCount),
    positive: { offset, bucketCounts: counts },
    ...(h.count > 0 ? { min: h.min, max: h.max } : {}),
  };
}

export function otlpMetricsRequest(rows: Rollup[], version: string) {
  const sum = (name: string, description: string, unit: string, points: Array<{ r: Rollup; extra: Attribute[]; n: number }>) => ({
    name,
    description,
    unit,
    sum: {
      aggregationTemporality: DELTA,
      isMonotonic: true,
      dataPoints: points.map(({ r, extra, n }) => ({
        attributes: [...keyAttributes(r), ...extra],
        startTimeUnixNano: nanos(r.hour),
        timeUnixNano: nanos(r.hour + HOUR_MS),
        asInt: String(n),
      })),
    },
  });
  const metrics = [
    sum(
      'llm.probes',
      'Probes run',
      '{probe}',
      rows.map((r) => ({ r, extra: [], n: r.probes })),
    ),
    sum(
      'llm.probe.failures',
      'Failed probes, by error class (MEASUREMENT.md)',
      '{probe}',
      rows.flatMap((r) => ERROR_CLASSES.filter((c) => r.errors[c]).map((c) => ({ r, extra: [attr('error_class', c)], n: r.errors[c]! }))),
    ),
    ...ROLLUP_METRICS.map((m) => ({
      name: `llm.${m.replace(/_ms$|_tps$/, '')}`,
      description: FIGURE_DESCRIPTIONS[m],
      unit: ucum(m),
      exponentialHistogram: {
        aggregationTemporality: DELTA,
        dataPoints: rows.filter((r) => r.histograms[m].count > 0).map((r) => histogramPoint(r.histograms[m], r.hour, keyAttributes(r))),
      },
    })),
    ...SPLIT_METRICS.map((m) => ({
      name: `llm.ttft.${m.replace(/_ms$/, '')}`,
      description: FIGURE_DESCRIPTIONS[m],
      unit: ucum(m),
      exponentialHistogram: {
        aggregationTemporality: DELTA,
        dataPoints: rows.flatMap((r) =>
          [...r.split.entries()]
            .sort((a, b) => a[0].localeCompare(b[0]))
            .map(([source, parts]) => histogramPoint(parts[m], r.hour, [...keyAttributes(r), attr('split_source', source)])),
        ),
      },
    })),
  ];
  return {
    resourceMetrics: [
      {
        resource: { attributes: [attr('service.name', OTLP_SCOPE)] },
        scopeMetrics: [{ scope: { name: OTLP_SCOPE, version }, metrics }],
      },
    ],
  };
}
