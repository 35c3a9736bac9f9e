/** The downloadable files behind the pages: the whole export as JSON, and CSV of each table. */
import { toCsv } from '../../../shared/csv.ts';
import { tallyOfRow } from './status.ts';
import { periodState } from '../../../shared/status/period-tally.ts';
import { expectedTotal, rank, SCENARIOS } from './compare.ts';
import { SITE_METRICS, type SiteData } from './types.ts';
import { scopedTo } from './variants.ts';
import { LONGEST_VIEW_ID } from '../../../shared/views/windows.ts';

export interface Download {
  file: string;
  description: string;
  type: string;
  body: (data: SiteData) => string;
}

const csv = 'text/csv; charset=utf-8';

/** Rows of every prompt variant, each scoped to its own figures and marked with its id (variants are never pooled). */
function perVariant(d: SiteData, rows: (scoped: SiteData) => Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  return d.variants
    .filter((v) => d.variant_windows[v.id])
    .flatMap((v) => rows(scopedTo(d, v.id)).map((r) => ({ prompt_variant: v.id, ...r })));
}

export const DOWNLOADS: Download[] = [
  {
    file: 'site-data.json',
    type: 'application/json',
    description: 'Everything this site was built from (rebuild the site from it with SITE_DATA_FILE=site-data.json npm run site:build)',
    body: (d) => JSON.stringify(d),
  },
  ...SITE_METRICS.map(
    (metric): Download => ({
      file: `percentiles-${metric}.csv`,
      type: csv,
      description: `p50/p90/p95/p99 of ${metric} with 95 % intervals, n and error rate, by prompt variant, region and target over the default 7-day view (Overview, Target and Region pages)`,
      body: (d) => toCsv(perVariant(d, (v) => v.percentiles[metric].map((g) => ({ ...g })))),
    }),
  ),
  {
    file: 'samples.csv',
    type: csv,
    description: 'The newest raw samples behind the charts (the recent slice; chunk timelines are in site-data.json)',
    body: (d) => toCsv(d.samples.map(({ timeline: _t, ...s }) => s)),
  },
  {
    file: 'status.csv',
    type: csv,
    description:
      "Status page: per UTC day of the last 90 days, region × target × prompt variant, the ticks the status keeper judged in each state, the day's state (its worst tick) and its reason",
    body: (d) =>
      toCsv(
        d.status_history.days.map((r) => ({
          day: r.day?.slice(0, 10) ?? '',
          target: r.target,
          prompt_variant: r.prompt_variant,
          region: r.region,
          state: periodState(tallyOfRow(r).counts),
          operational: r.operational,
          degraded: r.degraded,
          down: r.down,
          maintenance: r.maintenance,
          no_data: r.no_data,
          note: r.note,
        })),
      ),
  },
  {
    file: 'history.csv',
    type: csv,
    description:
      'Probes, failures and TTFT p50/p95 per prompt variant, region × target and day of the last 90 days (hourly for the last 24 h in site-data.json)',
    body: (d) =>
      toCsv(
        perVariant(d, (v) =>
          v.windows.find((w) => w.id === LONGEST_VIEW_ID)!.history.map(({ errors, ...p }) => ({ ...p, errors: JSON.stringify(errors) })),
        ),
      ),
  },
  {
    file: 'compare.csv',
    type: csv,
    description: 'Compare page: expected totals and rankings per prompt variant, region and scenario',
    body: (all) =>
      toCsv(
        perVariant(all, (d) =>
          d.regions.flatMap((r) =>
            SCENARIOS.flatMap((s) => {
              const mid = Math.round((s.minTokens + s.maxTokens) / 2);
              const entries = d.targets
                .map((t) =>
                  expectedTotal(
                    d.percentiles.ttfa_ms.find((g) => g.region === r.code && g.target === t.id),
                    d.percentiles.tpot_ms.find((g) => g.region === r.code && g.target === t.id),
                    mid,
                  ),
                )
                .filter((e) => e !== null);
              return rank(entries).map((e) => ({ region: r.code, scenario: s.id, tokens: mid, ...e }));
            }),
          ),
        ),
      ),
  },
];
