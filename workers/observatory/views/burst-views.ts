/**
 * The concurrency report's view: GET /api/v1/bursts's default answer (the newest SITE_BURST_RUNS runs of every
 * region × target), narrowed by `region` and `target` as the route is. Built when a region stores a run
 * (bursts/burst-duty.ts marks it).
 */
import { SITE_BURST_RUNS } from '../../../shared/config/read-limits.ts';
import type { ViewList } from '../../../shared/views/view-text.ts';
import { burstReport, defaultBurstWindow } from '../api/bursts.ts';
import { pairLists } from '../api/filters.ts';
import { onlyParams, pairFilter, type ViewMatcher, type ViewPart } from './view-part.ts';

const LIST: ViewList = { field: 'reports', keys: ['region', 'target'] };
export const BURSTS_VIEW = 'bursts';

/** The default report: no window, `runs` absent or the default; `streams=true` and other runs go to the live path. */
const matchBursts: ViewMatcher = (q) => {
  if (!onlyParams(q, ['region', 'target', 'runs'])) return null;
  if (q.has('runs') && q.get('runs') !== String(SITE_BURST_RUNS)) return null;
  return { view: BURSTS_VIEW, filter: pairFilter(LIST, pairLists(q)) };
};

export const burstViews: ViewPart = {
  name: 'bursts',
  routes: { '/api/v1/bursts': matchBursts },
  async build({ db, now }) {
    const { doc } = await burstReport(db, defaultBurstWindow(now), {}, SITE_BURST_RUNS);
    return [{ name: BURSTS_VIEW, doc, list: LIST }];
  },
};
