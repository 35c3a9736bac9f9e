/** GET /api/v1/percentiles: exact percentiles from raw samples, or merged from the rollups beyond their retention. */
import { paramsOf } from '../../../shared/api-contract/params.ts';
import { Hono, type Context } from 'hono';
import { toCsv } from '../../../shared/csv.ts';
import { HOURLY_ROW_UNITS, PERCENTILE_ROW_UNITS, percentileRowUnits } from '../../../shared/config/read-limits.ts';
import { SPLIT_METRICS } from '../../../shared/rollup/rollup.ts';
import { DAY_MS, HOUR_MS } from '../../../shared/time.ts';
import { getConfig } from '../config.ts';
import type { SampleFilter } from '../db/samples.ts';
import { ApiError, badRequest } from './errors.ts';
import { boundRaw, csvResponse, filterFrom, selectedPairs, windowOf } from './filters.ts';
import {
  GROUP_COLUMNS,
  METRICS,
  ROLLUP_FIGURES,
  groupingFor,
  percentileGroups,
  percentileGroupsFromRollups,
  type GroupColumn,
  type Metric,
} from './percentiles.ts';
import type { RollupGroupColumn } from '../../../shared/rollup/percentiles.ts';
import type { ReaderEnv } from './public-reads.ts';
import { rollupPercentileDoc } from '../../../shared/rollup/percentile-doc.ts';
import { onlyKnown, parseChoice, parseList } from './query.ts';

export const percentileRoutes = new Hono<ReaderEnv>();

percentileRoutes.get('/percentiles', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, paramsOf('percentiles'));
  const now = Date.now();
  const filter = filterFrom(q, now);
  const metric = parseChoice(q, 'metric', METRICS, 'ttft_ms');
  const by = groupingFor(
    metric,
    (parseList(q, 'by', GROUP_COLUMNS) ?? ['region', 'target']) as GroupColumn[],
    getConfig().promptVariants.length,
  );
  // Raw samples while the window lies within their retention (exact, with intervals); hourly rollups beyond it.
  const rawFrom = now - getConfig().retentionDays * DAY_MS;
  const source = parseChoice(q, 'source', ['raw', 'rollups'] as const, filter.fromTick >= rawFrom ? 'raw' : 'rollups');
  if (source === 'rollups') return rollupPercentiles(c, q, filter, metric, by);
  boundRaw(c, filter.toTick - filter.fromTick, 'raw percentiles');
  const groups = await percentileGroups(c.env.DB, filter, metric, by);
  if (q.get('format') === 'csv') return csvResponse(toCsv(groups), `percentiles-${metric}.csv`);
  return c.json({
    metric,
    by,
    source,
    window: windowOf(filter),
    method_version: filter.methodVersion,
    method:
      'exact percentiles (linear interpolation between closest ranks) over successful samples; 95 % confidence intervals from order statistics (equal-tailed, distribution-free); error_rate over all samples',
    groups,
  });
});

async function rollupPercentiles(
  c: Context<ReaderEnv>,
  q: URLSearchParams,
  filter: SampleFilter,
  metric: Metric,
  by: GroupColumn[],
): Promise<Response> {
  if (!ROLLUP_FIGURES.includes(metric))
    throw badRequest(`the hourly rollups hold ${ROLLUP_FIGURES.join(', ')}; ${metric} needs source=raw within the raw retention`);
  if (by.includes('served_by')) throw badRequest('the rollups do not keep where each sample was served; by=served_by needs source=raw');
  const rollupBy = by as RollupGroupColumn[];
  if (by.includes('split_source') && !(SPLIT_METRICS as readonly string[]).includes(metric))
    throw badRequest(`the hourly rollups keep split sources for ${SPLIT_METRICS.join(' and ')} only; use source=raw`);
  if (filter.splitSources || filter.error || filter.includeBackfill === false)
    throw badRequest('split_source, error and include_backfill filters need source=raw');
  const fromHour = Math.ceil(filter.fromTick / HOUR_MS) * HOUR_MS;
  const toHour = Math.floor(filter.toTick / HOUR_MS) * HOUR_MS;
  if (fromHour >= toHour) throw badRequest('the hourly rollups answer whole hours: the window holds none; use source=raw');
  // What the answer decodes, before it is read: a request gets the CPU of one invocation, whoever asks.
  const units = percentileRowUnits(fromHour, toHour, selectedPairs(filter));
  const cap = PERCENTILE_ROW_UNITS[getConfig().plan];
  if (units > cap) {
    throw new ApiError(
      400,
      'too_much_work',
      `this window and selection merge about ${Math.ceil(units)} rollup row units (a daily row 1, an hourly row ${HOURLY_ROW_UNITS}); one request merges at most ${cap} on the ${getConfig().plan} plan (what fits its CPU). Ask for fewer regions, targets or variants (region=…, target=…, variant=…), or a shorter window, and combine the answers`,
    );
  }
  const groups = await percentileGroupsFromRollups(
    c.env.DB,
    { fromHour, toHour, methodVersion: filter.methodVersion!, regions: filter.regions, targets: filter.targets, variants: filter.variants },
    metric,
    rollupBy,
  );
  if (q.get('format') === 'csv') return csvResponse(toCsv(groups), `percentiles-${metric}.csv`);
  return c.json(rollupPercentileDoc(groups, metric, by, fromHour, toHour, filter.methodVersion!));
}
