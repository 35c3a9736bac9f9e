/** An incident's chart: the TTFT points before and during it, per region. Each chart is a plain function of its data, returning inline SVG. */
import * as Plot from '@observablehq/plot';
import { colorScale, ordered, renderPlot, WIDTH, type SeriesColors } from './render.ts';
import { MS } from './axes.ts';

/**
 * An incident's probes: TTFT of each affected region's probe over time (UTC), failed probes as ×
 * along the top, the baseline p99 (dashed) and the rule's threshold (dotted) where they existed.
 */
export function incidentChart(
  points: Array<{ t: number; region: string; ttft_ms: number | null; error: boolean; baseline: number | null; threshold: number | null }>,
  colors?: SeriesColors,
): string {
  const regions = ordered(
    points.map((p) => p.region),
    colors,
  );
  const ok = points.filter((p) => !p.error && p.ttft_ms !== null).map((p) => ({ ...p, date: new Date(p.t) }));
  const top = Math.max(1, ...ok.map((p) => p.ttft_ms!), ...points.map((p) => p.threshold ?? 0)) * 1.1;
  const failed = points.filter((p) => p.error).map((p) => ({ ...p, date: new Date(p.t), y: top }));
  const lines = (key: 'baseline' | 'threshold') =>
    points.filter((p) => p[key] !== null).map((p) => ({ date: new Date(p.t), region: p.region, v: p[key]! }));
  return renderPlot(
    (w) => ({
      height: 240,
      x: { label: 'time (UTC) →', type: 'utc', tickFormat: '%H:%M', ticks: w < WIDTH ? 4 : 8 },
      y: { label: `↑ TTFT (${MS})`, grid: true, zero: true, domain: [0, top] },
      color: colorScale(regions, colors),
      symbol: { legend: false },
      marks: [
        Plot.line(lines('baseline'), { x: 'date', y: 'v', stroke: 'region', strokeDasharray: '6,3', strokeOpacity: 0.7 }),
        Plot.line(lines('threshold'), { x: 'date', y: 'v', stroke: 'region', strokeDasharray: '1,3', strokeOpacity: 0.9 }),
        Plot.dot(ok, { x: 'date', y: 'ttft_ms', stroke: 'region', fill: 'region', r: 3 }),
        Plot.dot(failed, { x: 'date', y: 'y', stroke: 'region', symbol: 'times', r: 5, strokeWidth: 2 }),
      ],
    }),
    'TTFT of the affected regions during the incident against their baseline, failed probes marked ×',
  );
}
