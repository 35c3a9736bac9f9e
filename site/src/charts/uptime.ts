/** Uptime: the share of each target's ticks in each state, stacked. Each chart is a plain function of its data, returning inline SVG. */
import * as Plot from '@observablehq/plot';
import { renderPlot } from './render.ts';
import { UPTIME_STATES, uptimeColorOf, type UptimeState } from '../../../shared/status/uptime.ts';
import { STATE_COLORS } from '../../../shared/status/levels.ts';

/** One target's month: the share of its ticks due in each state, for the uptime page. */
export interface UptimeBar {
  target: string;
  state: UptimeState;
  share: number;
}

/** Each uptime state in its status colour (the light scheme's: the chart is drawn once, for both). */
const UPTIME_COLORS = Object.fromEntries(UPTIME_STATES.map((s) => [s, STATE_COLORS[uptimeColorOf(s)].light])) as Record<
  UptimeState,
  string
>;

/** Stacked bars: per target, what share of its ticks due was operational, degraded, down, in maintenance or unknown. */
export function uptimeChart(bars: UptimeBar[], order: string[]): string {
  return renderPlot(
    () => ({
      height: 40 + order.length * 34,
      marginLeft: 170,
      x: { label: 'share of the ticks due →', domain: [0, 1], percent: true },
      y: { label: null, domain: order },
      color: { domain: Object.keys(UPTIME_COLORS), range: Object.values(UPTIME_COLORS) },
      marks: [
        Plot.barX(bars, {
          x: 'share',
          y: 'target',
          fill: 'state',
          order: Object.keys(UPTIME_COLORS),
          title: (d: UptimeBar) => `${d.target}: ${d.state} ${(d.share * 100).toFixed(2)} %`,
        }),
        Plot.ruleX([0]),
      ],
    }),
    'Uptime: the share of each target’s ticks in each state',
  );
}
