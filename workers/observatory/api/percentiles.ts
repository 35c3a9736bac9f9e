/** p50/p90/p95/p99 with 95 % order-statistic intervals, sample counts and error rates, per group. */
import { percentileWithCi } from '../../../shared/stats/percentile-ci.ts';
import type { MetricRow } from '../db/samples.ts';

export const PERCENTILES = [0.5, 0.9, 0.95, 0.99] as const;
export const GROUP_COLUMNS = ['region', 'target', 'prompt_variant'] as const;
export type GroupColumn = (typeof GROUP_COLUMNS)[number];

/** Figures of MEASUREMENT.md that percentiles can be taken of (also the SQL column allow-list). */
export const METRICS = [
  'headers_ms', 'first_byte_ms', 'ttft_ms', 'ttfa_ms', 'total_ms', 'tpot_ms', 'decode_tps', 'itl_p50_ms', 'itl_p90_ms',
  'itl_p99_ms', 'itl_max_ms', 'network_ms', 'server_ms', 'residual_ms', 'server_headers_ms', 'server_ttft_ms', 'rtt_ms',
  'output_tokens', 'chunks',
] as const;

export type GroupRecord = Record<string, string | number | null>;

export function percentileGroups(rows: MetricRow[], by: readonly GroupColumn[]): GroupRecord[] {
  const groups = new Map<string, { key: Record<string, string>; samples: number; errors: number; values: number[] }>();
  for (const row of rows) {
    const key: Record<string, string> = {};
    for (const column of by) key[column] = row[column];
    const id = by.map((c) => key[c]).join('\u0000');
    let g = groups.get(id);
    if (!g) groups.set(id, (g = { key, samples: 0, errors: 0, values: [] }));
    g.samples++;
    if (row.error !== null) g.errors++;
    else if (row.value !== null) g.values.push(row.value);
  }
  const out: GroupRecord[] = [];
  for (const g of groups.values()) {
    const sorted = Float64Array.from(g.values).sort();
    const record: GroupRecord = { ...g.key, n: sorted.length, samples: g.samples, errors: g.errors, error_rate: g.samples ? g.errors / g.samples : null };
    for (const q of PERCENTILES) {
      const name = `p${Math.round(q * 100)}`;
      const p = percentileWithCi(sorted, q);
      record[name] = p.value;
      record[`${name}_ci_low`] = p.ci_low;
      record[`${name}_ci_high`] = p.ci_high;
    }
    out.push(record);
  }
  out.sort((a, b) => by.map((c) => String(a[c]).localeCompare(String(b[c]))).find((d) => d !== 0) ?? 0);
  return out;
}
