/** Server time against prompt size: the prefill fit. Each chart is a plain function of its data, returning inline SVG. */
import * as Plot from '@observablehq/plot';
import { colorScale, ordered, renderPlot, WIDTH, type SeriesColors } from './render.ts';
import { MS, logTicks } from './axes.ts';

/**
 * Server time against prompt size (log scale): each sample a dot, each series' fitted prefill line
 * (server time = overhead + rate × prompt tokens, a curve on the log axis) drawn over the sizes it ran.
 */
export function prefillChart(
  points: Array<{ series: string; prompt_tokens: number; server_ms: number }>,
  fits: Array<{ series: string; slope: number; intercept: number; from: number; to: number }>,
  colors?: SeriesColors,
): string {
  const series = ordered([...points.map((p) => p.series), ...fits.map((f) => f.series)], colors);
  const curve = fits.flatMap((f) =>
    Array.from({ length: 41 }, (_, i) => {
      const x = f.from * (f.to / f.from) ** (i / 40);
      return { series: f.series, x, y: f.intercept + f.slope * x };
    }),
  );
  const xs = points.map((p) => p.prompt_tokens);
  return renderPlot(
    (w) => ({
      height: 260,
      x: {
        label: 'prompt tokens (log scale) →',
        type: 'log',
        grid: true,
        ticks: logTicks(Math.min(...xs), Math.max(...xs), w < WIDTH ? 4 : 7) as never,
      },
      y: { label: `↑ server time (${MS})`, grid: true, zero: true },
      color: colorScale(series, colors),
      marks: [
        Plot.dot(points, { x: 'prompt_tokens', y: 'server_ms', stroke: 'series', r: 2.5, strokeOpacity: 0.5 }),
        Plot.line(curve, { x: 'x', y: 'y', stroke: 'series', strokeWidth: 2 }),
      ],
    }),
    "Server time against prompt size, with each series' fitted prefill line",
  );
}
