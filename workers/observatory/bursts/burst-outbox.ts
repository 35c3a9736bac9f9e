/**
 * A region object's burst outbox duty: a concurrency level's measured streams whose D1 write failed wait in
 * its table burst_outbox (one row a level) until a later alarm writes them. Failures go to `last_burst_error`.
 */
import { insertBurstSamples, type StoredBurstSample } from '../db/bursts.ts';
import type { ProberStore, Row } from '../duty/prober-store.ts';
import type { Duty } from '../duty/duty.ts';

export const BURST_OUTBOX_TABLES = ['CREATE TABLE IF NOT EXISTS burst_outbox (n INTEGER PRIMARY KEY, rows TEXT NOT NULL)'];

/** D1 refused concurrency samples: `kept` says what waits in the burst outbox (a level's streams, or levels). */
export function noteWriteError(store: ProberStore, region: string, e: unknown, kept: string): void {
  const message = `D1 write of concurrency samples failed, ${kept} kept for retry: ${e instanceof Error ? e.message : String(e)}`;
  store.noteDutyError('last_burst_error', message);
  console.error(`region ${region}: ${message}`);
}

/** A level's streams that D1 did not take, kept for a later alarm. */
export function keepBurstRows(store: ProberStore, rows: StoredBurstSample[]): void {
  store.sql.exec('INSERT INTO burst_outbox (rows) VALUES (?)', JSON.stringify(rows));
}

function burstOutbox(store: ProberStore): { n: number; rows: StoredBurstSample[] }[] {
  return store.sql
    .exec<Row>('SELECT n, rows FROM burst_outbox ORDER BY n')
    .toArray()
    .map((r) => ({ n: Number(r.n), rows: JSON.parse(String(r.rows)) as StoredBurstSample[] }));
}

/** Writes the burst outbox to D1, oldest first; false (keeping the rest) when D1 fails. */
async function flushBurstOutbox(store: ProberStore, db: D1Database, region: string): Promise<boolean> {
  for (const kept of burstOutbox(store)) {
    try {
      await insertBurstSamples(db, kept.rows);
    } catch (e) {
      noteWriteError(store, region, e, `${store.count('burst_outbox')} level(s)`);
      return false;
    }
    store.sql.exec('DELETE FROM burst_outbox WHERE n = ?', kept.n);
  }
  store.noteDutyError('last_burst_error', null);
  return true;
}

export const burstOutboxDuty: Duty = {
  name: 'burst-outbox',
  tables: BURST_OUTBOX_TABLES,
  pending: (store) => store.count('burst_outbox'),
  // With the sample outbox: while D1 refuses them, nothing after it runs (FLUSH_RETRY_MS).
  async run({ store, env, region }) {
    if (store.count('burst_outbox') === 0) return 'done';
    return (await flushBurstOutbox(store, env.DB, region.code)) ? 'done' : 'retry';
  },
  healthKey: 'outbox',
  // Its failures share the concurrency duty's last_burst_error (burst-duty.ts reports it).
  errors: [],
};
