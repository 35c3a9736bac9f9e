/**
 * The prompt-cache views: GET /api/v1/prompt-cache's default answer (margin 5 %) in the windows the site uses
 * (PROMPT_CACHE_VIEW_WINDOWS), every region and target, narrowed by region and target line by line (each cache is
 * computed on its own, so a narrowed answer is the whole one's caches of them). Built from one read of the longest
 * window's rows (a row per region × target × hour); marked with every rollup.
 */
import { METHOD_VERSION } from '../../../shared/constants.ts';
import { DEFAULT_MARGIN } from '../../../shared/stats/paired.ts';
import type { ViewList } from '../../../shared/views/view-text.ts';
import { DEFAULT_VIEW_WINDOW, viewSpan, type ViewWindowId } from '../../../shared/views/windows.ts';
import { HOUR_MS } from '../../../shared/time.ts';
import { getConfig } from '../config.ts';
import { cacheRowsIn } from '../db/cache.ts';
import { pairLists } from '../api/filters.ts';
import { promptCachesDocument, wantedCaches } from '../api/prompt-cache.ts';
import { keysFirst, onlyParams, pairFilter, type BuiltView, type ViewMatcher, type ViewPart } from './view-part.ts';

/**
 * The windows held: the one the site shows (the default, 7 days) and the last 24 hours. The longer windows are the
 * live route's (a token holder's: more than the anonymous 31 days, or a build reading a row per cache and hour of
 * 90 days every hour).
 */
export const PROMPT_CACHE_VIEW_WINDOWS: readonly ViewWindowId[] = ['24h', DEFAULT_VIEW_WINDOW];

/** A cache's line starts with its region, target and variant. */
export const PROMPT_CACHE_LIST: ViewList = { field: 'caches', keys: ['region', 'target', 'prompt_variant'] };

export const promptCacheViewName = (window: string) => `prompt-cache/${window}`;

const matchPromptCache: ViewMatcher = (q) => {
  if (!onlyParams(q, ['window', 'region', 'target'])) return null;
  const window = q.get('window') ?? DEFAULT_VIEW_WINDOW;
  if (!(PROMPT_CACHE_VIEW_WINDOWS as readonly string[]).includes(window)) return null;
  return { view: promptCacheViewName(window), filter: pairFilter(PROMPT_CACHE_LIST, pairLists(q)) };
};

export const promptCacheViews: ViewPart = {
  name: 'prompt-cache',
  settle: 'rollups',
  routes: { '/api/v1/prompt-cache': matchPromptCache },
  async build({ db, now }) {
    const config = getConfig();
    const regions = config.regions.map((r) => r.code);
    const targets = config.targets.map((t) => t.id);
    const spans = PROMPT_CACHE_VIEW_WINDOWS.map((id) => viewSpan(id, now));
    const from = Math.min(...spans.map((s) => s.from));
    const to = Math.max(...spans.map((s) => s.to));
    const hours = (to - from) / HOUR_MS;
    const rows = await cacheRowsIn(
      db,
      { from, to, methodVersion: METHOD_VERSION, regions, targets },
      Math.max(1, hours * regions.length * targets.length),
    );
    const wanted = wantedCaches(regions, targets);
    return spans.map((span): BuiltView => {
      const doc = promptCachesDocument(
        span.from,
        span.to,
        DEFAULT_MARGIN,
        wanted,
        rows.filter((r) => r.hour >= span.from && r.hour < span.to),
      );
      return {
        name: promptCacheViewName(span.id),
        doc: { ...doc, caches: doc.caches.map((c) => keysFirst(c, PROMPT_CACHE_LIST.keys)) },
        list: PROMPT_CACHE_LIST,
      };
    });
  },
};
