/**
 * Latency against price for one region (docs/MEASUREMENT.md, "Latency against price"): each priced target's expected
 * time of a request (its median, the 95 % interval as a whisker) against its cost per request, the Pareto frontier
 * drawn as a step line through the points nothing beats on both and ringed, and a note naming the targets left out
 * for want of a price.
 */
import * as Plot from '@observablehq/plot';
import { paretoFrontier } from '../../../shared/price/pareto.ts';
import { ms, usd } from '../format.ts';
import { logTicks } from './axes.ts';
import { colorScale, ordered, renderPlot, WIDTH, type SeriesColors } from './render.ts';

export interface LatencyPricePoint {
  /** The target's label (its series). */
  target: string;
  cost_usd: number;
  ms: number;
  low_ms: number | null;
  high_ms: number | null;
}

/** The note under the chart: the targets it leaves out, by label; empty when none is. */
export function unpricedNote(unpriced: readonly string[]): string {
  return unpriced.length === 0 ? '' : `left out: no price — ${unpriced.join(', ')}`;
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The chart for one region, then the note on the targets without a price (HTML: two drawings, a paragraph). */
export function latencyPriceChart(points: LatencyPricePoint[], unpriced: readonly string[], colors?: SeriesColors): string {
  const targets = ordered(
    points.map((p) => p.target),
    colors,
  );
  const frontier = paretoFrontier(points.map((p) => ({ ...p, cost: p.cost_usd, time: p.ms })));
  const costs = points.map((p) => p.cost_usd);
  const times = points.flatMap((p) => [p.ms, p.low_ms ?? p.ms, p.high_ms ?? p.ms]);
  // A log axis when every cost is above zero and they span more than a factor of 5; a free target needs a linear one.
  const logX = costs.length > 0 && Math.min(...costs) > 0 && Math.max(...costs) / Math.min(...costs) > 5;
  const whiskers = points.filter((p) => p.low_ms !== null && p.high_ms !== null);
  const note = unpricedNote(unpriced);
  const chart = renderPlot(
    (w) => ({
      height: 300,
      marginRight: 24,
      marginLeft: 56,
      x: {
        label: 'cost per request (US$) →',
        ...(logX
          ? { type: 'log' as const, ticks: logTicks(Math.min(...costs) * 0.8, Math.max(...costs) * 1.25, w < WIDTH ? 3 : 6) as never }
          : { zero: true, ticks: w < WIDTH ? 3 : 6 }),
        tickFormat: (d: number) => usd(d),
        grid: true,
        inset: 12,
      },
      y: {
        label: '↑ expected time (ms)',
        grid: true,
        domain: times.length ? [Math.min(0, ...times), Math.max(...times) * 1.05] : undefined,
      },
      color: colorScale(targets, colors),
      marks: [
        Plot.line(frontier, {
          x: 'cost',
          y: 'time',
          curve: 'step-after',
          stroke: 'currentColor',
          strokeDasharray: '4,3',
          strokeOpacity: 0.7,
          className: 'pareto-frontier',
          ariaDescription: 'the Pareto frontier',
        }),
        Plot.ruleX(whiskers, {
          x: 'cost_usd',
          y1: 'low_ms',
          y2: 'high_ms',
          stroke: 'target',
          strokeWidth: 2,
          strokeOpacity: 0.6,
          className: 'interval',
        }),
        Plot.dot(frontier, {
          x: 'cost',
          y: 'time',
          r: 8,
          stroke: 'currentColor',
          strokeWidth: 1.5,
          fill: 'none',
          className: 'on-frontier',
        }),
        Plot.dot(points, {
          x: 'cost_usd',
          y: 'ms',
          fill: 'target',
          r: 4.5,
          className: 'price-point',
          title: (p: LatencyPricePoint) => `${p.target}: ${ms(p.ms)} ms, ${usd(p.cost_usd)}`,
        }),
      ],
    }),
    'Expected time of a request against its cost per target, with the Pareto frontier',
  );
  return note ? `${chart}<p class="note unpriced">${escapeXml(note)}</p>` : chart;
}
