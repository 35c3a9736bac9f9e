/**
 * The compare views: for every window the site offers and every paired figure (TTFA and each scenario's expected
 * total), GET /api/v1/compare's answer over the whole grid, every prompt variant: each family (region × variant ×
 * figure, shared/rollup/paired-families.ts) computed whole, so a request narrowed by region, variant or target (a
 * pair kept when both its targets are named) reads the lines it names, and its intervals are the whole answer's.
 * Without `variant` an answer is the first variant's, as the live route's. The 24 h views are marked with every
 * hourly rollup, the 7, 30 and 90 d ones (whole days, compareSpan) with every daily rollup; each built one
 * family's rows at a time (a region × variant's hours of the longest window: one read, parsed once, every window
 * and figure from it: its whole days packed, a D1 row a day), so a build holds one family's blocks at once.
 */
import { METHOD_VERSION } from '../../../shared/constants.ts';
import { PAIRED_FIGURES } from '../../../shared/rollup/paired-hours.ts';
import {
  compareSpan,
  DAILY_COMPARE_WINDOWS,
  DEFAULT_VIEW_WINDOW,
  HOURLY_COMPARE_WINDOWS,
  isViewWindow,
  type ViewWindowId,
} from '../../../shared/views/windows.ts';
import { getConfig } from '../config.ts';
import { familyStoredIn } from '../db/paired.ts';
import { compareFamilies } from '../api/compare.ts';
import { pairLists } from '../api/filters.ts';
import { parseChoice } from '../api/query.ts';
import { COMPARE_LIST, CompareViewBuilder, compareViewName } from './compare-build.ts';
import { onlyParams, pairFilter, type BuildContext, type ViewMatcher, type ViewPart } from './view-part.ts';

export { COMPARE_LIST, compareViewName };

const matchCompare: ViewMatcher = (q) => {
  if (!onlyParams(q, ['window', 'figure', 'region', 'target', 'variant'])) return null;
  const window = q.get('window') ?? DEFAULT_VIEW_WINDOW;
  if (!isViewWindow(window)) return null;
  const figure = parseChoice(q, 'figure', PAIRED_FIGURES, 'ttfa_ms');
  const lists = pairLists(q);
  // The live route answers the first variant unless asked.
  const variants = lists.variants ?? [getConfig().promptVariants[0].id];
  return { view: compareViewName(window, figure), filter: pairFilter(COMPARE_LIST, { ...lists, variants }) };
};

/** The compare views of these windows (compareSpan), built one family's rows at a time over the longest of them. */
async function buildCompare(windows: readonly ViewWindowId[], { db, now }: BuildContext) {
  const spans = windows.map((id) => compareSpan(id, now));
  const from = Math.min(...spans.map((s) => s.from));
  const to = Math.max(...spans.map((s) => s.to));
  const builder = new CompareViewBuilder(spans);
  for (const f of compareFamilies()) {
    const { rows, days } = await familyStoredIn(db, {
      region: f.region,
      prompt_variant: f.prompt_variant,
      methodVersion: METHOD_VERSION,
      fromHour: from,
      toHour: to,
    });
    builder.add(f, rows, days);
  }
  return builder.views();
}

/** The 24 h compare views, built with each hour's rollups; the part that answers the route, every window's view. */
export const compareViews: ViewPart = {
  name: 'compare',
  settle: 'rollups',
  routes: { '/api/v1/compare': matchCompare },
  build: (ctx) => buildCompare(HOURLY_COMPARE_WINDOWS, ctx),
};

/** The 7, 30 and 90 d compare views, over whole days: built when a region writes a day's rollups. */
export const compareDayViews: ViewPart = {
  name: 'compare-days',
  settle: 'rollups',
  routes: {},
  build: (ctx) => buildCompare(DAILY_COMPARE_WINDOWS, ctx),
};
