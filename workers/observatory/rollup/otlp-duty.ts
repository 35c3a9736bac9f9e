/**
 * A region object's OTLP duty: each rolled-up hour (its table otlp_pending, filled by the rollup duty)
 * pushed to the configured OTLP/HTTP collector. A failed push stays pending for a later alarm, in
 * `last_otlp_error`; it never holds up probing or rollups.
 */
import { getConfig } from '../config.ts';
import { rollupsOfRegionHour } from '../db/rollups.ts';
import { pushToOtlp } from './otlp-push.ts';
import { numbers, type ProberStore, type Row } from '../duty/prober-store.ts';
import type { Duty } from '../duty/duty.ts';
import type { SubrequestBudget } from '../subrequest-budget.ts';

/** Hours pushed to the OTLP collector per alarm, at most (a backlog drains over later alarms). */
const OTLP_HOURS_PER_ALARM = 24;

const iso = (t: number) => new Date(t).toISOString();

// Hours rolled up but not yet accepted by the OTLP collector (when one is configured).
export const OTLP_TABLES = ['CREATE TABLE IF NOT EXISTS otlp_pending (hour INTEGER PRIMARY KEY) WITHOUT ROWID'];

/** An hour rolled up, owed to the collector (run inside the rollup duty's transaction). */
export function oweOtlp(store: ProberStore, hour: number): void {
  store.sql.exec('INSERT OR IGNORE INTO otlp_pending (hour) VALUES (?)', hour);
}

/**
 * Pushes each rolled-up hour to the OTLP collector, oldest first, from its rows in D1 (a rewritten
 * hour goes again, with the same start and end). A failed push stays pending for the next alarm;
 * it never holds up probing or rollups. False when a push failed (or the alarm's subrequests ran out).
 */
async function pushPendingToOtlp(store: ProberStore, env: Env, region: string, budget: SubrequestBudget): Promise<boolean> {
  const otlp = getConfig().otlp;
  if (!otlp) return true;
  const hours = numbers(store.sql.exec<Row>('SELECT hour FROM otlp_pending ORDER BY hour LIMIT ?', OTLP_HOURS_PER_ALARM).toArray(), 'hour');
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
    store.sql.exec('DELETE FROM otlp_pending WHERE hour = ?', hour);
  }
  if (hours.length > 0) store.noteDutyError('last_otlp_error', null);
  return true;
}

export const otlpDuty: Duty = {
  name: 'otlp',
  tables: OTLP_TABLES,
  pending: (store) => store.count('otlp_pending'),
  // After a rollup that succeeded (one that failed found D1 failing, which the push reads too).
  async run({ store, env, region, budget, failed }) {
    if (failed.has('rollups')) return 'done';
    return (await pushPendingToOtlp(store, env, region.code, budget)) ? 'done' : 'failed';
  },
  healthKey: 'pendingOtlp',
  errors: ['last_otlp_error'],
};
