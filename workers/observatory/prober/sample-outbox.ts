/**
 * The sample outbox duty: samples whose D1 write failed wait in the object's `outbox` table until a later
 * alarm writes them, in batches, so nothing measured is lost. Its failures go to `last_flush_error`.
 */
import type { StoredSample } from '../db/sample-row.ts';
import { insertSamples } from '../db/samples.ts';
import { oweRollupsOf } from '../rollup/rollup-duty.ts';
import type { Duty } from '../duty/duty.ts';
import type { JobKey, ProberStore, Row } from '../duty/prober-store.ts';

/** Samples written to D1 per batch when the outbox is flushed. */
const FLUSH_BATCH = 50;

/** Samples kept for D1, one row per sample (a prompt-cache job's two passes are two rows, each keyed by its own variant). */
export const OUTBOX_TABLES = [
  `CREATE TABLE IF NOT EXISTS outbox (tick_id INTEGER NOT NULL, target TEXT NOT NULL, variant TEXT NOT NULL,
        sample TEXT NOT NULL, PRIMARY KEY (tick_id, target, variant)) WITHOUT ROWID`,
];

/** A job's samples that D1 did not take (run inside finishJob's transaction). */
export function keepSamples(store: ProberStore, job: JobKey, samples: readonly StoredSample[]): void {
  for (const sample of samples)
    store.sql.exec(
      'INSERT OR IGNORE INTO outbox (tick_id, target, variant, sample) VALUES (?, ?, ?, ?)',
      job.tickId,
      job.target,
      sample.prompt_variant,
      JSON.stringify(sample),
    );
}

/** The oldest samples waiting for D1, with their job's key. */
function outboxBatch(store: ProberStore, limit: number): { job: JobKey; sample: StoredSample }[] {
  return store.sql
    .exec<Row>('SELECT tick_id, target, variant, sample FROM outbox ORDER BY tick_id LIMIT ?', limit)
    .toArray()
    .map((r) => ({
      job: { tickId: Number(r.tick_id), target: String(r.target), variant: String(r.variant) },
      sample: JSON.parse(String(r.sample)) as StoredSample,
    }));
}

function removeFromOutbox(store: ProberStore, jobs: JobKey[]): void {
  store.transaction(() => {
    for (const j of jobs)
      store.sql.exec('DELETE FROM outbox WHERE tick_id = ? AND target = ? AND variant = ?', j.tickId, j.target, j.variant);
  });
}

/** A failed D1 write of samples, `kept` of them waiting here. */
export function noteFlushError(store: ProberStore, e: unknown, kept: number): void {
  const message = e instanceof Error ? e.message : String(e);
  store.noteDutyError('last_flush_error', `D1 write of samples failed, ${kept} kept for retry: ${message}`);
  console.error(`region ${store.meta('region')}: D1 write failed, ${kept} sample(s) kept for retry: ${message}`);
}

/** Writes the outbox to D1 in batches; false (keeping every sample) when D1 fails. */
async function flush(store: ProberStore, db: D1Database): Promise<boolean> {
  for (;;) {
    const batch = outboxBatch(store, FLUSH_BATCH);
    if (batch.length === 0) {
      store.noteDutyError('last_flush_error', null);
      return true;
    }
    try {
      await insertSamples(
        db,
        batch.map((b) => b.sample),
      );
      oweRollupsOf(
        store,
        batch.map((b) => b.job.tickId),
      );
    } catch (e) {
      noteFlushError(store, e, store.count('outbox'));
      return false;
    }
    removeFromOutbox(
      store,
      batch.map((b) => b.job),
    );
  }
}

export const sampleOutboxDuty: Duty = {
  name: 'sample-outbox',
  tables: OUTBOX_TABLES,
  pending: (store) => store.count('outbox'),
  // Once the tick's probes are done; while D1 refuses them, nothing after it runs (FLUSH_RETRY_MS).
  async run({ store, env }) {
    if (store.count('outbox') === 0) return 'done';
    return (await flush(store, env.DB)) ? 'done' : 'retry';
  },
  healthKey: 'outbox',
  errors: ['last_flush_error'],
};
