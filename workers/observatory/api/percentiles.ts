/** p50/p90/p95/p99 with 95 % order-statistic intervals, sample counts and error rates, per group. */
import { percentileWithCiAt, ranksNeeded } from '../../../shared/stats/percentile-ci.ts';
import { metricAtRanks, metricGroupCounts, type SampleFilter } from '../db/samples.ts';
import { METRIC_FIELDS, type MetricField } from '../../../shared/sample-fields.ts';
import { mergeRollups, ROLLUP_METRICS, SPLIT_METRICS as ROLLED_SPLIT, type Rollup } from '../../../shared/rollup.ts';
import { emptyHistogram, rankReader, type ExpHistogram } from '../../../shared/stats/exp-histogram.ts';
import { rollupsCovering, type RollupFilter } from '../db/rollups.ts';

export const PERCENTILES = [0.5, 0.9, 0.95, 0.99] as const;
export const GROUP_COLUMNS = ['region', 'target', 'prompt_variant', 'split_source'] as const;
export type GroupColumn = (typeof GROUP_COLUMNS)[number];

/** Figures of MEASUREMENT.md that percentiles can be taken of (also the SQL column allow-list). */
export const METRICS = METRIC_FIELDS;
export type Metric = MetricField;

/** Parts of the TTFT split: from different sources they are different measurements, so never pooled. */
export const SPLIT_METRICS: readonly Metric[] = ['network_ms', 'server_ms', 'residual_ms'];

/** The grouping a metric is reported by: the split's parts always per split_source. */
export function groupingFor(metric: Metric, by: readonly GroupColumn[]): GroupColumn[] {
  return SPLIT_METRICS.includes(metric) && !by.includes('split_source') ? [...by, 'split_source'] : [...by];
}

export type GroupRecord = Record<string, string | number | null>;

/** Groups in the order of their grouping columns (a null value sorts as ''), whichever source answered them. */
function sortGroups(groups: GroupRecord[], by: readonly GroupColumn[]): void {
  groups.sort((a, b) => by.map((c) => String(a[c] ?? '').localeCompare(String(b[c] ?? ''))).find((d) => d !== 0) ?? 0);
}

/**
 * Exact percentiles per group in two small queries: the counts per group, then only the order
 * statistics those percentiles and their intervals read.
 */
export async function percentileGroups(db: D1Database, f: SampleFilter, metric: Metric, by: readonly GroupColumn[]): Promise<GroupRecord[]> {
  const counts = await metricGroupCounts(db, f, metric, by);
  const ranks = new Set<number>();
  for (const g of counts) for (const q of PERCENTILES) for (const r of ranksNeeded(g.n, q)) ranks.add(r);
  const id = (key: Record<string, string | null>) => by.map((c) => key[c] ?? '').join('\u0000');
  const values = new Map<string, number>();
  for (const row of await metricAtRanks(db, f, metric, by, [...ranks].sort((a, b) => a - b))) values.set(`${id(row.key)}|${row.rank}`, row.value);

  const out: GroupRecord[] = counts.map((g) => {
    const at = (rank: number) => {
      const v = values.get(`${id(g.key)}|${rank}`);
      if (v === undefined) throw new Error(`order statistic ${rank} of ${id(g.key)} missing`);
      return v;
    };
    const record: GroupRecord = { ...g.key, n: g.n, samples: g.samples, errors: g.errors, error_rate: g.samples ? g.errors / g.samples : null };
    for (const q of PERCENTILES) {
      const name = `p${Math.round(q * 100)}`;
      const p = percentileWithCiAt(g.n, q, at);
      record[name] = p.value;
      record[`${name}_ci_low`] = p.ci_low;
      record[`${name}_ci_high`] = p.ci_high;
    }
    return record;
  });
  sortGroups(out, by);
  return out;
}

/** Figures the hourly rollups hold a histogram of. */
export const ROLLUP_FIGURES: readonly Metric[] = [...ROLLUP_METRICS, ...ROLLED_SPLIT];

/**
 * Percentiles per group from the rollups of whole hours (daily rows for whole days): the groups' rows
 * merged, each percentile estimated from the merged histogram (within HISTOGRAM_RELATIVE_ERROR of the
 * exact value over the same samples), and its interval's order statistics read from it the same way.
 */
export async function percentileGroupsFromRollups(db: D1Database, f: RollupFilter, metric: Metric, by: readonly GroupColumn[]): Promise<GroupRecord[]> {
  const rows = await rollupsCovering(db, f);
  const rollupBy = by.filter((c): c is Exclude<GroupColumn, 'split_source'> => c !== 'split_source');
  const groups = new Map<string, Rollup>();
  for (const r of rows) {
    const id = rollupBy.map((c) => r[c]).join('\u0000');
    const g = groups.get(id);
    groups.set(id, g ? mergeRollups(g, r) : r);
  }
  const out: GroupRecord[] = [];
  for (const g of groups.values()) {
    const key = Object.fromEntries(rollupBy.map((c) => [c, g[c]]));
    const errors = g.probes - g.successes;
    const base = { samples: g.probes, errors, error_rate: g.probes ? errors / g.probes : null };
    const histograms: Array<[string | null, ExpHistogram]> = (ROLLED_SPLIT as readonly string[]).includes(metric)
      ? [...g.split.entries()].map(([source, parts]) => [source, parts[metric as (typeof ROLLED_SPLIT)[number]]])
      : [[null, g.histograms[metric as (typeof ROLLUP_METRICS)[number]] ?? emptyHistogram()]];
    if (by.includes('split_source') && histograms.length === 0) histograms.push([null, emptyHistogram()]);
    for (const [source, h] of histograms) {
      const record: GroupRecord = { ...key, ...(by.includes('split_source') ? { split_source: source } : {}), n: h.count, ...base };
      const at = rankReader(h);
      for (const q of PERCENTILES) {
        const name = `p${Math.round(q * 100)}`;
        const p = percentileWithCiAt(h.count, q, at);
        record[name] = p.value;
        record[`${name}_ci_low`] = p.ci_low;
        record[`${name}_ci_high`] = p.ci_high;
      }
      out.push(record);
    }
  }
  sortGroups(out, by);
  return out;
}
