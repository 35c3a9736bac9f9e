/**
 * GET /api/v1/timeline: per period and region × target × prompt variant (or, `pooled=true`, per target × variant
 * with its regions merged) the probes, failures by error class and TTFT p50/p95, from the rollups
 * (shared/rollup/timeline.ts), a series each; `format=csv`, a point a row. `window` is one of the site's windows (24h, 7d, 30d, 90d: shared/views/windows.ts),
 * which the public views hold, or `from`/`to` whole hours; hourly points for a day or less, daily ones beyond.
 */
import { paramsOf } from '../../../shared/api-contract/params.ts';
import { Hono } from 'hono';
import { METHOD_VERSION } from '../../../shared/constants.ts';
import { toCsv } from '../../../shared/csv.ts';
import { HOURLY_ROW_UNITS, rollupRowsCovering, TIMELINE_ROW_UNITS } from '../../../shared/config/read-limits.ts';
import { pointsOfSeries, timelineDoc, timelineResolution, type TimelineSpan } from '../../../shared/rollup/timeline.ts';
import type { TimelineDoc } from '../../../shared/api-types.ts';
import { HOUR_MS } from '../../../shared/time.ts';
import { isViewWindow, VIEW_WINDOW_IDS, viewSpan } from '../../../shared/views/windows.ts';
import { getConfig } from '../config.ts';
import { rollupsCovering, rollupsIn, type RollupFilter } from '../db/rollups.ts';
import { ApiError, badRequest } from './errors.ts';
import { csvResponse, pairLists, selectedPairs } from './filters.ts';
import type { ReaderEnv } from './public-reads.ts';
import { onlyKnown, parseBoolean, parseWindow } from './query.ts';

/** The parameters the timeline takes (its views narrow by these). */
export const TIMELINE_PARAMS = paramsOf('timeline');
/** The window a request names none of: the route's, and its views'. */
export const DEFAULT_TIMELINE_WINDOW = '24h';

/** The span a query asks for: one of the views' windows (by default the last 24 whole hours), or whole hours `from`/`to`. */
export function timelineSpan(q: URLSearchParams, now: number): TimelineSpan {
  if (q.has('from') || q.has('to')) {
    const w = parseWindow(q, now);
    const from = Math.ceil(w.from / HOUR_MS) * HOUR_MS;
    const to = Math.floor(w.to / HOUR_MS) * HOUR_MS;
    if (from >= to) throw badRequest('the timeline answers whole hours: from/to holds none');
    return { from, to, resolution: timelineResolution(from, to) };
  }
  const id = q.get('window') ?? DEFAULT_TIMELINE_WINDOW;
  if (!isViewWindow(id))
    throw badRequest(`window must be one of ${VIEW_WINDOW_IDS.join(', ')} (or give from/to), got "${id.slice(0, 100)}"`);
  const { from, to, resolution } = viewSpan(id, now);
  return { from, to, resolution };
}

/**
 * The timeline of `span` read from D1: its hourly rows, or at daily resolution the daily rows of its whole days and
 * the hourly rows of its edges. What one request merges is bounded first, like percentiles (the CPU of one request,
 * whoever asks): a row each period and pair, a daily row 1 unit, an hourly one HOURLY_ROW_UNITS, at most
 * TIMELINE_ROW_UNITS.
 */
export async function liveTimeline(
  db: D1Database,
  span: TimelineSpan,
  lists: Pick<RollupFilter, 'regions' | 'targets' | 'variants'>,
  pooled: boolean,
): Promise<TimelineDoc> {
  const rows = span.resolution === 'hour' ? { daily: 0, hourly: (span.to - span.from) / HOUR_MS } : rollupRowsCovering(span.from, span.to);
  const units = selectedPairs({ fromTick: span.from, toTick: span.to, ...lists }) * (rows.daily + rows.hourly * HOURLY_ROW_UNITS);
  const plan = getConfig().plan;
  if (units > TIMELINE_ROW_UNITS[plan])
    throw new ApiError(
      400,
      'too_much_work',
      `this window and selection read about ${Math.ceil(units)} rollup row units (a daily row 1, an hourly row ${HOURLY_ROW_UNITS}); one request reads at most ${TIMELINE_ROW_UNITS[plan]} on the ${plan} plan (what fits its CPU). Ask for fewer regions, targets or variants (region=…, target=…, variant=…), or a shorter window, and combine the answers; an anonymous request for one of the site's windows (window=24h, 7d, 30d, 90d) is answered whole, from the public views`,
    );
  const f: RollupFilter = { fromHour: span.from, toHour: span.to, methodVersion: METHOD_VERSION, ...lists };
  const read = span.resolution === 'hour' ? await rollupsIn(db, f) : await rollupsCovering(db, f);
  return timelineDoc(read, span, pooled, METHOD_VERSION);
}

export const timelineRoutes = new Hono<ReaderEnv>();

timelineRoutes.get('/timeline', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, paramsOf('timeline'));
  const span = timelineSpan(q, Date.now());
  const doc = await liveTimeline(c.env.DB, span, pairLists(q), parseBoolean(q, 'pooled', false));
  if (q.get('format') === 'csv') return csvResponse(toCsv(pointsOfSeries(doc.series)), `timeline-${span.resolution}.csv`);
  return c.json(doc);
});
