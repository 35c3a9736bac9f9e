/**
 * A region object's concurrency duty: the runs owed (its table burst_runs, one row per tick and target,
 * queued by the bursts cron) run one per alarm once the tick's own work is done; the levels whose D1 write
 * failed wait in the burst outbox (burst-outbox.ts). Failures go to `last_burst_error`.
 */
import { findTarget, getConfig } from '../config.ts';
import { runTargetBurst } from './burst-run.ts';
import { insertBurstSamples, type StoredBurstSample } from '../db/bursts.ts';
import type { ProberStore, Row } from '../duty/prober-store.ts';
import { columnsOf } from '../duty/prober-store.ts';
import { MAX_PROBE_ATTEMPTS, type Duty } from '../duty/duty.ts';
import type { RegionConfig } from '../../../shared/config/types.ts';
import { markViews } from '../views/mark-views.ts';
import { keepBurstRows, noteWriteError } from './burst-outbox.ts';

export const BURST_TABLES = [
  // One row per run and target, removed once its samples are in D1.
  'CREATE TABLE IF NOT EXISTS burst_runs (tick_id INTEGER NOT NULL, target TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (tick_id, target)) WITHOUT ROWID',
];

/** A concurrency run owed: one per tick and target. */
export interface QueuedBurst {
  tickId: number;
  target: string;
  attempts: number;
}

/** True when the run was new. */
export function queueBurst(store: ProberStore, tickId: number, target: string): boolean {
  return store.sql.exec('INSERT INTO burst_runs (tick_id, target) VALUES (?, ?) ON CONFLICT DO NOTHING', tickId, target).rowsWritten > 0;
}

function nextBurst(store: ProberStore): QueuedBurst | null {
  const row = store.sql.exec<Row>('SELECT tick_id, target, attempts FROM burst_runs ORDER BY tick_id, target LIMIT 1').toArray()[0];
  return row ? { tickId: Number(row.tick_id), target: String(row.target), attempts: Number(row.attempts) } : null;
}

/**
 * The oldest queued concurrency run. Its samples go to D1, or to the burst outbox when D1 fails; a run that
 * fails itself is kept for a later alarm, up to `maxAttempts` runs, then given up (and logged). True when
 * the run is done with (ran, or given up); false when it waits for a later alarm.
 */
async function runOwedBurst(
  store: ProberStore,
  env: Env,
  region: RegionConfig,
  referenceUrl: string,
  maxAttempts: number,
): Promise<boolean> {
  const run = nextBurst(store);
  if (!run) return false;
  const target = findTarget(run.target);
  const keep = async (rows: StoredBurstSample[]): Promise<void> => {
    try {
      await insertBurstSamples(env.DB, rows);
    } catch (e) {
      noteWriteError(store, region.code, e, `a level's ${rows.length} stream(s)`);
      if (rows.length > 0) keepBurstRows(store, rows);
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
      store.sql.exec('UPDATE burst_runs SET attempts = ? WHERE tick_id = ? AND target = ?', attempts, run.tickId, run.target);
      return false;
    }
    console.error(`region ${region.code}: burst of ${run.target} (tick ${run.tickId}) given up`);
  }
  store.sql.exec('DELETE FROM burst_runs WHERE tick_id = ? AND target = ?', run.tickId, run.target);
  // Its streams are stored (or, while D1 refuses them, kept for the outbox, which the next run's mark covers).
  await markViews(env, ['bursts']);
  return true;
}

export const burstDuty: Duty = {
  name: 'bursts',
  tables: BURST_TABLES,
  upgrade(sql) {
    if (!columnsOf(sql, 'burst_runs').includes('attempts'))
      sql.exec('ALTER TABLE burst_runs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0');
  },
  pending: (store) => store.count('burst_runs'),
  // Last, one target per alarm, once the tick's own probes, rollups and evaluations are done.
  async run({ store, env, region, referenceUrl }) {
    if (store.count('burst_runs') === 0) return 'done';
    return (await runOwedBurst(store, env, region, referenceUrl, MAX_PROBE_ATTEMPTS)) ? 'again' : 'retry';
  },
  healthKey: 'pendingBursts',
  errors: ['last_burst_error'],
};
