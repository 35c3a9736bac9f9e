/** The overview's split bars: median network, server and residual time per region × target. Each chart is a plain function of its data, returning inline SVG. */
import * as Plot from '@observablehq/plot';
import { partScale, renderPlot, WIDTH, type Part } from './render.ts';
import { MS } from './axes.ts';
import { splitParts } from './ttft-split.ts';

export interface OverviewBar {
  /** Row label: region · target. */
  row: string;
  /** The target's colour (identity.ts), on a dot before the label. */
  color: string;
  network_ms: number | null;
  server_ms: number | null;
  ttft_ms: number;
  ttfa_ms: number | null;
}

/** Height of one overview row: its label above, its bar below. */
const OVERVIEW_ROW = 34;

/**
 * The overview's answer: per region × target (rows in the order given: by region, fastest first), the
 * median network and server time stacked, TTFT's median as a tick, and the median first *answer* token
 * as a ring where it comes later (a model that reasons first). Rows without a split show TTFT alone.
 * Each row's label sits above its bar, so the bars keep the chart's whole width on a phone.
 */
export function overviewSplitChart(rows: OverviewBar[]): string {
  const parts = rows.flatMap((r) => {
    const split = splitParts({ series: r.row, network_ms: r.network_ms, server_ms: r.server_ms });
    return split.length ? split.map((p) => ({ row: r.row, ...p })) : [{ row: r.row, part: 'no split' as Part, x1: 0, x2: r.ttft_ms }];
  });
  const used = (['network', 'server', 'no split'] as Part[]).filter((p) => parts.some((x) => x.part === p));
  const later = rows.filter((r) => r.ttfa_ms !== null && r.ttfa_ms > r.ttft_ms * 1.05);
  return renderPlot(
    (w) => ({
      height: 60 + OVERVIEW_ROW * rows.length,
      marginLeft: 8,
      marginRight: 48,
      x: { label: `median time (${MS}) →`, grid: true, ticks: w < WIDTH ? 4 : 8 },
      y: { axis: null, domain: rows.map((r) => r.row), paddingInner: 0, paddingOuter: 0 },
      color: partScale(used),
      marks: [
        Plot.barX(parts, { y: 'row', x1: 'x1', x2: 'x2', fill: 'part', insetTop: OVERVIEW_ROW / 2, insetBottom: 3 }),
        Plot.tickX(rows, {
          y: 'row',
          x: 'ttft_ms',
          stroke: 'currentColor',
          strokeWidth: 2,
          insetTop: OVERVIEW_ROW / 2 - 2,
          insetBottom: 1,
        }),
        Plot.dot(later, { y: 'row', x: 'ttfa_ms', dy: OVERVIEW_ROW / 4, stroke: 'currentColor', fill: 'none', r: 4 }),
        Plot.text(later, { y: 'row', x: 'ttfa_ms', dy: OVERVIEW_ROW / 4, dx: 7, text: () => 'answer', textAnchor: 'start', fontSize: 10 }),
        Plot.dot(rows, { y: 'row', frameAnchor: 'left', dx: 5, dy: -OVERVIEW_ROW / 4 + 1, fill: 'color', r: 4 }),
        Plot.text(rows, { y: 'row', text: 'row', frameAnchor: 'left', textAnchor: 'start', dx: 13, dy: -OVERVIEW_ROW / 4 + 1 }),
        Plot.ruleX([0]),
      ],
    }),
    'Median time to first token per region and target, split into network and server time, with the first answer token where it comes later',
  );
}
