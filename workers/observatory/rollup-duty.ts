/**
 * A region object's rollup duty: the hourly and daily rollups of the hours whose samples changed, then
 * their OTLP push. Runs in the object's alarm once the tick's probes are stored; every failure is kept
 * for a later alarm, in the store's own error field for the duty.
 */
import { getConfig } from './config.ts';
import { dayOf, hourOf } from '../../shared/rollup/rollup.ts';
import { daysWithHourlyRollups, rollupsOfRegionHour, samplesRetainedFrom } from './db/rollups.ts';
import { rollUpDay, rollUpHour } from './rollup-hour.ts';
import { pushToOtlp } from './otlp-push.ts';
import type { ProberStore } from './prober-store.ts';
import type { SubrequestBudget } from './subrequest-budget.ts';
import { DAY_MS } from '../../shared/time.ts';

/** Hours pushed to the OTLP collector per alarm, at most (a backlog drains over later alarms). */
const OTLP_HOURS_PER_ALARM = 24;

const iso = (t: number) => new Date(t).toISOString();

/**
 * Writes the rollup of every ended hour whose samples changed (new, or late after a D1 outage),
 * from the hour's samples in D1: the same samples give the same rows, so a retried tick or a second
 * rollup never counts twice. Then the daily rows of every ended day with an hour rolled up, merged
 * from its hourly rows. `ok` false (the hours and days stay dirty) when D1 fails; `rolled`: the hours and days
 * written, `days` of them days.
 */
export async function rollUpDirtyHours(
  store: ProberStore,
  db: D1Database,
  region: string,
  now: number,
): Promise<{ ok: boolean; rolled: number; days: number }> {
  const hours = store.dirtyHoursBefore(hourOf(now));
  let rolled = 0;
  let days = 0;
  let step = 'daily rollup seeding';
  try {
    if (store.meta('daily_rollups_seeded') === null) {
      // Once: a database upgraded from hourly rollups alone gets the daily rows of its past days.
      store.markDirtyDays(await daysWithHourlyRollups(db, region));
      store.setMeta('daily_rollups_seeded', '1');
    }
    // An hour that retention has cut samples from cannot be rolled up again: its rows stay as they are.
    if (hours.length > 0) step = `rollup of hour ${iso(hours[0])}`;
    const retainedFrom = hours.length > 0 ? await samplesRetainedFrom(db) : 0;
    for (const hour of hours) {
      step = `rollup of hour ${iso(hour)}`;
      const retained = hour >= retainedFrom;
      if (retained) await rollUpHour(db, region, hour);
      store.hourRolledUp(hour, dayOf(hour), retained && getConfig().otlp !== undefined);
      if (retained) rolled++;
    }
    for (const day of store.dirtyDaysThrough(dayOf(now) - DAY_MS)) {
      step = `daily rollup of ${iso(day).slice(0, 10)}`;
      await rollUpDay(db, region, day);
      store.dayRolledUp(day);
      rolled++;
      days++;
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
 * Pushes each rolled-up hour to the OTLP collector, oldest first, from its rows in D1 (a rewritten
 * hour goes again, with the same start and end). A failed push stays pending for the next alarm;
 * it never holds up probing or rollups. False when a push failed (or the alarm's subrequests ran out).
 */
export async function pushPendingToOtlp(store: ProberStore, env: Env, region: string, budget: SubrequestBudget): Promise<boolean> {
  const otlp = getConfig().otlp;
  if (!otlp) return true;
  const hours = store.otlpPending(OTLP_HOURS_PER_ALARM);
  for (const hour of hours) {
    if (!budget.take(1)) return false; // the rest at the next alarm
    try {
      await pushToOtlp(otlp, env as unknown as Record<string, unknown>, await rollupsOfRegionHour(env.DB, region, hour));
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      store.noteDutyError('last_otlp_error', message);
      console.error(`region ${region}: OTLP push of hour ${iso(hour)} failed, kept for retry: ${message}`);
      return false;
    }
    store.otlpPushed(hour);
  }
  if (hours.length > 0) store.noteDutyError('last_otlp_error', null);
  return true;
}
