/** TTFT split into network and server time per series: stacked horizontal bars. Each chart is a plain function of its data, returning inline SVG. */
import * as Plot from '@observablehq/plot';
import { partScale, renderPlot, WIDTH, type Part } from './render.ts';
import { MS } from './axes.ts';

/** One row of a split chart: a series' median network and server time, and the residual where the server reports its own time to first token. */
export interface SplitRow {
  series: string;
  network_ms: number | null;
  server_ms: number | null;
  residual_ms?: number | null;
}

/**
 * The split's stacked parts of one row: network, then the server's time. When the residual is known
 * and lies inside the server's time, the server's part is drawn as what its own report covers plus
 * the residual (gateways, proxies, buffering); a negative residual cannot be stacked and stays in the table.
 */
export function splitParts(r: SplitRow): Array<{ part: Part; x1: number; x2: number }> {
  if (r.network_ms === null || r.server_ms === null) return [];
  const n = r.network_ms;
  const residual = r.residual_ms ?? null;
  if (residual !== null && residual > 0 && residual < r.server_ms) {
    return [
      { part: 'network', x1: 0, x2: n },
      { part: 'server', x1: n, x2: n + r.server_ms - residual },
      { part: 'residual', x1: n + r.server_ms - residual, x2: n + r.server_ms },
    ];
  }
  return [
    { part: 'network', x1: 0, x2: n },
    { part: 'server', x1: n, x2: n + r.server_ms },
  ];
}

/** TTFT split into network and server time per series (stacked horizontal bars), series in the given order. */
export function ttftSplitChart(rows: SplitRow[], order: string[]): string {
  const parts = rows.flatMap((r) => splitParts(r).map((p) => ({ series: r.series, ...p })));
  const used = [...new Set(parts.map((p) => p.part))];
  const domain = order.filter((o) => rows.some((r) => r.series === o));
  return renderPlot(
    (w) => ({
      height: 60 + 36 * domain.length,
      marginLeft: 60,
      x: { label: `median time to first token (${MS}) →`, grid: true, ticks: w < WIDTH ? 4 : 8 },
      y: { label: null, domain },
      color: partScale(used),
      marks: [Plot.barX(parts, { y: 'series', x1: 'x1', x2: 'x2', fill: 'part' }), Plot.ruleX([0])],
    }),
    'Median TTFT per series split into network and server time',
  );
}
