/** A histogram of one quantity. Each chart is a plain function of its data, returning inline SVG. */
import * as Plot from '@observablehq/plot';
import { PART_COLORS, renderPlot, WIDTH } from './render.ts';

/** A histogram of one quantity. */
export function histogramChart(values: number[], label: string, unit: string): string {
  return renderPlot(
    (w) => ({
      height: 220,
      x: { label: `${label} (${unit}) →`, ticks: w < WIDTH ? 4 : 8 },
      y: { label: '↑ count', grid: true },
      marks: [
        Plot.rectY(values, {
          ...Plot.binX({ y: 'count' }, { x: (d: number) => d, thresholds: w < WIDTH ? 20 : 30 }),
          fill: PART_COLORS.server,
        }),
        Plot.ruleY([0]),
      ],
    }),
    `Histogram of ${label}`,
  );
}
