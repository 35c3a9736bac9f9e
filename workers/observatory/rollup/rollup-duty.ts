/**
 * A region object's rollup duty: the hourly and daily rollups of the hours whose samples changed (its
 * tables dirty_hours and dirty_days), then the OTLP duty's push of them (otlp-duty.ts). Runs in the
 * object's alarm once the tick's probes are stored; every failure is kept for a later alarm, in
 * `last_rollup_error`.
 */
import { getConfig } from '../config.ts';
import { dayOf, hourOf } from '../../../shared/rollup/rollup.ts';
import { daysWithDailyRollups, daysWithHourlyRollups, samplesRetainedFrom } from '../db/rollups.ts';
import { deleteHourSpansOf, rewriteSpanRollups, writeSpanMark } from '../db/span-rollups.ts';
import {
  hourSpansFrom,
  pieceEnd,
  pieceOfKey,
  spanKey,
  spansOfDay,
  spansOfHour,
  spansWithin,
  type Piece,
} from '../../../shared/rollup/spans.ts';
import { daysWithPairedHours } from '../db/paired.ts';
import { rollUpDay, rollUpHour } from './rollup-hour.ts';
import { oweOtlp } from './otlp-duty.ts';
import { numbers, type ProberStore, type Row } from '../duty/prober-store.ts';
import type { Duty } from '../duty/duty.ts';
import { markViews } from '../views/mark-views.ts';
import type { ViewPartName } from '../views/part-names.ts';
import { DAY_MS } from '../../../shared/time.ts';

const iso = (t: number) => new Date(t).toISOString();

export const ROLLUP_TABLES = [
  // Hours whose samples changed in D1 since their rollup was written (shared/rollup/rollup.ts).
  'CREATE TABLE IF NOT EXISTS dirty_hours (hour INTEGER PRIMARY KEY) WITHOUT ROWID',
  // Days with an hour rolled up since their daily rows were written: written once the day has ended.
  'CREATE TABLE IF NOT EXISTS dirty_days (day INTEGER PRIMARY KEY) WITHOUT ROWID',
  // Span rollups (shared/rollup/spans.ts) with an hour or day rolled up since they were written, by key: written once all their hours have ended.
  'CREATE TABLE IF NOT EXISTS dirty_spans (block INTEGER PRIMARY KEY) WITHOUT ROWID',
];

/** Most span rollups one rollup pass writes (an upgraded database's past spans take a few passes; a day's take one). */
export const SPANS_PER_PASS = 48;

/** The hours of these ticks owe their rollup (their samples are in D1 now). */
export function oweRollupsOf(store: ProberStore, tickIds: number[]): void {
  for (const hour of new Set(tickIds.map(hourOf))) store.sql.exec('INSERT OR IGNORE INTO dirty_hours (hour) VALUES (?)', hour);
}

function markDirtyDays(store: ProberStore, days: Iterable<number>): void {
  for (const day of days) store.sql.exec('INSERT OR IGNORE INTO dirty_days (day) VALUES (?)', day);
}

function markDirtySpans(store: ProberStore, spans: Iterable<Piece>): void {
  for (const s of spans) store.sql.exec('INSERT OR IGNORE INTO dirty_spans (block) VALUES (?)', spanKey(s.start, s.hours));
}

/** The dirty spans whose hours have all ended by `hour`, shortest first, at most `limit`. */
function endedDirtySpans(store: ProberStore, hour: number, limit = Infinity): Piece[] {
  const all = numbers(store.sql.exec<Row>('SELECT block FROM dirty_spans ORDER BY block').toArray(), 'block').map(pieceOfKey);
  return all
    .filter((s) => pieceEnd(s) <= hour)
    .sort((a, b) => a.hours - b.hours || a.start - b.start)
    .slice(0, limit);
}

/** Most days of spans of hours one pass prunes (a region whose object slept for longer leaves the rest: read past, never used). */
const PRUNE_DAYS = 7;

/** Deletes the spans of the hours of the days that left the recent ones since the last pass (shared/rollup/spans.ts). */
async function pruneHourSpans(store: ProberStore, db: D1Database, region: string, now: number): Promise<void> {
  const keptFrom = hourSpansFrom(now);
  const done = Number(store.meta('hour_spans_pruned_to') ?? keptFrom - PRUNE_DAYS * DAY_MS);
  if (done >= keptFrom) return;
  const days: number[] = [];
  for (let day = Math.max(done, keptFrom - PRUNE_DAYS * DAY_MS); day < keptFrom; day += DAY_MS) days.push(day);
  await db.batch(deleteHourSpansOf(db, region, days));
  store.setMeta('hour_spans_pruned_to', String(keptFrom));
}

/**
 * Where this region's spans are whole once a pass is done: the last whole hour, held back by the first hour, ended
 * day or ended span the pass left owed (every span that ends before it was written after its last change).
 */
function spansWholeThrough(store: ProberStore, now: number): number {
  const hour = hourOf(now);
  const first = (sql: string, ...params: number[]) => {
    const row = store.sql.exec<Row>(sql, ...params).toArray()[0];
    return row && row.t !== null ? Number(row.t) : Infinity;
  };
  const owedHour = first('SELECT MIN(hour) AS t FROM dirty_hours WHERE hour < ?', hour);
  const owedDay = first('SELECT MIN(day) AS t FROM dirty_days WHERE day < ?', dayOf(now));
  const owedSpan = Math.min(...endedDirtySpans(store, hour).map((s) => s.start));
  return Math.min(hour, owedHour, owedDay, owedSpan);
}

const dirtyHoursBefore = (store: ProberStore, hour: number): number[] =>
  numbers(store.sql.exec<Row>('SELECT hour FROM dirty_hours WHERE hour < ? ORDER BY hour', hour).toArray(), 'hour');

const dirtyDaysThrough = (store: ProberStore, day: number): number[] =>
  numbers(store.sql.exec<Row>('SELECT day FROM dirty_days WHERE day <= ? ORDER BY day', day).toArray(), 'day');

/** An hour's rollup written (or left as it was): its day owes its daily rows, and the OTLP collector the hour. */
function hourRolledUp(store: ProberStore, hour: number, day: number, pushToOtlp: boolean, now: number): void {
  store.transaction(() => {
    store.sql.exec('DELETE FROM dirty_hours WHERE hour = ?', hour);
    markDirtyDays(store, [day]);
    // An hour's spans are kept for the recent days alone (shared/rollup/spans.ts HOUR_SPAN_DAYS).
    if (hour >= hourSpansFrom(now)) markDirtySpans(store, spansOfHour(hour));
    if (pushToOtlp) oweOtlp(store, hour);
  });
}

/**
 * Writes the rollup of every ended hour whose samples changed (new, or late after a D1 outage),
 * from the hour's samples in D1: the same samples give the same rows, so a retried tick or a second
 * rollup never counts twice. Then the daily rows of every ended day with an hour rolled up, merged
 * from its hourly rows, and the span rollups of the hours and days written whose hours have all ended. `ok` false (the hours and days stay dirty) when D1 fails; `rolled`: the hours, days and spans
 * written, `days` of them days.
 */
async function rollUpDirtyHours(
  store: ProberStore,
  db: D1Database,
  region: string,
  now: number,
): Promise<{ ok: boolean; rolled: number; days: number }> {
  const hours = dirtyHoursBefore(store, hourOf(now));
  let rolled = 0;
  let days = 0;
  let step = 'daily rollup seeding';
  try {
    if (store.meta('daily_rollups_seeded') === null) {
      // Once: a database upgraded from hourly rollups alone gets the daily rows of its past days.
      markDirtyDays(store, await daysWithHourlyRollups(db, region));
      store.setMeta('daily_rollups_seeded', '1');
    }
    if (store.meta('paired_days_seeded') === null) {
      step = 'paired day seeding';
      // Once: a database from before packed paired days gets them for its past days (with their daily rows again).
      markDirtyDays(store, await daysWithPairedHours(db, region));
      store.setMeta('paired_days_seeded', '1');
    }
    if (store.meta('spans_through') === null) {
      step = 'span mark';
      // Before the region's first rollup: a region with rows is read only as far as its mark says (db/packed-reads.ts).
      await writeSpanMark(db, region, 0);
      store.setMeta('spans_through', '0');
    }
    if (store.meta('span_rollups_seeded') === null) {
      step = 'span rollup seeding';
      // Once: a database from before span rollups gets those of its past hours and days, SPANS_PER_PASS at a time.
      const days = new Set([...(await daysWithHourlyRollups(db, region)), ...(await daysWithDailyRollups(db, region))]);
      store.transaction(() => {
        for (const day of days) markDirtySpans(store, day >= hourSpansFrom(now) ? spansWithin(day) : spansOfDay(day));
        store.setMeta('span_rollups_seeded', '1');
      });
    }
    // An hour that retention has cut samples from cannot be rolled up again: its rows stay as they are.
    if (hours.length > 0) step = `rollup of hour ${iso(hours[0])}`;
    const retainedFrom = hours.length > 0 ? await samplesRetainedFrom(db) : 0;
    for (const hour of hours) {
      step = `rollup of hour ${iso(hour)}`;
      const retained = hour >= retainedFrom;
      if (retained) await rollUpHour(db, region, hour);
      hourRolledUp(store, hour, dayOf(hour), retained && getConfig().otlp !== undefined, now);
      if (retained) rolled++;
    }
    for (const day of dirtyDaysThrough(store, dayOf(now) - DAY_MS)) {
      step = `daily rollup of ${iso(day).slice(0, 10)}`;
      await rollUpDay(db, region, day);
      store.transaction(() => {
        store.sql.exec('DELETE FROM dirty_days WHERE day = ?', day);
        markDirtySpans(store, spansOfDay(day));
      });
      rolled++;
      days++;
    }
    for (const span of endedDirtySpans(store, hourOf(now), SPANS_PER_PASS)) {
      step = `span rollup of ${span.hours} h from ${iso(span.start)}`;
      // A span of hours past the recent days (an hour rolled up late) is not kept: its hours are read one by one.
      const kept = span.hours >= 24 || span.start >= hourSpansFrom(now);
      if (kept) await rewriteSpanRollups(db, region, [span]);
      store.sql.exec('DELETE FROM dirty_spans WHERE block = ?', spanKey(span.start, span.hours));
      if (kept) rolled++;
    }
    step = 'pruning the spans of hours';
    await pruneHourSpans(store, db, region, now);
    step = 'span mark';
    const through = spansWholeThrough(store, now);
    if (store.meta('spans_through') !== String(through)) {
      await writeSpanMark(db, region, through);
      store.setMeta('spans_through', String(through));
    }
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    store.noteDutyError('last_rollup_error', `${step}: ${message}`);
    console.error(`region ${region}: ${step} failed, kept for retry: ${message}`);
    return { ok: false, rolled, days };
  }
  store.noteDutyError('last_rollup_error', null);
  return { ok: true, rolled, days };
}

/**
 * The views of rollups (percentiles, the timeline, the scrape of the running totals, the paired comparisons and
 * prompt caches; the catalog with them), built anew when an hour was written; the time profiles, the TTFA
 * changes and the compare views of whole days when a day was.
 */
const ROLLUP_VIEWS: ViewPartName[] = ['percentiles', 'catalog', 'timeline', 'metrics', 'compare', 'prompt-cache'];

export const rollupDuty: Duty = {
  name: 'rollups',
  tables: ROLLUP_TABLES,
  pending: (store) => store.count('dirty_hours') + store.count('dirty_days') + endedDirtySpans(store, hourOf(Date.now())).length,
  async run({ store, env, region }) {
    const { ok, rolled, days } = await rollUpDirtyHours(store, env.DB, region.code, Date.now());
    if (rolled > 0) await markViews(env, days > 0 ? [...ROLLUP_VIEWS, 'profiles', 'changes', 'compare-days'] : ROLLUP_VIEWS);
    return ok ? 'done' : 'failed';
  },
  healthKey: 'pendingRollups',
  errors: ['last_rollup_error'],
};
