/**
 * Every SQL statement for the span rollups (shared/rollup/spans.ts, migrations/0021_span_rollups.sql): a
 * span is rewritten whole from its two halves, so it always equals the hourly or daily rows it merges.
 */
import { mergeByGroup } from '../../../shared/rollup/rollup.ts';
import { DAY_SPANS, HOUR_SPANS, SPAN_HOURS, spanKey, hourSpansWithin, spansOfDay, type Piece } from '../../../shared/rollup/spans.ts';
import { HOUR_MS } from '../../../shared/time.ts';
import { bodyValues, fromRollupRow } from './rollup-row.ts';
import { SPAN_COLUMNS } from './rollups.ts';
import { inList, ONLY_LIST_VALUES } from './in-list.ts';

const INSERT_SPAN = `INSERT INTO span_rollups (${SPAN_COLUMNS.join(', ')}) VALUES (${SPAN_COLUMNS.map(() => '?').join(', ')})`;

/** Where a piece of each length is stored: hourly rows (1 h), daily rows (24 h), span rollups (by their key). */
export function tableOf(hours: number): { table: string; period: string; keyOf: (start: number) => number } {
  if (hours === 1) return { table: 'hourly_rollups', period: 'hour', keyOf: (start) => start };
  if (hours === 24) return { table: 'daily_rollups', period: 'day', keyOf: (start) => start };
  return { table: 'span_rollups', period: 'block', keyOf: (start) => spanKey(start, hours) };
}

/**
 * Where the parts of a span are read: the shortest span of hours from its hourly rows, the shortest of days from its
 * daily rows, any other from its two halves (spans half as long).
 */
function partsOf(span: Piece): { table: string; period: string; keys: number[] } {
  const part = span.hours === HOUR_SPANS[0] ? 1 : span.hours === DAY_SPANS[0] * 24 ? 24 : span.hours / 2;
  const { table, period, keyOf } = tableOf(part);
  const keys = Array.from({ length: span.hours / part }, (_, k) => keyOf(span.start + k * part * HOUR_MS));
  return { table, period, keys };
}

const ROW_COLUMNS = SPAN_COLUMNS.filter((c) => c !== 'block');

/**
 * Rewrites one region's span rollups `spans`, each merged from its parts as D1 holds them now (partsOf): a seek on
 * each part's key and the region, reading that region's rows alone. The shorter spans are written first, so a
 * longer one merges halves already rewritten; a span whose parts hold no rows is left with none. Returns the rows
 * written.
 */
export async function rewriteSpanRollups(db: D1Database, region: string, spans: readonly Piece[]): Promise<number> {
  const remove = db.prepare('DELETE FROM span_rollups WHERE block = ? AND region = ?');
  const insert = db.prepare(INSERT_SPAN);
  let written = 0;
  for (const span of [...spans].sort((a, b) => a.hours - b.hours || a.start - b.start)) {
    if (!SPAN_HOURS.includes(span.hours) || span.start % (span.hours * HOUR_MS) !== 0)
      throw new Error(`no span rollup of ${span.hours} h from ${span.start}`);
    const { table, period, keys } = partsOf(span);
    const { results } = await db
      .prepare(
        `SELECT ${period} AS hour, ${ROW_COLUMNS.join(', ')} FROM ${table} WHERE ${period} IN (${keys.map(() => '?').join(', ')}) AND region = ?`,
      )
      .bind(...keys, region)
      .all<Record<string, unknown>>();
    const key = spanKey(span.start, span.hours);
    const merged = mergeByGroup(results.map(fromRollupRow), span.start);
    await db.batch([
      remove.bind(key, region),
      ...merged.map((r) => insert.bind(key, r.region, r.target, r.prompt_variant, r.method_version, ...bodyValues(r))),
    ]);
    written += merged.length;
  }
  return written;
}

/** The statements that delete a region's spans of the hours of these days (kept for the recent days alone). */
export function deleteHourSpansOf(db: D1Database, region: string, days: readonly number[]): D1PreparedStatement[] {
  return deleteSpans(db, region, days.flatMap(hourSpansWithin));
}

/** The statements that delete a region's spans of days holding these days (retention, with the days' rows; their spans of hours went days ago). */
export function deleteSpansOfDays(db: D1Database, region: string, days: readonly number[]): D1PreparedStatement[] {
  return deleteSpans(db, region, days.flatMap(spansOfDay));
}

function deleteSpans(db: D1Database, region: string, spans: readonly Piece[]): D1PreparedStatement[] {
  const keys = [...new Set(spans.map((s) => spanKey(s.start, s.hours)))];
  const out: D1PreparedStatement[] = [];
  for (let i = 0; i < keys.length; i += ONLY_LIST_VALUES) {
    const l = inList('block', keys.slice(i, i + ONLY_LIST_VALUES), ONLY_LIST_VALUES);
    out.push(db.prepare(`DELETE FROM span_rollups WHERE ${l.sql} AND region = ?`).bind(...l.params, region));
  }
  return out;
}

/** Where each region's span rollups are whole (migrations/0022_span_marks.sql), as its object last wrote it. */
export async function spanMarks(db: D1Database): Promise<Map<string, number>> {
  const { results } = await db.prepare('SELECT region, through FROM span_marks').all<{ region: string; through: number }>();
  return new Map(results.map((r) => [String(r.region), Number(r.through)]));
}

/** A region's spans are whole through `through` (rollup/rollup-duty.ts, after a pass). */
export async function writeSpanMark(db: D1Database, region: string, through: number): Promise<void> {
  await db
    .prepare('INSERT INTO span_marks (region, through) VALUES (?, ?) ON CONFLICT (region) DO UPDATE SET through = excluded.through')
    .bind(region, through)
    .run();
}
