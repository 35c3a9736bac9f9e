/**
 * /badges/<view>/<target>.svg: a target's status history over a view (24h, 7d, 30d, 90d), a mark per hour or day as
 * the status page's strip draws it, a partial outage included; each mark names its period on hover.
 */
import type { APIRoute, GetStaticPaths } from 'astro';
import { siteData } from '../../../data/load.ts';
import { historyBadgeSvg } from '../../../data/badge.ts';
import { cellWords, periodStamp, viewCells } from '../../../data/status.ts';
import { WINDOWS, type WindowId } from '../../../data/types.ts';
import { STATE_LABELS, worstState } from '../../../../../shared/status/levels.ts';

export const getStaticPaths: GetStaticPaths = async () => {
  const data = await siteData();
  return WINDOWS.flatMap((w) => data.targets.map((t) => ({ params: { window: w.id, target: t.id } })));
};

export const GET: APIRoute = async ({ params }) => {
  const data = await siteData();
  const target = data.targets.find((t) => t.id === params.target)!;
  const view = data.windows.find((w) => w.id === (params.window as WindowId))!;
  const hourly = view.resolution === 'hour';
  const cells = viewCells(data, view, target.id);
  const worst = worstState(cells.map((c) => c.state));
  const summary = `${view.label} ${hourly ? 'by hour' : 'by day'}, worst ${STATE_LABELS[worst].toLowerCase()}`;
  return new Response(
    historyBadgeSvg(
      target.label,
      summary,
      cells.map((c) => ({ state: c.state, words: cellWords(c, periodStamp(c.start, hourly)) })),
    ),
    { headers: { 'content-type': 'image/svg+xml' } },
  );
};
