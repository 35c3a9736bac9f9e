/** Every SQL statement of the daily archive (archive-duty.ts): what it reads of the samples, and what retention then deletes. */
import { DAY_MS } from '../../../shared/time.ts';
import type { StoredColumns } from '../../../shared/archive/archive-columns.ts';
import type { ArchiveTable } from '../../../shared/archive/manifest.ts';
import { SAMPLE_COLUMNS } from './sample-row.ts';
import { BURST_ONLY_COLUMNS } from './bursts.ts';
import { markSamplesRetention, ROLLUP_TABLE_SHAPES } from './rollups.ts';
import { deleteSpansOfDays } from './span-rollups.ts';

/** Each archived table's columns, its time column, and the order of its key (the same rows, the same file). */
const TABLES: Record<ArchiveTable, { columns: readonly string[]; time: string; order: string }> = {
  samples: { columns: SAMPLE_COLUMNS, time: 'tick_id', order: 'tick_id, target, prompt_variant' },
  burst_samples: {
    columns: [...SAMPLE_COLUMNS, ...BURST_ONLY_COLUMNS],
    time: 'tick_id',
    order: 'tick_id, target, burst_level, burst_stream',
  },
  hourly_rollups: {
    columns: ROLLUP_TABLE_SHAPES.hourly_rollups.columns,
    time: 'hour',
    order: 'hour, target, prompt_variant, method_version',
  },
};

export interface DayCount {
  day: number;
  rows: number;
}

/**
 * Every region's days in [fromDay, toDay) (UTC day starts) and their rows, oldest first: one scan of
 * those days' rows for all regions (the key's index starts with tick_id).
 */
export async function sampleDayCounts(
  db: D1Database,
  fromDay: number,
  toDay: number,
  table: ArchiveTable = 'samples',
): Promise<Map<string, DayCount[]>> {
  const { time } = TABLES[table];
  const { results } = await db
    .prepare(`SELECT region, ${time} - (${time} % ?) AS day, COUNT(*) AS rows FROM ${table} WHERE ${time} >= ? AND ${time} < ?
      GROUP BY region, day ORDER BY region, day`)
    .bind(DAY_MS, fromDay, toDay)
    .all<{ region: string; day: number; rows: number }>();
  const byRegion = new Map<string, DayCount[]>();
  for (const r of results) {
    const days = byRegion.get(r.region) ?? [];
    days.push({ day: Number(r.day), rows: Number(r.rows) });
    byRegion.set(r.region, days);
  }
  return byRegion;
}

/** A region's samples of one UTC day in D1's row form, in the order of their key (so the same rows give the same file). */
export async function samplesOfRegionDay(
  db: D1Database,
  region: string,
  day: number,
  table: ArchiveTable = 'samples',
): Promise<StoredColumns[]> {
  const { columns, time, order } = TABLES[table];
  const { results } = await db
    .prepare(`SELECT ${columns.join(', ')} FROM ${table} WHERE region = ? AND ${time} >= ? AND ${time} < ? ORDER BY ${order}`)
    .bind(region, day, day + DAY_MS)
    .all<StoredColumns>();
  return results;
}

/**
 * Retention of archived days: deletes a region's samples of these days (each confirmed by its archive),
 * up to `beforeTick`. A cut of samples is marked in the same transaction, as deleteSamplesBefore does. Returns rows deleted.
 */
export async function deleteArchivedDays(
  db: D1Database,
  region: string,
  days: readonly number[],
  beforeTick: number,
  table: ArchiveTable = 'samples',
): Promise<number> {
  if (days.length === 0) return 0;
  const remove = db.prepare(`DELETE FROM ${table} WHERE region = ? AND tick_id >= ? AND tick_id < ?`);
  const deletes = days.map((day) => remove.bind(region, day, Math.min(day + DAY_MS, beforeTick)));
  const results = await db.batch(table === 'samples' ? [markSamplesRetention(db, beforeTick), ...deletes] : deletes);
  return results.slice(table === 'samples' ? 1 : 0).reduce((n, r) => n + (r.meta.changes ?? 0), 0);
}

/**
 * The rollups' retention of archived days: deletes a region's hourly rollups of these days (each confirmed
 * by its archive) and its daily rows of them (merged from those hours), and the span rollups that held them.
 * Returns the hourly and daily rows deleted.
 */
export async function deleteArchivedRollupDays(db: D1Database, region: string, days: readonly number[]): Promise<number> {
  if (days.length === 0) return 0;
  const hourly = db.prepare('DELETE FROM hourly_rollups WHERE region = ? AND hour >= ? AND hour < ?');
  const daily = db.prepare('DELETE FROM daily_rollups WHERE region = ? AND day = ?');
  // With them, in the same transaction, the spans that held them: no reader uses a span of days that starts before
  // the retention cut (shared/rollup/spans.ts coverOf), so none is written again.
  const results = await db.batch([
    ...days.flatMap((day) => [hourly.bind(region, day, day + DAY_MS), daily.bind(region, day)]),
    ...deleteSpansOfDays(db, region, days),
  ]);
  return results.slice(0, 2 * days.length).reduce((n, r) => n + (r.meta.changes ?? 0), 0);
}
