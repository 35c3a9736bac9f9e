/** Failed probes over time, by error class. Each chart is a plain function of its data, returning inline SVG. */
import * as Plot from '@observablehq/plot';
import { colorScale, renderPlot } from './render.ts';
import { timeAxis } from './axes.ts';

/** Failed samples per error class over time (stacked bars). */
export function errorsOverTimeChart(
  rows: Array<{ t: number; error: string; count: number }>,
  bucketMs: number,
  window?: { from: number; to: number },
): string {
  const classes = [...new Set(rows.map((r) => r.error))].sort();
  const data = rows.map((r) => ({ ...r, start: new Date(r.t), end: new Date(r.t + bucketMs) }));
  return renderPlot(
    (w) => ({
      height: 220,
      x: timeAxis(w, window),
      y: { label: '↑ failed samples', grid: true },
      color: colorScale(classes),
      marks: [Plot.rectY(data, { x1: 'start', x2: 'end', y: 'count', fill: 'error', inset: 1 }), Plot.ruleY([0])],
    }),
    'Failed samples by error class over time',
  );
}
