/** TTFT and decode speed against the concurrency level of a run. Each chart is a plain function of its data, returning inline SVG. */
import * as Plot from '@observablehq/plot';
import { colorScale, ordered, renderPlot, type SeriesColors } from './render.ts';
import { MS } from './axes.ts';

/** One point of a concurrency chart: a series (region or target) at one level. */
export interface LevelPoint {
  series: string;
  level: number;
  ttft_p50: number | null;
  ttft_p95: number | null;
  decode_tps_p50: number | null;
  decode_tps_min: number | null;
}

/** The levels on a log-2 axis, each a tick. */
function levelAxis(levels: number[]): Plot.ScaleOptions {
  return {
    label: 'simultaneous streams →',
    type: 'log',
    base: 2,
    ticks: levels as never,
    tickFormat: (d: number) => String(d),
    grid: true,
  };
}

/**
 * One figure by concurrency level, per series: a main line with dots (`main`) and a second, thinner one
 * (`second`, dashed or dotted), on a log-2 axis of the levels.
 */
function levelChart(
  points: LevelPoint[],
  main: keyof LevelPoint,
  second: keyof LevelPoint,
  dash: string,
  yLabel: string,
  label: string,
  colors?: SeriesColors,
): string {
  const series = ordered(
    points.map((p) => p.series),
    colors,
  );
  const levels = [...new Set(points.map((p) => p.level))].sort((a, b) => a - b);
  const first = points.filter((p) => p[main] !== null);
  const other = points.filter((p) => p[second] !== null);
  return renderPlot(
    () => ({
      height: 240,
      x: levelAxis(levels),
      y: { label: yLabel, grid: true, zero: true },
      color: colorScale(series, colors),
      marks: [
        Plot.line(first, { x: 'level', y: main, stroke: 'series', strokeWidth: 2 }),
        Plot.dot(first, { x: 'level', y: main, fill: 'series', r: 3 }),
        Plot.line(other, { x: 'level', y: second, stroke: 'series', strokeDasharray: dash, strokeOpacity: 0.85 }),
      ],
    }),
    label,
  );
}

/** TTFT p50 (solid, dots) and p95 (dashed) by concurrency level, per series. */
export function concurrencyTtftChart(points: LevelPoint[], colors?: SeriesColors): string {
  return levelChart(
    points,
    'ttft_p50',
    'ttft_p95',
    '4,3',
    `↑ TTFT (${MS})`,
    'Median (solid) and 95th percentile (dashed) time to first token by number of simultaneous streams',
    colors,
  );
}

/** Decode speed each stream saw by concurrency level: the median (solid) and the slowest stream (dotted). */
export function concurrencyDecodeChart(points: LevelPoint[], colors?: SeriesColors): string {
  return levelChart(
    points,
    'decode_tps_p50',
    'decode_tps_min',
    '1,3',
    '↑ decode speed per stream (tokens/s)',
    'Decode speed per stream by number of simultaneous streams: median (solid) and slowest stream (dotted)',
    colors,
  );
}
