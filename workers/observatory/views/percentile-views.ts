/**
 * The percentile views: for every window the site offers (shared/views/windows.ts) and every figure the rollups
 * hold, GET /api/v1/percentiles's answer from rollups over the whole configured grid (by region and target, per
 * prompt variant and per split source where the route groups so), and TTFT per target with its regions pooled.
 * Built from packed reads of each row once (the 24 hours' hourly rows, today's hours, the days back to 90), every
 * figure and window summed in one pass (windowRecords).
 */
import { METHOD_VERSION } from '../../../shared/constants.ts';
import { packedColumnsOf, type GroupRecord, type RollupFigure, type RollupGroupColumn } from '../../../shared/rollup/percentiles.ts';
import { DAY_WINDOWS, percentileWindows, type Groupings, type WindowRows } from '../../../shared/views/percentile-windows.ts';
import type { ViewList } from '../../../shared/views/view-text.ts';
import { isViewWindow, VIEW_WINDOWS, viewSpan, type ViewWindowId } from '../../../shared/views/windows.ts';
import { DAY_MS, HOUR_MS } from '../../../shared/time.ts';
import { getConfig } from '../config.ts';
import { packedRowsCovering } from '../db/packed-reads.ts';
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

/** The packed rows each window needs, each row read once (shared/views/percentile-windows.ts says which). */
async function windowRows(db: D1Database, now: number): Promise<WindowRows> {
  const lastHour = Math.floor(now / HOUR_MS) * HOUR_MS;
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const columns = packedColumnsOf(ROLLUP_FIGURES as RollupFigure[]);
  const read = (fromHour: number, toHour: number, resolution: 'hour' | 'day') =>
    fromHour < toHour
      ? packedRowsCovering(db, { fromHour, toHour, resolution, methodVersion: METHOD_VERSION }, columns)
      : Promise.resolve([]);
  const days = new Map<ViewWindowId, Awaited<ReturnType<typeof read>>>();
  let reached = today;
  for (const w of DAY_WINDOWS) {
    days.set(w.id, await read(today - w.days * DAY_MS, reached, 'day'));
    reached = today - w.days * DAY_MS;
  }
  return { lastDay: await read(lastHour - DAY_MS, lastHour, 'hour'), todaysHours: await read(today, lastHour, 'hour'), days };
}

/** The groupings the views hold, as the live route groups (groupingFor). */
export const viewGroupings = (): Groupings => ({
  figures: ROLLUP_FIGURES as RollupFigure[],
  by: gridBy('ttft_ms') as RollupGroupColumn[],
  partsBy: gridBy('server_ms') as RollupGroupColumn[],
  pooledBy: targetBy('ttft_ms') as RollupGroupColumn[],
});

export const percentileViews: ViewPart = {
  name: 'percentiles',
  settle: 'rollups',
  routes: { '/api/v1/percentiles': matchPercentiles },
  async build({ db, now }) {
    const records = percentileWindows(await windowRows(db, now), viewGroupings());
    const views: BuiltView[] = [];
    for (const w of VIEW_WINDOWS) {
      const span = viewSpan(w.id, now);
      const { grid, pooledTtft } = records.get(w.id)!;
      for (const metric of ROLLUP_FIGURES) {
        const groupings: Array<[GroupColumn[], GroupRecord[] | undefined, boolean]> = [
          [gridBy(metric), grid.get(metric as RollupFigure), false],
        ];
        if (metric === 'ttft_ms') groupings.push([targetBy(metric), pooledTtft, true]);
        for (const [by, groups, isPooled] of groupings) {
          const list = listOf(by);
          views.push({
            name: percentileViewName(w.id, metric, isPooled),
            doc: rollupPercentileDoc(
              groups!.map((g) => keysFirst(g, list.keys)),
              metric,
              by,
              span.from,
              span.to,
              METHOD_VERSION,
            ),
            list,
          });
        }
      }
    }
    return views;
  },
};
