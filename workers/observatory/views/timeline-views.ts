/**
 * The timeline views: for every window the site offers (shared/views/windows.ts), GET /api/v1/timeline's answer
 * over the whole configured grid, per region × target × prompt variant, and per target × variant with its regions
 * merged (`pooled=true`). Two answers rather than both lists in one: a view narrows one list by its lines' keys,
 * and a pooled point narrowed by region would be another pooling, which only the live path computes. Built from
 * two reads, the last 24 hours' hourly rows and the longest window's daily rows, as the percentile views are.
 */
import { METHOD_VERSION } from '../../../shared/constants.ts';
import { spanRows, TIMELINE_KEYS, timelineDoc } from '../../../shared/rollup/timeline.ts';
import { DAY_MS, HOUR_MS } from '../../../shared/time.ts';
import type { ViewList } from '../../../shared/views/view-text.ts';
import { isViewWindow, LONGEST_VIEW_DAYS, VIEW_WINDOWS, viewSpan } from '../../../shared/views/windows.ts';
import { pairLists } from '../api/filters.ts';
import { parseBoolean } from '../api/query.ts';
import { DEFAULT_TIMELINE_WINDOW, TIMELINE_PARAMS } from '../api/timeline.ts';
import { rollupsIn } from '../db/rollups.ts';
import { onlyParams, pairFilter, type BuiltView, type ViewMatcher, type ViewPart } from './view-part.ts';

const LIST: ViewList = { field: 'series', keys: TIMELINE_KEYS };

export const timelineViewName = (window: string, pooled: boolean) => `timeline/${window}${pooled ? '@target' : ''}`;

const matchTimeline: ViewMatcher = (q) => {
  if (
    !onlyParams(
      q,
      TIMELINE_PARAMS.filter((p) => p !== 'from' && p !== 'to'),
    )
  )
    return null;
  const window = q.get('window') ?? DEFAULT_TIMELINE_WINDOW;
  if (!isViewWindow(window)) return null;
  const pooled = parseBoolean(q, 'pooled', false);
  const lists = pairLists(q);
  // Pooled over some regions only: another merge, which no view holds.
  if (pooled && lists.regions) return null;
  return { view: timelineViewName(window, pooled), filter: pairFilter(LIST, lists) };
};

export const timelineViews: ViewPart = {
  name: 'timeline',
  settle: 'rollups',
  routes: { '/api/v1/timeline': matchTimeline },
  async build({ db, now }) {
    const lastHour = Math.floor(now / HOUR_MS) * HOUR_MS;
    const today = Math.floor(now / DAY_MS) * DAY_MS;
    const hourly = await rollupsIn(db, { fromHour: lastHour - DAY_MS, toHour: lastHour, methodVersion: METHOD_VERSION });
    const daily = await rollupsIn(db, {
      fromHour: today - LONGEST_VIEW_DAYS * DAY_MS,
      toHour: today,
      resolution: 'day',
      methodVersion: METHOD_VERSION,
    });
    const views: BuiltView[] = [];
    for (const w of VIEW_WINDOWS) {
      const span = viewSpan(w.id, now);
      const rows = spanRows(hourly, daily, span);
      for (const pooled of [false, true])
        views.push({ name: timelineViewName(w.id, pooled), doc: timelineDoc(rows, span, pooled, METHOD_VERSION), list: LIST });
    }
    return views;
  },
};
