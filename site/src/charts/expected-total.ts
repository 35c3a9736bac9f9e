/** Expected total time against output length, per target (log axes). Each chart is a plain function of its data, returning inline SVG. */
import * as Plot from '@observablehq/plot';
import { colorScale, ordered, renderPlot, WIDTH, type SeriesColors } from './render.ts';
import { MS, logTicks } from './axes.ts';

/** Expected total time against output length per target, log-scaled, with the lengths where the winner flips. */
export function expectedTotalChart(
  lines: Array<{ target: string; tokens: number; total_ms: number }>,
  flips: Array<{ tokens: number; label: string }>,
  colors?: SeriesColors,
): string {
  const targets = ordered(
    lines.map((l) => l.target),
    colors,
  );
  const xs = lines.map((l) => l.tokens);
  const ys = lines.map((l) => l.total_ms);
  return renderPlot(
    (w) => ({
      height: 280,
      marginRight: 20,
      x: {
        label: 'answer tokens →',
        type: 'log',
        grid: true,
        ticks: logTicks(Math.min(...xs), Math.max(...xs), w < WIDTH ? 4 : 7) as never,
      },
      y: {
        label: `↑ expected total (${MS})`,
        type: 'log',
        grid: true,
        ticks: logTicks(Math.min(...ys), Math.max(...ys), w < WIDTH ? 4 : 6) as never,
      },
      color: colorScale(targets, colors),
      marks: [
        Plot.line(lines, { x: 'tokens', y: 'total_ms', stroke: 'target', strokeWidth: 2 }),
        Plot.ruleX(flips, { x: 'tokens', strokeDasharray: '3,3', strokeOpacity: 0.6 }),
        Plot.text(flips, { x: 'tokens', frameAnchor: 'top', text: 'label', dy: -4, lineAnchor: 'bottom' }),
      ],
    }),
    'Expected total time by answer length for each target',
  );
}
