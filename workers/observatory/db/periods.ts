/**
 * What the tables keyed by a period (an hour's or a day's start) share: the WHERE clause of a filter on
 * period, method version, region, target and variant, and reading them in pages of whole periods.
 */
import { inList } from './in-list.ts';

export interface PeriodFilter {
  /** Periods starting in [from, to). */
  from: number;
  to: number;
  /** Only this method version (every one when absent). */
  methodVersion?: number;
  regions?: string[];
  targets?: string[];
  variants?: string[];
}

/** The WHERE clause (without the keyword) of a filter on the `period` column, and its parameters. */
export function periodWhere(period: string, f: PeriodFilter): { sql: string; params: Array<string | number> } {
  const rest = keyWhere(f);
  return {
    sql: [`${period} >= ?`, `${period} < ?`, ...(rest.sql ? [rest.sql] : [])].join(' AND '),
    params: [f.from, f.to, ...rest.params],
  };
}

/** The WHERE clause of a filter's method version, regions, targets and variants ('' when it has none), and its parameters. */
export function keyWhere(f: Omit<PeriodFilter, 'from' | 'to'>): { sql: string; params: Array<string | number> } {
  const clauses: string[] = [];
  const params: Array<string | number> = [];
  if (f.methodVersion !== undefined) {
    clauses.push('method_version = ?');
    params.push(f.methodVersion);
  }
  for (const [column, values] of [
    ['region', f.regions],
    ['target', f.targets],
    ['prompt_variant', f.variants],
  ] as const) {
    if (!values || values.length === 0) continue;
    const l = inList(column, values);
    clauses.push(l.sql);
    params.push(...l.params);
  }
  return { sql: clauses.join(' AND '), params };
}

/**
 * At most about `limit` rows, whole periods only, from `from` on; `next` is where the next page starts (a
 * period start), null after the last. A period holding more rows than a page comes whole, on a page of its
 * own. `read(from, to, limit?)`: the rows of periods in [from, to) in period order; `rowsPerPeriod`: the rows
 * a period should hold, so that a page takes as many whole periods as fit and no row is read twice.
 */
export async function wholePeriodPage<R>(
  read: (from: number, to: number, limit?: number) => Promise<R[]>,
  periodOf: (row: R) => number,
  from: number,
  to: number,
  limit: number,
  rowsPerPeriod = 1,
): Promise<{ rows: R[]; next: number | null }> {
  const size = rowsPerPeriod <= limit ? Math.floor(limit / rowsPerPeriod) * rowsPerPeriod : limit;
  // One row more than the page, to see where the next page begins.
  const rows = await read(from, to, size + 1);
  if (rows.length <= size) return { rows, next: null };
  const beyond = periodOf(rows[size]);
  const whole = rows.filter((r) => periodOf(r) < beyond);
  if (whole.length > 0) return { rows: whole, next: beyond };
  const period = await read(from, beyond + 1);
  return { rows: period, next: beyond + 1 < to ? beyond + 1 : null };
}
