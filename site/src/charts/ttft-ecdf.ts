/** The distribution of TTFT per series, as empirical CDF lines. Each chart is a plain function of its data, returning inline SVG. */
import * as Plot from '@observablehq/plot';
import { colorScale, ordered, renderPlot, WIDTH, type SeriesColors } from './render.ts';
import { MS } from './axes.ts';

/** Points an ECDF line keeps per series: enough for the eye, light however many samples there are. */
export const ECDF_POINTS = 200;

/** Empirical cumulative distribution of TTFT per series. */
export function ttftEcdfChart(values: Array<{ series: string; ttft_ms: number }>, colors?: SeriesColors): string {
  const series = ordered(
    values.map((v) => v.series),
    colors,
  );
  const points = series.flatMap((name) => {
    const sorted = values
      .filter((v) => v.series === name)
      .map((v) => v.ttft_ms)
      .sort((a, b) => a - b);
    const step = Math.max(1, Math.ceil(sorted.length / ECDF_POINTS));
    const kept = sorted.flatMap((ttft_ms, i) =>
      i % step === step - 1 || i === sorted.length - 1 ? [{ series: name, ttft_ms, share: (i + 1) / sorted.length }] : [],
    );
    return [{ series: name, ttft_ms: sorted[0], share: 0 }, ...kept];
  });
  return renderPlot(
    (w) => ({
      height: 260,
      x: { label: `time to first token (${MS}) →`, grid: true, ticks: w < WIDTH ? 4 : 8 },
      y: { label: '↑ share of samples', domain: [0, 1], tickFormat: '%', grid: true },
      color: colorScale(series, colors),
      marks: [Plot.line(points, { x: 'ttft_ms', y: 'share', stroke: 'series', curve: 'step-after', strokeWidth: 2 })],
    }),
    'Cumulative distribution of time to first token',
  );
}
