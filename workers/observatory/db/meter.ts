/**
 * A D1 binding that counts what D1 bills: rows read and rows written, summed from each statement's
 * `meta` (the same counters D1 reports when deployed). The read API wraps each request's binding in
 * one and reports the counts in its response headers; tests use it to measure what a code path costs.
 */
/** The statement behind a metered one (D1's batch takes only its own statements). */
const RAW = Symbol('raw statement');

export interface D1Meter {
  db: D1Database;
  rowsRead: number;
  rowsWritten: number;
  reset(): void;
}

export function meterD1(inner: D1Database): D1Meter {
  const meter: D1Meter = {
    db: null as unknown as D1Database,
    rowsRead: 0,
    rowsWritten: 0,
    reset: () => {
      meter.rowsRead = 0;
      meter.rowsWritten = 0;
    },
  };
  const count = (result: { meta?: { rows_read?: number; rows_written?: number } }) => {
    meter.rowsRead += result.meta?.rows_read ?? 0;
    meter.rowsWritten += result.meta?.rows_written ?? 0;
  };
  const wrap = (statement: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(statement, {
      get(target, prop) {
        if (prop === RAW) return target;
        if (prop === 'bind') return (...values: unknown[]) => wrap(target.bind(...values));
        if (prop === 'all' || prop === 'run')
          return async () => {
            const r = await target[prop]();
            count(r);
            return r;
          };
        if (prop === 'first')
          return async (column?: string) => {
            const r = await target.all();
            count(r);
            const row = r.results[0] as Record<string, unknown> | undefined;
            return row === undefined ? null : column ? row[column] : row;
          };
        const value = Reflect.get(target, prop);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  meter.db = new Proxy(inner, {
    get(target, prop) {
      if (prop === 'prepare') return (sql: string) => wrap(target.prepare(sql));
      if (prop === 'batch')
        return async (statements: D1PreparedStatement[]) => {
          const results = await target.batch(statements.map((s) => (s as unknown as Record<symbol, D1PreparedStatement>)[RAW] ?? s));
          for (const r of results) count(r);
          return results;
        };
      const value = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return meter;
}
