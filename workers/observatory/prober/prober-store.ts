/**
 * A region object's own storage: its eight SQLite tables, created here, and every query on them. The
 * prober's duties (queue, outbox, rollups, OTLP, evaluations, bursts) and status evaluation read and
 * write through this module, never a table by name.
 */
import type { Job } from '../config.ts';
import type { StoredSample } from '../db/sample-row.ts';
import type { StoredBurstSample } from '../db/bursts.ts';
import type { TickState } from './tick-heartbeat.ts';

type Row = Record<string, SqlStorageValue>;

export type ProberTable = 'jobs' | 'outbox' | 'dirty_hours' | 'dirty_days' | 'otlp_pending' | 'evaluations' | 'burst_runs' | 'burst_outbox';

/** A queued job, with the runs an alarm began of it without finishing. */
export interface QueuedJob extends Job {
  attempts: number;
}

/** A concurrency run owed: one per tick and target. */
export interface QueuedBurst {
  tickId: number;
  target: string;
  attempts: number;
}

/** Meta keys: one row each (`split_sources`: split-source-book.ts). */
export type MetaKey =
  | 'region'
  | 'colo'
  | 'colo_checked_at'
  | 'missing_secrets'
  | 'ticks'
  | 'daily_rollups_seeded'
  | 'split_sources'
  | DutyErrorKey;

/** Each duty's last failure, in a row of its own (null once it succeeds again). */
export type DutyErrorKey =
  | 'last_flush_error'
  | 'last_rollup_error'
  | 'last_evaluation_error'
  | 'last_otlp_error'
  | 'last_burst_error'
  | 'last_archive_error'
  | 'last_burst_archive_error'
  | 'last_rollup_archive_error';

/** What names a job: one sample per tick, target and variant in a region. */
export type JobKey = Pick<Job, 'tickId' | 'target' | 'variant'>;

export const jobKey = (j: JobKey) => `${j.tickId}|${j.target}|${j.variant}`;

const numbers = (rows: Row[], column: string) => rows.map((r) => Number(r[column]));

function columnsOf(sql: SqlStorage, table: string): string[] {
  return sql
    .exec<Row>(`PRAGMA table_info(${table})`)
    .toArray()
    .map((c) => String(c.name));
}

/** What status evaluation needs of the region's storage (status-evaluation.ts). */
export interface EvaluationQueue {
  /** Ticks whose jobs are all done here and that wait for evaluation, oldest first. */
  pendingEvaluations(): number[];
  /** Whether a job older than `tick` still waits (its samples belong in the tick's window). */
  hasJobsBefore(tick: number): boolean;
  /** Ticks done here in (from, to], evaluated or not: the ticks an evaluation's window reads. */
  doneTicks(from: number, to: number): number[];
  /** The tick evaluated; evaluated ticks up to `forgetThrough` are no longer looked back at. */
  evaluated(tick: number, forgetThrough: number): void;
}

export class ProberStore implements EvaluationQueue {
  private readonly storage: DurableObjectStorage;
  private readonly sql: SqlStorage;

  constructor(storage: DurableObjectStorage) {
    this.storage = storage;
    this.sql = storage.sql;
  }

  /** Creates the tables, and brings those of older objects up to date. Run once, in the object's constructor. */
  migrate(): void {
    const sql = this.sql;
    sql.exec(`CREATE TABLE IF NOT EXISTS jobs (tick_id INTEGER NOT NULL, target TEXT NOT NULL, variant TEXT NOT NULL,
        backfill INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, late INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (tick_id, target, variant)) WITHOUT ROWID`);
    // Objects created before jobs counted their attempts, or before ticks could be run late.
    const jobColumns = columnsOf(sql, 'jobs');
    if (!jobColumns.includes('attempts')) sql.exec('ALTER TABLE jobs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0');
    if (!jobColumns.includes('late')) sql.exec('ALTER TABLE jobs ADD COLUMN late INTEGER NOT NULL DEFAULT 0');
    // Objects created before ticks were shuffled: their queued jobs have no place (null), and run in key order.
    if (!jobColumns.includes('position')) sql.exec('ALTER TABLE jobs ADD COLUMN position INTEGER');
    sql.exec(`CREATE TABLE IF NOT EXISTS outbox (tick_id INTEGER NOT NULL, target TEXT NOT NULL, variant TEXT NOT NULL,
        sample TEXT NOT NULL, PRIMARY KEY (tick_id, target, variant)) WITHOUT ROWID`);
    sql.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID');
    // Hours whose samples changed in D1 since their rollup was written (shared/rollup/rollup.ts).
    sql.exec('CREATE TABLE IF NOT EXISTS dirty_hours (hour INTEGER PRIMARY KEY) WITHOUT ROWID');
    // Days with an hour rolled up since their daily rows were written: written once the day has ended.
    sql.exec('CREATE TABLE IF NOT EXISTS dirty_days (day INTEGER PRIMARY KEY) WITHOUT ROWID');
    // Hours rolled up but not yet accepted by the OTLP collector (when one is configured).
    sql.exec('CREATE TABLE IF NOT EXISTS otlp_pending (hour INTEGER PRIMARY KEY) WITHOUT ROWID');
    // Ticks whose jobs are all done here, to be evaluated by the status rules in tick order (done = 0), and
    // those evaluated within the rules' lookback (done = 1): the ticks an evaluation reads from D1.
    sql.exec('CREATE TABLE IF NOT EXISTS evaluations (tick_id INTEGER PRIMARY KEY, done INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID');
    // Concurrency runs owed (burst-run.ts): one row per run and target, removed once its samples are in D1.
    sql.exec(
      'CREATE TABLE IF NOT EXISTS burst_runs (tick_id INTEGER NOT NULL, target TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (tick_id, target)) WITHOUT ROWID',
    );
    if (!columnsOf(sql, 'burst_runs').includes('attempts'))
      sql.exec('ALTER TABLE burst_runs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0');
    // A level's measured streams whose D1 write failed, kept until a later alarm writes them (one row a level).
    sql.exec('CREATE TABLE IF NOT EXISTS burst_outbox (n INTEGER PRIMARY KEY, rows TEXT NOT NULL)');
  }

  count(table: ProberTable): number {
    return Number(this.sql.exec(`SELECT COUNT(*) AS n FROM ${table}`).one().n);
  }

  // --- meta ---

  meta(key: MetaKey): string | null {
    const row = this.sql.exec<Row>('SELECT value FROM meta WHERE key = ?', key).toArray()[0];
    return row ? (row.value as string | null) : null;
  }

  setMeta(key: MetaKey, value: string | null): void {
    this.sql.exec('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', key, value);
  }

  /** A meta row written only when its value changes (storage writes are billed). */
  updateMeta(key: MetaKey, value: string | null): void {
    if (this.meta(key) !== value) this.setMeta(key, value);
  }

  /** A duty's last failure (null once it succeeds again), at most 200 characters; written only when it changes. */
  noteDutyError(key: DutyErrorKey, message: string | null): void {
    this.updateMeta(key, message === null ? null : message.slice(0, 200));
  }

  /** What the region knows of the schedule's ticks (tick-heartbeat.ts): one meta row, written once a tick. */
  tickState(): TickState | null {
    const text = this.meta('ticks');
    return text === null ? null : (JSON.parse(text) as TickState);
  }

  setTickState(state: TickState): void {
    this.setMeta('ticks', JSON.stringify(state));
  }

  // --- the job queue ---

  /** True when the job was new. */
  queueJob(job: Job): boolean {
    return (
      this.sql.exec(
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

  /** The oldest queued job whose target is none of `busyTargets`, or null. */
  nextJob(busyTargets: string[]): QueuedJob | null {
    const row = this.sql
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

  countAttempt(job: JobKey): void {
    this.sql.exec(
      'UPDATE jobs SET attempts = attempts + 1 WHERE tick_id = ? AND target = ? AND variant = ?',
      job.tickId,
      job.target,
      job.variant,
    );
  }

  /**
   * A job done, in one transaction: its samples into the outbox when D1 did not take them (`unwritten`; each
   * keyed by its own variant, so a prompt-cache job's two passes are two rows), the job gone, and its tick
   * queued for evaluation once it was the tick's last job here.
   */
  finishJob(job: JobKey, unwritten: readonly StoredSample[]): void {
    this.storage.transactionSync(() => {
      const sql = this.sql;
      for (const sample of unwritten)
        sql.exec(
          'INSERT OR IGNORE INTO outbox (tick_id, target, variant, sample) VALUES (?, ?, ?, ?)',
          job.tickId,
          job.target,
          sample.prompt_variant,
          JSON.stringify(sample),
        );
      sql.exec('DELETE FROM jobs WHERE tick_id = ? AND target = ? AND variant = ?', job.tickId, job.target, job.variant);
      if (sql.exec('SELECT 1 FROM jobs WHERE tick_id = ? LIMIT 1', job.tickId).toArray().length === 0)
        sql.exec('INSERT INTO evaluations (tick_id, done) VALUES (?, 0) ON CONFLICT DO UPDATE SET done = 0', job.tickId);
    });
  }

  // --- the sample outbox ---

  /** The oldest samples waiting for D1, with their job's key. */
  outboxBatch(limit: number): { job: JobKey; sample: StoredSample }[] {
    return this.sql
      .exec<Row>('SELECT tick_id, target, variant, sample FROM outbox ORDER BY tick_id LIMIT ?', limit)
      .toArray()
      .map((r) => ({
        job: { tickId: Number(r.tick_id), target: String(r.target), variant: String(r.variant) },
        sample: JSON.parse(String(r.sample)) as StoredSample,
      }));
  }

  removeFromOutbox(jobs: JobKey[]): void {
    this.storage.transactionSync(() => {
      for (const j of jobs)
        this.sql.exec('DELETE FROM outbox WHERE tick_id = ? AND target = ? AND variant = ?', j.tickId, j.target, j.variant);
    });
  }

  // --- rollups owed ---

  markDirtyHours(hours: Iterable<number>): void {
    for (const hour of hours) this.sql.exec('INSERT OR IGNORE INTO dirty_hours (hour) VALUES (?)', hour);
  }

  dirtyHoursBefore(hour: number): number[] {
    return numbers(this.sql.exec<Row>('SELECT hour FROM dirty_hours WHERE hour < ? ORDER BY hour', hour).toArray(), 'hour');
  }

  /** An hour's rollup written (or left as it was): its day owes its daily rows, and the OTLP collector the hour. */
  hourRolledUp(hour: number, day: number, pushToOtlp: boolean): void {
    this.storage.transactionSync(() => {
      this.sql.exec('DELETE FROM dirty_hours WHERE hour = ?', hour);
      this.markDirtyDays([day]);
      if (pushToOtlp) this.sql.exec('INSERT OR IGNORE INTO otlp_pending (hour) VALUES (?)', hour);
    });
  }

  markDirtyDays(days: Iterable<number>): void {
    for (const day of days) this.sql.exec('INSERT OR IGNORE INTO dirty_days (day) VALUES (?)', day);
  }

  dirtyDaysThrough(day: number): number[] {
    return numbers(this.sql.exec<Row>('SELECT day FROM dirty_days WHERE day <= ? ORDER BY day', day).toArray(), 'day');
  }

  dayRolledUp(day: number): void {
    this.sql.exec('DELETE FROM dirty_days WHERE day = ?', day);
  }

  // --- OTLP pushes owed ---

  otlpPending(limit: number): number[] {
    return numbers(this.sql.exec<Row>('SELECT hour FROM otlp_pending ORDER BY hour LIMIT ?', limit).toArray(), 'hour');
  }

  otlpPushed(hour: number): void {
    this.sql.exec('DELETE FROM otlp_pending WHERE hour = ?', hour);
  }

  // --- status evaluations (EvaluationQueue) ---

  pendingEvaluations(): number[] {
    return numbers(this.sql.exec<Row>('SELECT tick_id FROM evaluations WHERE done = 0 ORDER BY tick_id').toArray(), 'tick_id');
  }

  countPendingEvaluations(): number {
    return Number(this.sql.exec('SELECT COUNT(*) AS n FROM evaluations WHERE done = 0').one().n);
  }

  hasJobsBefore(tick: number): boolean {
    return this.sql.exec('SELECT 1 FROM jobs WHERE tick_id < ? LIMIT 1', tick).toArray().length > 0;
  }

  doneTicks(from: number, to: number): number[] {
    return numbers(
      this.sql.exec<Row>('SELECT tick_id FROM evaluations WHERE tick_id > ? AND tick_id <= ? ORDER BY tick_id', from, to).toArray(),
      'tick_id',
    );
  }

  evaluated(tick: number, forgetThrough: number): void {
    this.storage.transactionSync(() => {
      this.sql.exec('UPDATE evaluations SET done = 1 WHERE tick_id = ?', tick);
      this.sql.exec('DELETE FROM evaluations WHERE done = 1 AND tick_id <= ?', forgetThrough);
    });
  }

  // --- concurrency runs ---

  /** True when the run was new. */
  queueBurst(tickId: number, target: string): boolean {
    return this.sql.exec('INSERT INTO burst_runs (tick_id, target) VALUES (?, ?) ON CONFLICT DO NOTHING', tickId, target).rowsWritten > 0;
  }

  nextBurst(): QueuedBurst | null {
    const row = this.sql.exec<Row>('SELECT tick_id, target, attempts FROM burst_runs ORDER BY tick_id, target LIMIT 1').toArray()[0];
    return row ? { tickId: Number(row.tick_id), target: String(row.target), attempts: Number(row.attempts) } : null;
  }

  setBurstAttempts(run: QueuedBurst, attempts: number): void {
    this.sql.exec('UPDATE burst_runs SET attempts = ? WHERE tick_id = ? AND target = ?', attempts, run.tickId, run.target);
  }

  burstDone(run: QueuedBurst): void {
    this.sql.exec('DELETE FROM burst_runs WHERE tick_id = ? AND target = ?', run.tickId, run.target);
  }

  /** A level's streams that D1 did not take, kept for a later alarm. */
  keepBurstRows(rows: StoredBurstSample[]): void {
    this.sql.exec('INSERT INTO burst_outbox (rows) VALUES (?)', JSON.stringify(rows));
  }

  burstOutbox(): { n: number; rows: StoredBurstSample[] }[] {
    return this.sql
      .exec<Row>('SELECT n, rows FROM burst_outbox ORDER BY n')
      .toArray()
      .map((r) => ({ n: Number(r.n), rows: JSON.parse(String(r.rows)) as StoredBurstSample[] }));
  }

  removeBurstRows(n: number): void {
    this.sql.exec('DELETE FROM burst_outbox WHERE n = ?', n);
  }
}
