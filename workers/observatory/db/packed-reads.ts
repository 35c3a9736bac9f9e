/**
 * Reading a window of rollups packed, for the readers that merge them (percentiles, the public views): the
 * window's pieces (shared/rollup/spans.ts coverOf: hourly rows at its edges, span rollups of hours where they are
 * kept and of days, a daily row where no longer span fits), per piece and region one string of its rows' keys and the columns
 * asked for, as hex (shared/rollup/packed-rows.ts). D1 hands a BLOB over as a JSON array of numbers, whose
 * parsing costs the Worker several times the merge (bench/duties.ts); a hex string it copies. One query per
 * table; each seeks its pieces by the key's first column, so SQLite groups as it reads and D1 counts each row
 * once (a GROUP BY of other columns sorts first, and D1 counts every row twice).
 */
import { ROLLUP_METRICS } from '../../../shared/rollup/rollup.ts';
import type { PackedColumn, PackedRollupRows } from '../../../shared/rollup/percentiles.ts';
import { coverOf, spanKey } from '../../../shared/rollup/spans.ts';
import { hexToBytes } from '../../../shared/bytes.ts';
import { HOUR_MS } from '../../../shared/time.ts';
import { inList } from './in-list.ts';
import { keyWhere } from './periods.ts';
import type { RollupFilter } from './rollups.ts';

/** A packed row's key in SQL: each name's byte length (one byte) and bytes, then the counts as 4 bytes each. */
const PACKED_KEY_SQL =
  "printf('%02X', length(CAST(target AS BLOB))) || hex(target) || printf('%02X', length(CAST(prompt_variant AS BLOB))) || hex(prompt_variant) || printf('%08X%08X', probes, successes)";

/** Where each length of piece is read: hourly rows, daily rows, span rollups (by their key). */
function tableOf(hours: number): { table: string; period: string } {
  if (hours === 1) return { table: 'hourly_rollups', period: 'hour' };
  if (hours === 24) return { table: 'daily_rollups', period: 'day' };
  return { table: 'span_rollups', period: 'block' };
}

/** The packed rows covering the periods that start in [f.fromHour, f.toHour) (whole hours). */
export async function packedRowsCovering(db: D1Database, f: RollupFilter, columns: readonly PackedColumn[]): Promise<PackedRollupRows[]> {
  // The columns go into the SQL: each one of ROLLUP_METRICS or the split, never text from a request.
  for (const c of columns) if (c !== 'split' && !ROLLUP_METRICS.includes(c)) throw new Error(`no rollup column ${c}`);
  const row = [PACKED_KEY_SQL, ...columns.map((c) => `hex(${c})`)].join(' || ');
  // An hour starts in [from, to) when it is at or after from's next whole hour and before to's.
  const whole = (t: number) => Math.ceil(t / HOUR_MS) * HOUR_MS;
  const byTable = new Map<string, { period: string; keys: number[] }>();
  for (const p of coverOf(whole(f.fromHour), Math.max(whole(f.fromHour), whole(f.toHour)), Date.now())) {
    const { table, period } = tableOf(p.hours);
    const entry = byTable.get(table) ?? byTable.set(table, { period, keys: [] }).get(table)!;
    entry.keys.push(period === 'block' ? spanKey(p.start, p.hours) : p.start);
  }
  const parts = await Promise.all(
    [...byTable].map(async ([table, { period, keys }]) => {
      // The pieces' keys, then the filter's other clauses: a seek on each key, no range scanned.
      const periods = inList(period, keys);
      const rest = keyWhere(f);
      const { results } = await db
        .prepare(
          `SELECT region, group_concat(${row}, '') AS packed FROM ${table} WHERE ${[periods.sql, rest.sql].filter(Boolean).join(' AND ')} GROUP BY ${period}, region`,
        )
        .bind(...periods.params, ...rest.params)
        .all<{ region: string; packed: string }>();
      return results.map((r) => ({ region: r.region, bytes: hexToBytes(r.packed) }));
    }),
  );
  return parts.flat();
}
