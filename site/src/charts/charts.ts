/** The site's charts: each a plain function of its data, returning inline SVG. */
import * as Plot from '@observablehq/plot';
import { colorScale, PALETTE, renderPlot } from './render.ts';

const MS = 'ms';

/** TTFT split into network and server time per region (stacked horizontal bars). */
export function ttftSplitChart(rows: Array<{ series: string; network_ms: number | null; server_ms: number | null }>): string {
  const parts = rows.flatMap((r) => r.network_ms === null || r.server_ms === null ? [] : [
    { series: r.series, part: 'network', ms: r.network_ms },
    { series: r.series, part: 'server', ms: r.server_ms },
  ]);
  return renderPlot({
    height: 60 + 36 * rows.length,
    marginLeft: 60,
    x: { label: `median time to first token (${MS}) →`, grid: true },
    y: { label: null, domain: rows.map((r) => r.series) },
    color: colorScale(['network', 'server']),
    marks: [
      Plot.barX(parts, { y: 'series', x: 'ms', fill: 'part', tip: false }),
      Plot.ruleX([0]),
    ],
  }, 'Median TTFT per region split into network and server time');
}

/** Points an ECDF line keeps per series: enough for the eye, light however many samples there are. */
export const ECDF_POINTS = 200;

/** Empirical cumulative distribution of TTFT per series. */
export function ttftEcdfChart(values: Array<{ series: string; ttft_ms: number }>): string {
  const series = [...new Set(values.map((v) => v.series))].sort();
  const points = series.flatMap((name) => {
    const sorted = values.filter((v) => v.series === name).map((v) => v.ttft_ms).sort((a, b) => a - b);
    const step = Math.max(1, Math.ceil(sorted.length / ECDF_POINTS));
    const kept = sorted.flatMap((ttft_ms, i) => (i % step === step - 1 || i === sorted.length - 1 ? [{ series: name, ttft_ms, share: (i + 1) / sorted.length }] : []));
    return [{ series: name, ttft_ms: sorted[0], share: 0 }, ...kept];
  });
  return renderPlot({
    height: 260,
    x: { label: `time to first token (${MS}) →`, grid: true },
    y: { label: '↑ share of samples', domain: [0, 1], tickFormat: '%', grid: true },
    color: colorScale(series),
    marks: [Plot.line(points, { x: 'ttft_ms', y: 'share', stroke: 'series', curve: 'step-after', strokeWidth: 2 })],
  }, 'Cumulative distribution of time to first token');
}

/** p50 (solid) and p95 (dashed) TTFT over time per region. */
export function ttftOverTimeChart(points: Array<{ series: string; t: number; p50: number; p95: number }>): string {
  const series = [...new Set(points.map((p) => p.series))].sort();
  const data = points.map((p) => ({ ...p, date: new Date(p.t) }));
  return renderPlot({
    height: 260,
    x: { label: null, type: 'utc' },
    y: { label: `↑ TTFT (${MS})`, grid: true, zero: true },
    color: colorScale(series),
    marks: [
      Plot.line(data, { x: 'date', y: 'p50', stroke: 'series', strokeWidth: 2, marker: 'dot' }),
      Plot.line(data, { x: 'date', y: 'p95', stroke: 'series', strokeDasharray: '4,3', strokeOpacity: 0.8 }),
    ],
  }, 'Median (solid) and 95th percentile (dashed) time to first token over time');
}

/** A histogram of one quantity. */
export function histogramChart(values: number[], label: string, unit: string): string {
  return renderPlot({
    height: 220,
    x: { label: `${label} (${unit}) →` },
    y: { label: '↑ count', grid: true },
    marks: [Plot.rectY(values, { ...Plot.binX({ y: 'count' }, { x: (d: number) => d, thresholds: 30 }), fill: PALETTE[0] }), Plot.ruleY([0])],
  }, `Histogram of ${label}`);
}

/** TTFT against prompt size: the median (dot) and p10–p90 (bar) per prompt size and series. */
export function ttftByPromptChart(rows: Array<{ series: string; prompt_tokens: number; p10: number; p50: number; p90: number }>): string {
  const series = [...new Set(rows.map((r) => r.series))].sort();
  return renderPlot({
    height: 240,
    x: { label: 'prompt size (tokens) →', grid: true },
    y: { label: `↑ TTFT (${MS})`, grid: true, zero: true },
    color: colorScale(series),
    marks: [
      Plot.ruleX(rows, { x: 'prompt_tokens', y1: 'p10', y2: 'p90', stroke: 'series', strokeWidth: 3, strokeOpacity: 0.5 }),
      Plot.dot(rows, { x: 'prompt_tokens', y: 'p50', fill: 'series', r: 4 }),
    ],
  }, 'Time to first token against prompt size');
}

/** Failed samples per error class over time (stacked bars). */
export function errorsOverTimeChart(rows: Array<{ t: number; error: string; count: number }>, bucketMs: number): string {
  const classes = [...new Set(rows.map((r) => r.error))].sort();
  const data = rows.map((r) => ({ ...r, start: new Date(r.t), end: new Date(r.t + bucketMs) }));
  return renderPlot({
    height: 220,
    x: { label: null, type: 'utc' },
    y: { label: '↑ failed samples', grid: true },
    color: colorScale(classes),
    marks: [Plot.rectY(data, { x1: 'start', x2: 'end', y: 'count', fill: 'error', inset: 1 }), Plot.ruleY([0])],
  }, 'Failed samples by error class over time');
}

/** Expected total time against output length per target, log-scaled, with the lengths where the winner flips. */
export function expectedTotalChart(lines: Array<{ target: string; tokens: number; total_ms: number }>, flips: Array<{ tokens: number; label: string }>): string {
  const targets = [...new Set(lines.map((l) => l.target))];
  return renderPlot({
    height: 280,
    x: { label: 'output tokens →', type: 'log', grid: true },
    y: { label: `↑ expected total (${MS})`, type: 'log', grid: true },
    color: colorScale(targets),
    marks: [
      Plot.line(lines, { x: 'tokens', y: 'total_ms', stroke: 'target', strokeWidth: 2 }),
      Plot.ruleX(flips, { x: 'tokens', strokeDasharray: '3,3', strokeOpacity: 0.6 }),
      Plot.text(flips, { x: 'tokens', frameAnchor: 'top', text: 'label', dy: -4, lineAnchor: 'bottom' }),
    ],
  }, 'Expected total time by output length for each target');
}

export interface OverviewBar {
  /** Row label: region · target. */
  row: string;
  network_ms: number | null;
  server_ms: number | null;
  ttft_ms: number;
  ttfa_ms: number | null;
}

/**
 * The overview's answer: per region × target (rows in the order given: by region, fastest first), the
 * median network and server time stacked, TTFT's median as a tick, and the median first *answer* token
 * as a dot where it comes later (a model that reasons first). Rows without a split show TTFT alone.
 */
export function overviewSplitChart(rows: OverviewBar[]): string {
  const parts = rows.flatMap((r) => r.network_ms === null || r.server_ms === null
    ? [{ row: r.row, part: 'no split', x1: 0, x2: r.ttft_ms }]
    : [{ row: r.row, part: 'network', x1: 0, x2: r.network_ms }, { row: r.row, part: 'server', x1: r.network_ms, x2: r.network_ms + r.server_ms }]);
  const later = rows.filter((r) => r.ttfa_ms !== null && r.ttfa_ms > r.ttft_ms * 1.05);
  return renderPlot({
    height: 70 + 22 * rows.length,
    marginLeft: 270,
    x: { label: `median time (${MS}) →`, grid: true },
    y: { label: null, domain: rows.map((r) => r.row) },
    color: { type: 'ordinal', domain: ['network', 'server', 'no split'], range: [PALETTE[0], PALETTE[1], '#8c8c8c'], legend: true },
    marks: [
      Plot.barX(parts, { y: 'row', x1: 'x1', x2: 'x2', fill: 'part' }),
      Plot.tickX(rows, { y: 'row', x: 'ttft_ms', stroke: 'currentColor', strokeWidth: 2 }),
      Plot.dot(later, { y: 'row', x: 'ttfa_ms', stroke: 'currentColor', fill: 'none', r: 4 }),
      Plot.ruleX([0]),
    ],
  }, 'Median time to first token per region and target, split into network and server time, with the first answer token where it comes later');
}

/**
 * An incident's probes: TTFT of each affected region's probe over time (UTC), failed probes as ×
 * along the top, the baseline p99 (dashed) and the rule's threshold (dotted) where they existed.
 */
export function incidentChart(points: Array<{ t: number; region: string; ttft_ms: number | null; error: boolean; baseline: number | null; threshold: number | null }>): string {
  const regions = [...new Set(points.map((p) => p.region))].sort();
  const ok = points.filter((p) => !p.error && p.ttft_ms !== null).map((p) => ({ ...p, date: new Date(p.t) }));
  const top = Math.max(1, ...ok.map((p) => p.ttft_ms!), ...points.map((p) => p.threshold ?? 0)) * 1.1;
  const failed = points.filter((p) => p.error).map((p) => ({ ...p, date: new Date(p.t), y: top }));
  const lines = (key: 'baseline' | 'threshold') => points.filter((p) => p[key] !== null).map((p) => ({ date: new Date(p.t), region: p.region, v: p[key]! }));
  return renderPlot({
    height: 240,
    x: { label: 'time (UTC) →', type: 'utc', tickFormat: '%H:%M' },
    y: { label: `↑ TTFT (${MS})`, grid: true, zero: true, domain: [0, top] },
    color: colorScale(regions),
    symbol: { legend: false },
    marks: [
      Plot.line(lines('baseline'), { x: 'date', y: 'v', stroke: 'region', strokeDasharray: '6,3', strokeOpacity: 0.7 }),
      Plot.line(lines('threshold'), { x: 'date', y: 'v', stroke: 'region', strokeDasharray: '1,3', strokeOpacity: 0.9 }),
      Plot.dot(ok, { x: 'date', y: 'ttft_ms', stroke: 'region', fill: 'region', r: 3 }),
      Plot.dot(failed, { x: 'date', y: 'y', stroke: 'region', symbol: 'times', r: 5, strokeWidth: 2 }),
    ],
  }, 'TTFT of the affected regions during the incident against their baseline, failed probes marked ×');
}
