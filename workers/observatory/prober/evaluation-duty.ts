/**
 * A region object's status evaluation duty: each tick whose jobs are all done here waits in its
 * `evaluations` table for the status rules (status-evaluation.ts), in tick order, and those evaluated are
 * kept there for as long as the rules look back. Failures go to `last_evaluation_error`.
 */
import { hasJobsBefore } from './job-queue.ts';
import { numbers, type ProberStore, type Row } from '../duty/prober-store.ts';
import type { Duty } from '../duty/duty.ts';
import { evaluatePendingTicks, type EvaluationQueue } from '../keeper/status-evaluation.ts';

export const EVALUATION_TABLES = [
  // Ticks to be evaluated (done = 0), and those evaluated within the rules' lookback (done = 1): the ticks an evaluation reads from D1.
  'CREATE TABLE IF NOT EXISTS evaluations (tick_id INTEGER PRIMARY KEY, done INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID',
];

/** A tick whose jobs are all done here, owed its evaluation (run inside the probe duty's transaction). */
export function oweEvaluation(store: ProberStore, tick: number): void {
  store.sql.exec('INSERT INTO evaluations (tick_id, done) VALUES (?, 0) ON CONFLICT DO UPDATE SET done = 0', tick);
}

/** The region's storage as evaluatePendingTicks reads it. */
export function evaluationQueue(store: ProberStore): EvaluationQueue {
  const sql = store.sql;
  return {
    pendingEvaluations: () =>
      numbers(sql.exec<Row>('SELECT tick_id FROM evaluations WHERE done = 0 ORDER BY tick_id').toArray(), 'tick_id'),
    hasJobsBefore: (tick) => hasJobsBefore(store, tick),
    doneTicks: (from, to) =>
      numbers(
        sql.exec<Row>('SELECT tick_id FROM evaluations WHERE tick_id > ? AND tick_id <= ? ORDER BY tick_id', from, to).toArray(),
        'tick_id',
      ),
    evaluated: (tick, forgetThrough) =>
      store.transaction(() => {
        sql.exec('UPDATE evaluations SET done = 1 WHERE tick_id = ?', tick);
        sql.exec('DELETE FROM evaluations WHERE done = 1 AND tick_id <= ?', forgetThrough);
      }),
  };
}

export const evaluationDuty: Duty = {
  name: 'evaluations',
  tables: EVALUATION_TABLES,
  pending: (store) => Number(store.sql.exec('SELECT COUNT(*) AS n FROM evaluations WHERE done = 0').one().n),
  async run({ store, env, region, memory, budget }) {
    const failed = await evaluatePendingTicks(
      evaluationQueue(store),
      env.DB,
      env.STATUS_KEEPER.getByName('global'),
      region.code,
      memory.baselines,
      budget,
    );
    store.noteDutyError('last_evaluation_error', failed);
    return failed === null ? 'done' : 'failed';
  },
  healthKey: 'pendingEvaluations',
  errors: ['last_evaluation_error'],
};
