/** Median and p95 TTFT over time per series. Each chart is a plain function of its data, returning inline SVG. */
import * as Plot from '@observablehq/plot';
import { colorScale, ordered, renderPlot, type SeriesColors } from './render.ts';
import { MS, timeAxis, runOf } from './axes.ts';

/** Periods a p95 needs before it is drawn: below this it is a maximum in disguise. */
export const P95_MIN_N = 10;

/**
 * p50 (solid, dotted at each period) and p95 (dashed, where a period had P95_MIN_N samples) TTFT over
 * time per series; a line joins only consecutive periods, so a gap stays a gap.
 */
export function ttftOverTimeChart(
  points: Array<{ series: string; t: number; n: number; p50: number; p95: number }>,
  periodMs: number,
  colors?: SeriesColors,
  window?: { from: number; to: number },
): string {
  const series = ordered(
    points.map((p) => p.series),
    colors,
  );
  const data = points.map((p) => ({ ...p, date: new Date(p.t), run: `${p.series}|${runOf(points, p, periodMs)}` }));
  const tails = data.filter((p) => p.n >= P95_MIN_N);
  return renderPlot(
    (w) => ({
      height: 260,
      x: timeAxis(w, window),
      y: { label: `↑ TTFT (${MS})`, grid: true, zero: true },
      color: colorScale(series, colors),
      marks: [
        Plot.line(data, { x: 'date', y: 'p50', stroke: 'series', z: 'run', strokeWidth: 2 }),
        Plot.dot(data, { x: 'date', y: 'p50', fill: 'series', r: 2.5 }),
        Plot.line(tails, { x: 'date', y: 'p95', stroke: 'series', z: 'run', strokeDasharray: '4,3', strokeOpacity: 0.8 }),
      ],
    }),
    'Median (solid) and 95th percentile (dashed) time to first token over time',
  );
}
