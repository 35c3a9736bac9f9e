/**
 * The probe duty's table: the queue of jobs a region owes (one per tick, target and variant), and every
 * query on it. A job leaves it only once its samples are stored (in D1, or the sample outbox): probe-duty.ts's
 * finishJob, which hands its tick to the status evaluation when it was the tick's last job here.
 */
import { findVariant, type Job } from '../config.ts';
import { requestsPerJob } from '../../../shared/config/work-list.ts';
import { storedKeys } from '../db/samples.ts';
import { columnsOf, jobKey, type JobKey, type ProberStore, type Row } from '../duty/prober-store.ts';

export const JOB_TABLES = [
  `CREATE TABLE IF NOT EXISTS jobs (tick_id INTEGER NOT NULL, target TEXT NOT NULL, variant TEXT NOT NULL,
        backfill INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, late INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (tick_id, target, variant)) WITHOUT ROWID`,
];

/** Objects created before jobs counted their attempts, before ticks could be run late, or before ticks were shuffled. */
export function upgradeJobs(sql: SqlStorage): void {
  const columns = columnsOf(sql, 'jobs');
  if (!columns.includes('attempts')) sql.exec('ALTER TABLE jobs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0');
  if (!columns.includes('late')) sql.exec('ALTER TABLE jobs ADD COLUMN late INTEGER NOT NULL DEFAULT 0');
  // Their queued jobs have no place (null), and run in key order.
  if (!columns.includes('position')) sql.exec('ALTER TABLE jobs ADD COLUMN position INTEGER');
}

/** A queued job, with the runs an alarm began of it without finishing. */
export interface QueuedJob extends Job {
  attempts: number;
}

/** The samples a job stores: two for a prompt-cache job. */
export const probesOf = (job: Job): number => {
  const variant = findVariant(job.variant);
  return variant ? requestsPerJob(variant) : 1;
};

/** True when the job was new. */
function queueJob(store: ProberStore, job: Job): boolean {
  return (
    store.sql.exec(
      'INSERT INTO jobs (tick_id, target, variant, backfill, late, position) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
      job.tickId,
      job.target,
      job.variant,
      job.backfill ? 1 : 0,
      job.late ? 1 : 0,
      job.position ?? null,
    ).rowsWritten > 0
  );
}

/** Jobs into the queue (those D1 does not hold yet); the probes (samples to come) of those that were new. */
export async function queueJobs(store: ProberStore, db: D1Database, region: string, jobs: Job[]): Promise<number> {
  let stored = new Set<string>();
  try {
    stored = await storedKeys(db, region, [...new Set(jobs.map((j) => j.tickId))]);
  } catch (e) {
    console.error(`region ${region}: could not check D1 for stored samples (${e instanceof Error ? e.message : e}); queueing all`);
  }
  let queued = 0;
  for (const job of jobs) {
    if (stored.has(jobKey(job))) continue;
    if (queueJob(store, job)) queued += probesOf(job);
  }
  return queued;
}

/** The oldest queued job whose target is none of `busyTargets`, or null. */
export function nextJob(store: ProberStore, busyTargets: string[]): QueuedJob | null {
  const row = store.sql
    .exec<Row>(
      `SELECT tick_id, target, variant, backfill, late, attempts, position FROM jobs${busyTargets.length ? ` WHERE target NOT IN (${busyTargets.map(() => '?').join(', ')})` : ''} ORDER BY tick_id, position, target, variant LIMIT 1`,
      ...busyTargets,
    )
    .toArray()[0];
  if (!row) return null;
  return {
    tickId: Number(row.tick_id),
    target: String(row.target),
    variant: String(row.variant),
    backfill: row.backfill === 1,
    late: row.late === 1,
    attempts: Number(row.attempts),
    ...(row.position === null ? {} : { position: Number(row.position) }),
  };
}

export function countAttempt(store: ProberStore, job: JobKey): void {
  store.sql.exec(
    'UPDATE jobs SET attempts = attempts + 1 WHERE tick_id = ? AND target = ? AND variant = ?',
    job.tickId,
    job.target,
    job.variant,
  );
}

/** Whether a job older than `tick` still waits (its samples belong in the tick's evaluation window). */
export function hasJobsBefore(store: ProberStore, tick: number): boolean {
  return store.sql.exec('SELECT 1 FROM jobs WHERE tick_id < ? LIMIT 1', tick).toArray().length > 0;
}

/** A job gone from the queue; true when it was its tick's last one here. */
export function removeJob(store: ProberStore, job: JobKey): boolean {
  const sql = store.sql;
  sql.exec('DELETE FROM jobs WHERE tick_id = ? AND target = ? AND variant = ?', job.tickId, job.target, job.variant);
  return sql.exec('SELECT 1 FROM jobs WHERE tick_id = ? LIMIT 1', job.tickId).toArray().length === 0;
}
