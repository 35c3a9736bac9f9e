/**
 * A region object's concurrency duty: the runs owed (one per tick and target, queued by the bursts cron)
 * run one per alarm once the tick's own work is done, and the levels whose D1 write failed wait in the
 * burst outbox. Failures go to the store's `last_burst_error`.
 */
import { findTarget, getConfig } from '../config.ts';
import { runTargetBurst } from './burst-run.ts';
import { insertBurstSamples, type StoredBurstSample } from '../db/bursts.ts';
import type { ProberStore } from '../prober/prober-store.ts';
import type { RegionConfig } from '../../../shared/config/types.ts';
import { markViews } from '../views/mark-views.ts';

/** D1 refused concurrency samples: `kept` says what waits in the burst outbox (a level's streams, or levels). */
function noteWriteError(store: ProberStore, region: string, e: unknown, kept: string): void {
  const message = `D1 write of concurrency samples failed, ${kept} kept for retry: ${e instanceof Error ? e.message : String(e)}`;
  store.noteDutyError('last_burst_error', message);
  console.error(`region ${region}: ${message}`);
}

/**
 * The oldest queued concurrency run. Its samples go to D1, or to the burst outbox when D1 fails; a run that
 * fails itself is kept for a later alarm, up to `maxAttempts` runs, then given up (and logged). True when
 * the run is done with (ran, or given up); false when it waits for a later alarm.
 */
export async function runOwedBurst(
  store: ProberStore,
  env: Env,
  region: RegionConfig,
  referenceUrl: string,
  maxAttempts: number,
): Promise<boolean> {
  const run = store.nextBurst();
  if (!run) return false;
  const target = findTarget(run.target);
  const keep = async (rows: StoredBurstSample[]): Promise<void> => {
    try {
      await insertBurstSamples(env.DB, rows);
    } catch (e) {
      noteWriteError(store, region.code, e, `a level's ${rows.length} stream(s)`);
      if (rows.length > 0) store.keepBurstRows(rows);
    }
  };
  try {
    if (target && getConfig().bursts) {
      const outcome = await runTargetBurst(env, region, target, run.tickId, referenceUrl, keep);
      console.log(
        `region ${region.code}: burst of ${target.id}: ${outcome.levels.map((l) => `level ${l.level} ${l.streams - l.errors}/${l.streams} ok, spread ${l.start_spread_ms?.toFixed(1)} ms`).join('; ')}${outcome.stopped_at ? ` (rate limited at ${outcome.stopped_at}: stopped)` : ''}`,
      );
    }
    if (store.count('burst_outbox') === 0) store.noteDutyError('last_burst_error', null);
  } catch (e) {
    const attempts = run.attempts + 1;
    const message = `burst of ${run.target} (tick ${new Date(run.tickId).toISOString()}) failed (run ${attempts} of ${maxAttempts}): ${e instanceof Error ? e.message : String(e)}`;
    store.noteDutyError('last_burst_error', message);
    console.error(`region ${region.code}: ${message}`);
    if (attempts < maxAttempts) {
      store.setBurstAttempts(run, attempts);
      return false;
    }
    console.error(`region ${region.code}: burst of ${run.target} (tick ${run.tickId}) given up`);
  }
  store.burstDone(run);
  // Its streams are stored (or, while D1 refuses them, kept for the outbox, which the next run's mark covers).
  await markViews(env, ['bursts']);
  return true;
}

/** Writes the burst outbox to D1, oldest first; false (keeping the rest) when D1 fails. */
export async function flushBurstOutbox(store: ProberStore, db: D1Database, region: string): Promise<boolean> {
  for (const kept of store.burstOutbox()) {
    try {
      await insertBurstSamples(db, kept.rows);
    } catch (e) {
      noteWriteError(store, region, e, `${store.count('burst_outbox')} level(s)`);
      return false;
    }
    store.removeBurstRows(kept.n);
  }
  store.noteDutyError('last_burst_error', null);
  return true;
}
