/** p50/p90/p95/p99 with 95 % order-statistic intervals, sample counts and error rates, per group. */
import { ranksNeeded } from '../../../shared/stats/percentile-ci.ts';
import { metricAtRanks, metricGroupCounts, type SampleFilter } from '../db/samples.ts';
import { METRIC_FIELDS, type MetricField } from '../../../shared/sample-fields.ts';
import { ROLLUP_METRICS, SPLIT_METRICS } from '../../../shared/rollup/rollup.ts';
import {
  PERCENTILES,
  packedColumnsOf,
  packedPercentileGroupsByFigure,
  sortGroups,
  type RollupFigure,
  type RollupGroupColumn,
} from '../../../shared/rollup/percentiles.ts';
import { packedRowsCovering } from '../db/packed-reads.ts';
import type { RollupFilter } from '../db/rollups.ts';
import { PER_SOURCE_FIGURES } from '../../../shared/rollup/figures.ts';
import { percentileFields, type GroupKey, type GroupRecord } from '../../../shared/rollup/percentiles.ts';

export { PERCENTILES };
/** What percentiles can be grouped by; `served_by` (where the vendor answered) from raw samples only: the rollups do not keep it. */
export const GROUP_COLUMNS = ['region', 'target', 'prompt_variant', 'split_source', 'served_by'] as const;
export type GroupColumn = (typeof GROUP_COLUMNS)[number];

/** Figures of MEASUREMENT.md that percentiles can be taken of (also the SQL column allow-list). */
export const METRICS = METRIC_FIELDS;
export type Metric = MetricField;

/**
 * The grouping a metric is reported by: the split's parts always per split_source, and every figure per prompt
 * variant when the configuration has more than one (`variants`), whichever of them a request names, so an answer
 * narrowed to one variant has the shape of the whole.
 */
export function groupingFor(metric: Metric, by: readonly GroupColumn[], variants: number): GroupColumn[] {
  const grouping: GroupColumn[] =
    (PER_SOURCE_FIGURES as readonly Metric[]).includes(metric) && !by.includes('split_source') ? [...by, 'split_source'] : [...by];
  // Prompt variants are never pooled either: a 200-token and a 32,000-token prompt are different workloads.
  return variants > 1 && !grouping.includes('prompt_variant') ? [...grouping, 'prompt_variant'] : grouping;
}

export type { GroupRecord } from '../../../shared/rollup/percentiles.ts';

/**
 * Exact percentiles per group in two small queries: the counts per group, then only the order
 * statistics those percentiles and their intervals read.
 */
export async function percentileGroups(
  db: D1Database,
  f: SampleFilter,
  metric: Metric,
  by: readonly GroupColumn[],
): Promise<GroupRecord[]> {
  const counts = await metricGroupCounts(db, f, metric, by);
  const ranks = new Set<number>();
  for (const g of counts) for (const q of PERCENTILES) for (const r of ranksNeeded(g.n, q)) ranks.add(r);
  const id = (key: Record<string, string | null>) => by.map((c) => key[c] ?? '').join('\u0000');
  const values = new Map<string, number>();
  for (const row of await metricAtRanks(
    db,
    f,
    metric,
    by,
    [...ranks].sort((a, b) => a - b),
  ))
    values.set(`${id(row.key)}|${row.rank}`, row.value);

  const out: GroupRecord[] = counts.map((g) => {
    const at = (rank: number) => {
      const v = values.get(`${id(g.key)}|${rank}`);
      if (v === undefined) throw new Error(`order statistic ${rank} of ${id(g.key)} missing`);
      return v;
    };
    return {
      ...(g.key as GroupKey),
      n: g.n,
      samples: g.samples,
      errors: g.errors,
      error_rate: g.samples ? g.errors / g.samples : null,
      ...percentileFields(g.n, at),
    };
  });
  sortGroups(out, by);
  return out;
}

/** Figures the hourly rollups hold a histogram of. */
export const ROLLUP_FIGURES: readonly Metric[] = [...ROLLUP_METRICS, ...SPLIT_METRICS];

/**
 * Percentiles per group from the rollups of whole hours (daily rows for whole days), merged
 * (shared/rollup/percentiles.ts: within HISTOGRAM_RELATIVE_ERROR of the exact values, with intervals).
 */
export async function percentileGroupsFromRollups(
  db: D1Database,
  f: RollupFilter,
  metric: Metric,
  by: readonly RollupGroupColumn[],
): Promise<GroupRecord[]> {
  // Only the figure's column read (a split part's: the split's, per source), packed per period and region, and summed.
  const figure = metric as RollupFigure;
  return packedPercentileGroupsByFigure(await packedRowsCovering(db, f, packedColumnsOf([figure])), [figure], by).get(figure)!;
}
