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
import { coverOf, type CoverAt, type Piece } from '../../../shared/rollup/spans.ts';
import { getConfig } from '../config.ts';
import { spanMarks, tableOf } from './span-rollups.ts';
import { hexToBytes } from '../../../shared/bytes.ts';
import { DAY_MS, HOUR_MS } from '../../../shared/time.ts';
import { inList } from './in-list.ts';
import { keyWhere } from './periods.ts';
import type { RollupFilter } from './rollups.ts';

/** A packed row's key in SQL: each name's byte length (one byte) and bytes, then the counts as 4 bytes each. */
const PACKED_KEY_SQL =
  "printf('%02X', length(CAST(target AS BLOB))) || hex(target) || printf('%02X', length(CAST(prompt_variant AS BLOB))) || hex(prompt_variant) || printf('%08X%08X', probes, successes)";

/**
 * The packed rows covering the periods that start in [f.fromHour, f.toHour) (whole hours). Each region is read up to
 * where its spans are whole (span_marks): regions with the same mark together, those with none (or not in D1's
 * marks) from their hourly and daily rows alone.
 */
export async function packedRowsCovering(db: D1Database, f: RollupFilter, columns: readonly PackedColumn[]): Promise<PackedRollupRows[]> {
  // The columns go into the SQL: each one of ROLLUP_METRICS or the split, never text from a request.
  for (const c of columns) if (c !== 'split' && !ROLLUP_METRICS.includes(c)) throw new Error(`no rollup column ${c}`);
  const row = [PACKED_KEY_SQL, ...columns.map((c) => `hex(${c})`)].join(' || ');
  // An hour starts in [from, to) when it is at or after from's next whole hour and before to's.
  const whole = (t: number) => Math.ceil(t / HOUR_MS) * HOUR_MS;
  const [from, to] = [whole(f.fromHour), Math.max(whole(f.fromHour), whole(f.toHour))];
  const now = Date.now();
  // Every region with rollups has a mark (migrations/0022_span_marks.sql gave an upgraded database's regions 0, no
  // spans; a new region's object writes its first in the pass that writes its first rows). Regions by their mark;
  // an asked region without one, from its hourly and daily rows alone.
  const marks = await spanMarks(db);
  const groups = new Map<number, string[]>();
  for (const [region, through] of marks)
    if (!f.regions || f.regions.includes(region)) groups.set(through, [...(groups.get(through) ?? []), region]);
  const unmarked = (f.regions ?? []).filter((r) => !marks.has(r));
  if (unmarked.length > 0) groups.set(-Infinity, [...(groups.get(-Infinity) ?? []), ...unmarked]);
  // One group (the usual: every region's object wrote the same last whole hour) may read runs of periods as ranges;
  // several must seek their regions' keys, or each would scan every region's rows.
  const alone = groups.size === 1;
  const reads = [...groups].map(([through, regions]) =>
    readPieces(db, alone ? f : { ...f, regions }, row, coverOf(from, to, at(now, through)), alone),
  );
  return (await Promise.all(reads)).flat();
}

const at = (now: number, spansThrough: number): CoverAt => ({ now, spansThrough, rollupDays: getConfig().rollupRetentionDays });

/** The packed rows of these pieces (f.regions: the regions they are read for): one query per table, or per run of periods. */
async function readPieces(
  db: D1Database,
  f: RollupFilter,
  row: string,
  pieces: readonly Piece[],
  alone: boolean,
): Promise<PackedRollupRows[]> {
  const byTable = new Map<string, { period: string; keys: number[] }>();
  for (const p of pieces) {
    const { table, period, keyOf } = tableOf(p.hours);
    const entry = byTable.get(table) ?? byTable.set(table, { period, keys: [] }).get(table)!;
    entry.keys.push(keyOf(p.start));
  }
  const rest = keyWhere(f);
  const query = async (table: string, period: string, periods: { sql: string; params: Array<string | number> }) => {
    const { results } = await db
      .prepare(
        `SELECT region, group_concat(${row}, '') AS packed FROM ${table} WHERE ${[periods.sql, rest.sql].filter(Boolean).join(' AND ')} GROUP BY ${period}, region`,
      )
      .bind(...periods.params, ...rest.params)
      .all<{ region: string; packed: string }>();
    return results.map((r) => ({ region: r.region, bytes: hexToBytes(r.packed) }));
  };
  // Without spans (a short window, regions not yet marked), the only group reads each run of consecutive periods as a
  // range, which D1 reads for its rows alone; otherwise the pieces' keys, a seek on each and the regions (two rows
  // more counted for each).
  const ranges = alone && pieces.every((p) => p.hours === 1 || p.hours === 24);
  const parts = await Promise.all(
    [...byTable].flatMap(([table, { period, keys }]) =>
      ranges
        ? runsOf(keys, period === 'hour' ? HOUR_MS : DAY_MS).map(([a, b]) =>
            query(table, period, { sql: `${period} >= ? AND ${period} < ?`, params: [a, b] }),
          )
        : [query(table, period, inList(period, keys))],
    ),
  );
  return parts.flat();
}

/** Sorted keys as runs [first, last + step) of consecutive ones. */
function runsOf(keys: readonly number[], step: number): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (const k of [...keys].sort((a, b) => a - b)) {
    const last = runs.at(-1);
    if (last && last[1] === k) last[1] = k + step;
    else runs.push([k, k + step]);
  }
  return runs;
}
