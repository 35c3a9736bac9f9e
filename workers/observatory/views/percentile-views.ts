/**
 * The percentile views: for every window the site offers (shared/views/windows.ts) and every figure the rollups
 * hold, GET /api/v1/percentiles's answer from rollups over the whole configured grid (by region and target, per
 * prompt variant and per split source where the route groups so), and TTFT per target with its regions pooled.
 * Built from two reads: the last 24 hours' hourly rows and the longest window's daily rows.
 */
import { METHOD_VERSION } from '../../../shared/constants.ts';
import { rollupPercentileGroups, type RollupFigure, type RollupGroupColumn } from '../../../shared/rollup/percentiles.ts';
import type { ViewList } from '../../../shared/views/view-text.ts';
import { isViewWindow, LONGEST_VIEW_DAYS, VIEW_WINDOWS, viewSpan } from '../../../shared/views/windows.ts';
import { DAY_MS, HOUR_MS } from '../../../shared/time.ts';
import { spanRows } from '../../../shared/rollup/timeline.ts';
import { getConfig } from '../config.ts';
import { rollupsIn } from '../db/rollups.ts';
import { pairLists } from '../api/filters.ts';
import { rollupPercentileDoc } from '../../../shared/rollup/percentile-doc.ts';
import { GROUP_COLUMNS, groupingFor, ROLLUP_FIGURES, type GroupColumn, type Metric } from '../api/percentiles.ts';
import { parseChoice, parseList } from '../api/query.ts';
import { keysFirst, onlyParams, pairFilter, type BuiltView, type ViewMatcher, type ViewPart } from './view-part.ts';

/** The key columns a grouping's lines start with: the ones a request narrows by (split_source may be null). */
const KEY_COLUMNS: readonly GroupColumn[] = ['region', 'target', 'prompt_variant'];
const listOf = (by: readonly GroupColumn[]): ViewList => ({ field: 'groups', keys: by.filter((c) => KEY_COLUMNS.includes(c)) });

/** The two groupings the views hold: every region × target, and (TTFT only) every target with its regions pooled. */
const gridBy = (metric: Metric) => groupingFor(metric, ['region', 'target'], getConfig().promptVariants.length);
const targetBy = (metric: Metric) => groupingFor(metric, ['target'], getConfig().promptVariants.length);
export const POOLED_VIEW_FIGURES: readonly Metric[] = ['ttft_ms'];

export const percentileViewName = (window: string, metric: string, pooled = false) =>
  `percentiles/${window}/${metric}${pooled ? '@target' : ''}`;

const sameGrouping = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((c, i) => c === b[i]);

const matchPercentiles: ViewMatcher = (q) => {
  if (!onlyParams(q, ['window', 'metric', 'by', 'source', 'region', 'target', 'variant', 'format'])) return null;
  if (q.has('source') && q.get('source') !== 'rollups') return null;
  const window = q.get('window') ?? '24h';
  if (!isViewWindow(window)) return null;
  const metric = parseChoice(q, 'metric', ROLLUP_FIGURES, 'ttft_ms');
  const lists = pairLists(q);
  const asked = parseList(q, 'by', GROUP_COLUMNS) as GroupColumn[] | undefined;
  const by = asked ? groupingFor(metric, asked, getConfig().promptVariants.length) : gridBy(metric);
  if (sameGrouping(by, gridBy(metric))) return { view: percentileViewName(window, metric), filter: pairFilter(listOf(by), lists) };
  // Pooled over regions: a request narrowed to some regions pools other samples, which no view holds.
  if (POOLED_VIEW_FIGURES.includes(metric) && sameGrouping(by, targetBy(metric)) && !lists.regions)
    return { view: percentileViewName(window, metric, true), filter: pairFilter(listOf(by), lists) };
  return null;
};

export const percentileViews: ViewPart = {
  name: 'percentiles',
  routes: { '/api/v1/percentiles': matchPercentiles },
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
      // A window of days: its whole days' daily rows, then today's ended hours.
      const rows = spanRows(hourly, daily, span);
      for (const metric of ROLLUP_FIGURES) {
        const groupings = POOLED_VIEW_FIGURES.includes(metric) ? [gridBy(metric), targetBy(metric)] : [gridBy(metric)];
        for (const by of groupings) {
          const list = listOf(by);
          const groups = rollupPercentileGroups(rows, metric as RollupFigure, by as RollupGroupColumn[]).map((g) =>
            keysFirst(g, list.keys),
          );
          views.push({
            name: percentileViewName(w.id, metric, by === groupings[1]),
            doc: rollupPercentileDoc(groups, metric, by, span.from, span.to, METHOD_VERSION),
            list,
          });
        }
      }
    }
    return views;
  },
};
