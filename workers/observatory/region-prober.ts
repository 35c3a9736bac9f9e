/**
 * One regional Durable Object per configured region. A tick's jobs are queued in its own SQLite
 * storage; an alarm runs a few of them (probesPerAlarm), `concurrency` at once and never two of one
 * target at once, each alarm one small invocation well inside the CPU and subrequest limits. Each sample goes straight to D1; when D1
 * fails it waits in the object's outbox until a later alarm writes it, so nothing measured is lost.
 * Storage writes are a cost too: a probe normally costs two (its job queued, then removed).
 */
import { DurableObject } from 'cloudflare:workers';
import { findRegion, findTarget, findVariant, getCapacity, getConfig, tickJobs, workList, type Job } from './config.ts';
import { cadenceOf, heartbeatDue, heartbeatVerdict } from './tick-heartbeat.ts';
import { PLAN_LIMITS, probesPerAlarm } from '../../shared/config/capacity.ts';
import { SubrequestBudget } from './subrequest-budget.ts';
import { runTargetBurst } from './burst-run.ts';
import { burstTargetsStored, insertBurstSamples, type StoredBurstSample } from './db/bursts.ts';
import { COLO_REFRESH_MS, fetchColo } from './colo.ts';
import { failedJobSample, MissingSecretError, runJob } from './probe-job.ts';
import { insertSamples, storedKeys } from './db/samples.ts';
import { rollUpDay, rollUpHour } from './rollup-hour.ts';
import { DAY_MS, dayOf, hourOf } from '../../shared/rollup/rollup.ts';
import { daysWithHourlyRollups, rollupsOfRegionHour, samplesRetainedFrom } from './db/rollups.ts';
import { pushToOtlp } from './otlp-push.ts';
import { BaselineCache, evaluatePendingTicks } from './status-evaluation.ts';
import type { StoredSample } from './db/sample-row.ts';
import type { RegionConfig } from '../../shared/config/types.ts';

/** Wait before retrying to write the outbox after D1 failed. */
export const FLUSH_RETRY_MS = 30_000;
/** Hours pushed to the OTLP collector per alarm, at most (a backlog drains over later alarms). */
const OTLP_HOURS_PER_ALARM = 24;
/** Subrequests the probes of an alarm leave for what follows them: the status keeper's report and an OTLP push. */
const SUBREQUESTS_AFTER_PROBES = 2;
/** Samples written to D1 per batch when the outbox is flushed. */
const FLUSH_BATCH = 50;
/**
 * Runs of one job whose alarm did not live to finish it (the runtime stopped it, or it threw) before the
 * job is given up as a failed sample of its own: a poisoned stream never blocks its region.
 */
export const MAX_PROBE_ATTEMPTS = 3;

export interface EnqueueResult {
  queued: number;
  skipped: number;
}

/** A tick of the schedule, as the scheduler hands it over (a backfill is not one). */
export interface Delivery {
  tickId: number;
  /**
   * Sent by the cron: true arms the heartbeat (the region expects the next tick, and runs it itself should it
   * not come), false disarms it (LATE_TICKS = "off"); absent (a POSTed tick) leaves it as it is.
   */
  heartbeat?: boolean;
}

/** What the region knows of the schedule's ticks (tick-heartbeat.ts); one meta row, written once a tick. */
export interface TickState {
  /** The newest tick queued here, delivered or run late. */
  newest: number;
  /** The newest tick the scheduler delivered. */
  delivered: number;
  heartbeat: boolean;
  /** Ticks run here because they never came, and ticks missed altogether (never run), since this object began. */
  late: number;
  missed: number;
}

export interface ProberStatus {
  region: string | null;
  queued: number;
  outbox: number;
  /** Ended hours (and days) whose rollup is still to be written. */
  pendingRollups: number;
  /** Ticks probed here whose status evaluation has not yet reached the status keeper. */
  pendingEvaluations: number;
  /** Concurrency runs (per target) still to run. */
  pendingBursts: number;
  /** Rolled-up hours not yet accepted by the OTLP collector. */
  pendingOtlp: number;
  lastOtlpError: string | null;
  colo: string | null;
  /** The last failed D1 write of samples (they wait in the outbox), of a rollup, and of a status evaluation. */
  lastFlushError: string | null;
  lastRollupError: string | null;
  lastEvaluationError: string | null;
  missingSecrets: string[];
  ticks: TickState | null;
}

type Row = Record<string, SqlStorageValue>;
const keyOf = (j: { tickId: number; target: string; variant: string }) => `${j.tickId}|${j.target}|${j.variant}`;

export class RegionProber extends DurableObject<Env> {
  /** Jobs an alarm of this instance is running now (a job leaves the table only once it is done). */
  private readonly running = new Set<string>();
  private readonly baselines = new BaselineCache();
  /** What the running alarm may still fetch or call (one alarm at a time runs in an object); set as each alarm starts. */
  private budget = new SubrequestBudget(0);

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      const sql = ctx.storage.sql;
      sql.exec(`CREATE TABLE IF NOT EXISTS jobs (tick_id INTEGER NOT NULL, target TEXT NOT NULL, variant TEXT NOT NULL,
        backfill INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, late INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (tick_id, target, variant)) WITHOUT ROWID`);
      // Objects created before jobs counted their attempts, or before ticks could be run late.
      const jobColumns = sql
        .exec<Row>('PRAGMA table_info(jobs)')
        .toArray()
        .map((c) => c.name);
      if (!jobColumns.includes('attempts')) sql.exec('ALTER TABLE jobs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0');
      if (!jobColumns.includes('late')) sql.exec('ALTER TABLE jobs ADD COLUMN late INTEGER NOT NULL DEFAULT 0');
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
      if (
        !sql
          .exec<Row>('PRAGMA table_info(burst_runs)')
          .toArray()
          .some((c) => c.name === 'attempts')
      )
        sql.exec('ALTER TABLE burst_runs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0');
      // A level's measured streams whose D1 write failed, kept until a later alarm writes them (one row a level).
      sql.exec('CREATE TABLE IF NOT EXISTS burst_outbox (n INTEGER PRIMARY KEY, rows TEXT NOT NULL)');
    });
  }

  /**
   * Queues a concurrency run of every target here that opted in. Run by the alarm once no regular
   * job is waiting, one target at a time, so a burst never overlaps this region's own probes.
   */
  async enqueueBursts(region: string, tickId: number): Promise<EnqueueResult> {
    if (this.getMeta('region') !== region) this.setMeta('region', region);
    const targets = [
      ...new Set(
        workList(region)
          .filter((w) => w.target.bursts)
          .map((w) => w.target.id),
      ),
    ];
    // A retried cron does not measure (and pay for) a run D1 already holds.
    let done = new Set<string>();
    try {
      done = await burstTargetsStored(this.env.DB, tickId, region);
    } catch (e) {
      console.error(`region ${region}: could not check D1 for stored bursts (${e instanceof Error ? e.message : e}); queueing all`);
    }
    let queued = 0;
    for (const target of targets.filter((t) => !done.has(t)))
      queued +=
        this.ctx.storage.sql.exec('INSERT INTO burst_runs (tick_id, target) VALUES (?, ?) ON CONFLICT DO NOTHING', tickId, target)
          .rowsWritten > 0
          ? 1
          : 0;
    await this.wake(queued);
    return { queued, skipped: targets.length - queued };
  }

  /**
   * Queues a tick's jobs. Idempotent: a job already queued, or whose sample D1 already holds, is
   * skipped (and should D1 be down, its unique key still refuses a second sample). The jobs are in this
   * object's storage before it answers, so a tick the scheduler was told of is never lost: whatever
   * dies after, a later alarm runs them. `delivery`: the tick of the schedule they belong to.
   */
  async enqueue(region: string, jobs: Job[], delivery?: Delivery): Promise<EnqueueResult> {
    if (this.getMeta('region') !== region) this.setMeta('region', region);
    const queued = await this.queue(region, jobs);
    if (delivery) this.noteDelivered(delivery);
    await this.wake(queued);
    // A tick with no work here (spread over ticks) still moves the heartbeat on.
    if (queued === 0) await this.armHeartbeat();
    return { queued, skipped: jobs.length - queued };
  }

  /** Jobs into the queue (those D1 does not hold yet); how many were new. */
  private async queue(region: string, jobs: Job[]): Promise<number> {
    let stored = new Set<string>();
    try {
      stored = await storedKeys(this.env.DB, region, [...new Set(jobs.map((j) => j.tickId))]);
    } catch (e) {
      console.error(`region ${region}: could not check D1 for stored samples (${e instanceof Error ? e.message : e}); queueing all`);
    }
    let queued = 0;
    for (const job of jobs) {
      if (stored.has(keyOf(job))) continue;
      const written = this.ctx.storage.sql.exec(
        'INSERT INTO jobs (tick_id, target, variant, backfill, late) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
        job.tickId,
        job.target,
        job.variant,
        job.backfill ? 1 : 0,
        job.late ? 1 : 0,
      ).rowsWritten;
      if (written > 0) queued++;
    }
    return queued;
  }

  /** An alarm now when there is new work, unless one is due sooner (a heartbeat waiting for the next tick is later). */
  private async wake(queued: number): Promise<void> {
    if (queued === 0) return;
    const alarm = await this.ctx.storage.getAlarm();
    if (alarm === null || alarm > Date.now()) await this.ctx.storage.setAlarm(Date.now());
  }

  private tickState(): TickState | null {
    const text = this.getMeta('ticks');
    return text === null ? null : (JSON.parse(text) as TickState);
  }

  private setTickState(state: TickState): void {
    this.setMeta('ticks', JSON.stringify(state));
  }

  /** A delivered tick of the schedule: newest so far (a retried or stray older one changes nothing), and the heartbeat as the cron sets it. */
  private noteDelivered({ tickId, heartbeat }: Delivery): void {
    const before = this.tickState();
    const state = before ?? { newest: tickId, delivered: tickId, heartbeat: false, late: 0, missed: 0 };
    const next = {
      ...state,
      newest: Math.max(state.newest, tickId),
      delivered: Math.max(state.delivered, tickId),
      heartbeat: heartbeat ?? state.heartbeat,
    };
    // A retried or stray older tick changes nothing, and writes nothing.
    if (JSON.stringify(next) !== JSON.stringify(before)) this.setTickState(next);
  }

  /** Idle: the heartbeat's alarm waits for the next tick (and is moved to now when it comes). */
  private async armHeartbeat(): Promise<void> {
    const ticks = this.tickState();
    if (ticks?.heartbeat && (await this.ctx.storage.getAlarm()) === null)
      await this.ctx.storage.setAlarm(heartbeatDue(ticks.newest, cadenceOf(getCapacity().tickMinutes)));
  }

  /**
   * The heartbeat (tick-heartbeat.ts): when the tick after the newest one here is overdue, this
   * region's share of it is queued, flagged late. True when jobs were queued.
   */
  private async runLateTick(region: string): Promise<boolean> {
    const state = this.tickState();
    if (!state?.heartbeat) return false;
    const verdict = heartbeatVerdict(Date.now(), state.newest, state.delivered, cadenceOf(getCapacity().tickMinutes));
    if (verdict.kind === 'waiting') return false;
    if (verdict.kind === 'stopped') {
      console.warn(
        `region ${region}: no tick delivered for ${verdict.ticksWithoutDelivery} ticks; taking the schedule to be stopped, waiting for the next tick it sends`,
      );
      this.setTickState({ ...state, heartbeat: false });
      return false;
    }
    const queued = await this.queue(region, tickJobs(region, verdict.tickId, { late: true }));
    this.setTickState({ ...state, newest: verdict.tickId, late: state.late + 1, missed: state.missed + verdict.missed });
    console.warn(
      `region ${region}: tick ${new Date(verdict.tickId).toISOString()} never came; run here, late (${queued} probes${verdict.missed > 0 ? `; ${verdict.missed} tick(s) before it missed` : ''})`,
    );
    return queued > 0;
  }

  async status(): Promise<ProberStatus> {
    return {
      region: this.getMeta('region'),
      queued: this.count('jobs'),
      outbox: this.count('outbox') + this.count('burst_outbox'),
      pendingRollups: this.count('dirty_hours') + this.count('dirty_days'),
      pendingEvaluations: Number(this.ctx.storage.sql.exec('SELECT COUNT(*) AS n FROM evaluations WHERE done = 0').one().n),
      pendingBursts: this.count('burst_runs'),
      pendingOtlp: this.count('otlp_pending'),
      lastOtlpError: this.getMeta('last_otlp_error'),
      colo: this.getMeta('colo'),
      lastFlushError: this.getMeta('last_flush_error'),
      lastRollupError: this.getMeta('last_rollup_error'),
      lastEvaluationError: this.getMeta('last_evaluation_error'),
      missingSecrets: JSON.parse(this.getMeta('missing_secrets') ?? '[]'),
      ticks: this.tickState(),
    };
  }

  override async alarm(info?: AlarmInvocationInfo): Promise<void> {
    const config = getConfig();
    const regionCode = this.getMeta('region');
    const region = regionCode ? findRegion(regionCode) : undefined;
    if (!region) return;
    // After an alarm that did not finish, one probe at a time, each claim counted: the job that keeps
    // stopping its alarm is then the one being counted, and it is given up (claimNext).
    const retry = info?.isRetry === true;
    this.budget = new SubrequestBudget(PLAN_LIMITS[config.plan].subrequestsPerInvocation);
    await this.runProbes(region, retry ? 1 : config.concurrency, probesPerAlarm(config), retry);
    if (this.count('jobs') > this.running.size || (await this.runLateTick(regionCode!))) {
      await this.ctx.storage.setAlarm(Date.now());
      return;
    }
    if ((this.count('outbox') > 0 && !(await this.flush())) || (this.count('burst_outbox') > 0 && !(await this.flushBursts()))) {
      await this.ctx.storage.setAlarm(Date.now() + FLUSH_RETRY_MS);
      return;
    }
    const rolled = await this.rollUpDirtyHours(regionCode!);
    const evaluated = await this.evaluatePending(regionCode!);
    // Concurrency runs last, one target per alarm, once the tick's own probes, rollups and evaluations are done.
    if (this.count('burst_runs') > 0) {
      const ran = await this.runOneBurst(region);
      await this.ctx.storage.setAlarm(Date.now() + (ran ? 0 : FLUSH_RETRY_MS));
      return;
    }
    if ((!rolled || !evaluated) && (await this.ctx.storage.getAlarm()) === null)
      await this.ctx.storage.setAlarm(Date.now() + FLUSH_RETRY_MS);
    await this.armHeartbeat();
  }

  /**
   * The oldest queued concurrency run. Its samples go to D1, or to the burst outbox when D1 fails; a run that
   * fails itself is kept for a later alarm, up to MAX_PROBE_ATTEMPTS runs, then given up (and logged).
   */
  private async runOneBurst(region: RegionConfig): Promise<boolean> {
    const row = this.ctx.storage.sql
      .exec<Row>('SELECT tick_id, target, attempts FROM burst_runs ORDER BY tick_id, target LIMIT 1')
      .toArray()[0];
    const tickId = Number(row.tick_id);
    const target = findTarget(String(row.target));
    const store = async (rows: StoredBurstSample[]): Promise<void> => {
      try {
        await insertBurstSamples(this.env.DB, rows);
      } catch (e) {
        this.noteFlushError(e, rows.length);
        if (rows.length > 0) this.ctx.storage.sql.exec('INSERT INTO burst_outbox (rows) VALUES (?)', JSON.stringify(rows));
      }
    };
    try {
      if (target && getConfig().bursts) {
        const outcome = await runTargetBurst(this.env, region, target, tickId, this.referenceUrl(region.code), store);
        console.log(
          `region ${region.code}: burst of ${target.id}: ${outcome.levels.map((l) => `level ${l.level} ${l.streams - l.errors}/${l.streams} ok, spread ${l.start_spread_ms?.toFixed(1)} ms`).join('; ')}${outcome.stopped_at ? ` (rate limited at ${outcome.stopped_at}: stopped)` : ''}`,
        );
      }
    } catch (e) {
      const attempts = Number(row.attempts) + 1;
      console.error(
        `region ${region.code}: burst of ${row.target} (tick ${tickId}) failed (run ${attempts} of ${MAX_PROBE_ATTEMPTS}): ${e instanceof Error ? e.message : String(e)}`,
      );
      if (attempts < MAX_PROBE_ATTEMPTS) {
        this.ctx.storage.sql.exec('UPDATE burst_runs SET attempts = ? WHERE tick_id = ? AND target = ?', attempts, row.tick_id, row.target);
        return false;
      }
      console.error(`region ${region.code}: burst of ${row.target} (tick ${tickId}) given up`);
    }
    this.ctx.storage.sql.exec('DELETE FROM burst_runs WHERE tick_id = ? AND target = ?', row.tick_id, row.target);
    return true;
  }

  /** Writes the burst outbox to D1, oldest first; false (keeping the rest) when D1 fails. */
  private async flushBursts(): Promise<boolean> {
    const sql = this.ctx.storage.sql;
    for (const r of sql.exec<Row>('SELECT n, rows FROM burst_outbox ORDER BY n').toArray()) {
      try {
        await insertBurstSamples(this.env.DB, JSON.parse(String(r.rows)) as StoredBurstSample[]);
      } catch (e) {
        this.noteFlushError(e, this.count('burst_outbox'));
        return false;
      }
      sql.exec('DELETE FROM burst_outbox WHERE n = ?', r.n);
    }
    return true;
  }

  /** The status rules' evaluation of every finished tick (status-evaluation.ts); false when one failed (kept for retry). */
  private async evaluatePending(region: string): Promise<boolean> {
    const failed = await evaluatePendingTicks(
      this.ctx.storage,
      this.env.DB,
      this.env.STATUS_KEEPER.getByName('global'),
      region,
      this.baselines,
      this.budget,
    );
    this.noteError('last_evaluation_error', failed);
    return failed === null;
  }

  /**
   * Writes the rollup of every ended hour whose samples changed (new, or late after a D1 outage),
   * from the hour's samples in D1: the same samples give the same rows, so a retried tick or a second
   * rollup never counts twice. Then the daily rows of every ended day with an hour rolled up, merged
   * from its hourly rows. False (the hours and days stay dirty) when D1 fails.
   */
  private async rollUpDirtyHours(region: string): Promise<boolean> {
    const now = Date.now();
    const sql = this.ctx.storage.sql;
    const hours = sql
      .exec<Row>('SELECT hour FROM dirty_hours WHERE hour < ? ORDER BY hour', hourOf(now))
      .toArray()
      .map((r) => Number(r.hour));
    const iso = (t: number) => new Date(t).toISOString();
    let step = 'daily rollup seeding';
    try {
      if (this.getMeta('daily_rollups_seeded') === null) {
        // Once: a database upgraded from hourly rollups alone gets the daily rows of its past days.
        for (const day of await daysWithHourlyRollups(this.env.DB, region))
          sql.exec('INSERT OR IGNORE INTO dirty_days (day) VALUES (?)', day);
        this.setMeta('daily_rollups_seeded', '1');
      }
      // An hour that retention has cut samples from cannot be rolled up again: its rows stay as they are.
      if (hours.length > 0) step = `rollup of hour ${iso(hours[0])}`;
      const retainedFrom = hours.length > 0 ? await samplesRetainedFrom(this.env.DB) : 0;
      for (const hour of hours) {
        step = `rollup of hour ${iso(hour)}`;
        const rolled = hour >= retainedFrom;
        if (rolled) await rollUpHour(this.env.DB, region, hour);
        this.ctx.storage.transactionSync(() => {
          sql.exec('DELETE FROM dirty_hours WHERE hour = ?', hour);
          sql.exec('INSERT OR IGNORE INTO dirty_days (day) VALUES (?)', dayOf(hour));
          if (rolled && getConfig().otlp) sql.exec('INSERT OR IGNORE INTO otlp_pending (hour) VALUES (?)', hour);
        });
      }
      const days = sql
        .exec<Row>('SELECT day FROM dirty_days WHERE day <= ? ORDER BY day', dayOf(now) - DAY_MS)
        .toArray()
        .map((r) => Number(r.day));
      for (const day of days) {
        step = `daily rollup of ${iso(day).slice(0, 10)}`;
        await rollUpDay(this.env.DB, region, day);
        sql.exec('DELETE FROM dirty_days WHERE day = ?', day);
      }
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      this.noteError('last_rollup_error', `${step}: ${message}`);
      console.error(`region ${region}: ${step} failed, kept for retry: ${message}`);
      return false;
    }
    this.noteError('last_rollup_error', null);
    if (!(await this.pushPendingToOtlp(region)) && (await this.ctx.storage.getAlarm()) === null)
      await this.ctx.storage.setAlarm(Date.now() + FLUSH_RETRY_MS);
    return true;
  }

  /**
   * Pushes each rolled-up hour to the OTLP collector, oldest first, from its rows in D1 (a rewritten
   * hour goes again, with the same start and end). A failed push stays pending for the next alarm;
   * it never holds up probing or rollups. False when a push failed.
   */
  private async pushPendingToOtlp(region: string): Promise<boolean> {
    const otlp = getConfig().otlp;
    const sql = this.ctx.storage.sql;
    if (!otlp) return true;
    const hours = sql
      .exec<Row>('SELECT hour FROM otlp_pending ORDER BY hour LIMIT ?', OTLP_HOURS_PER_ALARM)
      .toArray()
      .map((r) => Number(r.hour));
    for (const hour of hours) {
      if (!this.budget.take(1)) return false; // the rest at the next alarm
      try {
        await pushToOtlp(otlp, this.env as unknown as Record<string, unknown>, await rollupsOfRegionHour(this.env.DB, region, hour));
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        this.setMeta('last_otlp_error', message.slice(0, 200));
        console.error(`region ${region}: OTLP push of hour ${new Date(hour).toISOString()} failed, kept for retry: ${message}`);
        return false;
      }
      sql.exec('DELETE FROM otlp_pending WHERE hour = ?', hour);
    }
    if (hours.length > 0 && this.getMeta('last_otlp_error') !== null) this.setMeta('last_otlp_error', null);
    return true;
  }

  private markDirty(tickIds: number[]): void {
    for (const hour of new Set(tickIds.map(hourOf))) this.ctx.storage.sql.exec('INSERT OR IGNORE INTO dirty_hours (hour) VALUES (?)', hour);
  }

  /**
   * Runs up to `budget` queued probes, `lanes` at a time: each lane takes the oldest job whose target
   * no other probe here is measuring (two probes of one target would queue behind each other at the
   * vendor), and the next one as soon as its probe ends. Returns how many ran.
   */
  private async runProbes(region: RegionConfig, lanes: number, budget: number, counted: boolean): Promise<number> {
    const subrequests = this.budget;
    let started = 0;
    if (this.count('jobs') <= this.running.size) return 0;
    const colo = await this.colo();
    const perProbe = 1 + getConfig().rttProbes;
    let failed = false;
    const lane = async (): Promise<void> => {
      while (started < budget && !failed) {
        // A probe's stream and round trips, while enough is left for what the alarm does after the probes.
        if (this.count('jobs') <= this.running.size || !subrequests.take(perProbe, SUBREQUESTS_AFTER_PROBES)) return;
        const job = this.claimNext(counted);
        if (!job) {
          subrequests.refund(perProbe);
          return;
        }
        started++;
        try {
          await this.runOne(job, region, colo);
        } catch (e) {
          failed = true;
          throw e;
        }
      }
    };
    // Every lane ends before the alarm does (a failed one stops the others claiming), so a retried alarm never
    // runs beside this one's probes.
    const ended = await Promise.allSettled(Array.from({ length: lanes }, lane));
    const failure = ended.find((r) => r.status === 'rejected');
    if (failure) throw failure.reason;
    return started;
  }

  /**
   * The oldest queued job whose target is not being probed here now, or null. `counted`: its attempt
   * is written down first (only after an alarm that did not finish: a normal claim costs no write).
   */
  private claimNext(counted: boolean): (Job & { attempts: number }) | null {
    const busy = [...new Set([...this.running].map((key) => key.split('|')[1]))];
    const row = this.ctx.storage.sql
      .exec<Row>(
        `SELECT tick_id, target, variant, backfill, late, attempts FROM jobs${busy.length ? ` WHERE target NOT IN (${busy.map(() => '?').join(', ')})` : ''} ORDER BY tick_id, target, variant LIMIT 1`,
        ...busy,
      )
      .toArray()[0];
    if (!row) return null;
    const job = {
      tickId: Number(row.tick_id),
      target: String(row.target),
      variant: String(row.variant),
      backfill: row.backfill === 1,
      late: row.late === 1,
      attempts: Number(row.attempts),
    };
    if (counted && job.attempts < MAX_PROBE_ATTEMPTS - 1) {
      this.ctx.storage.sql.exec(
        'UPDATE jobs SET attempts = attempts + 1 WHERE tick_id = ? AND target = ? AND variant = ?',
        job.tickId,
        job.target,
        job.variant,
      );
    }
    this.running.add(keyOf(job));
    return job;
  }

  /** A job whose alarms kept stopping before it finished: one failed sample instead of another run. */
  private givenUp(job: Job, region: RegionConfig, colo: string | null): StoredSample | null {
    const target = findTarget(job.target);
    const variant = findVariant(job.variant);
    console.error(
      `region ${region.code}: probe of ${job.target} (tick ${job.tickId}) stopped ${MAX_PROBE_ATTEMPTS} times before finishing; given up as a failed sample`,
    );
    return target && variant
      ? failedJobSample(
          job,
          region,
          target,
          variant,
          { colo, simulated: this.env.SIMULATED_REGIONS === '1' },
          'internal',
          `the probe was stopped ${MAX_PROBE_ATTEMPTS} times before it finished (the runtime ended it, or it failed); given up`,
        )
      : null;
  }

  /** A claimed job, measured and stored; it counts as running until its row is gone (so no lane takes it again). */
  private async runOne(job: Job & { attempts: number }, region: RegionConfig, colo: string | null): Promise<void> {
    try {
      const sample = job.attempts >= MAX_PROBE_ATTEMPTS - 1 ? this.givenUp(job, region, colo) : await this.measure(job, region, colo);
      await this.store(job, sample);
    } finally {
      this.running.delete(keyOf(job));
    }
  }

  /** A job's sample to D1 (or the outbox, when D1 fails), and the job gone, in one transaction. */
  private async store(job: Job, sample: StoredSample | null): Promise<void> {
    let written = false;
    if (sample) {
      try {
        await insertSamples(this.env.DB, [sample]);
        written = true;
        this.markDirty([sample.tick_id]);
      } catch (e) {
        this.noteFlushError(e, 1);
      }
    }
    this.ctx.storage.transactionSync(() => {
      const sql = this.ctx.storage.sql;
      if (sample && !written)
        sql.exec(
          'INSERT OR IGNORE INTO outbox (tick_id, target, variant, sample) VALUES (?, ?, ?, ?)',
          job.tickId,
          job.target,
          job.variant,
          JSON.stringify(sample),
        );
      sql.exec('DELETE FROM jobs WHERE tick_id = ? AND target = ? AND variant = ?', job.tickId, job.target, job.variant);
      if (sql.exec('SELECT 1 FROM jobs WHERE tick_id = ? LIMIT 1', job.tickId).toArray().length === 0)
        sql.exec('INSERT INTO evaluations (tick_id, done) VALUES (?, 0) ON CONFLICT DO UPDATE SET done = 0', job.tickId);
    });
  }

  /** One probe; null when there is nothing to store (target gone from the config, its secret missing). */
  private async measure(job: Job, region: RegionConfig, colo: string | null): Promise<StoredSample | null> {
    const target = findTarget(job.target);
    const variant = findVariant(job.variant);
    if (!target || !variant) {
      console.error(`region ${region.code}: job for unknown target/variant ${job.target}/${job.variant} dropped (config changed)`);
      return null;
    }
    try {
      return await runJob(job, region, target, variant, getConfig(), {
        referenceUrl: this.referenceUrl(region.code),
        secrets: this.env as unknown as Record<string, unknown>,
        colo,
        simulated: this.env.SIMULATED_REGIONS === '1',
      });
    } catch (e) {
      if (e instanceof MissingSecretError) {
        this.noteMissingSecret(target.apiKeySecret ?? '');
        console.error(`region ${region.code}: ${e.message}; target skipped`);
        return null;
      }
      // The probe's own code failed around the measurement (the core itself never throws): one failed sample.
      console.error(`region ${region.code}: probe of ${job.target} failed unexpectedly; stored as an internal error`, e);
      const what = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      return failedJobSample(
        job,
        region,
        target,
        variant,
        { colo, simulated: this.env.SIMULATED_REGIONS === '1' },
        'internal',
        `probe failed: ${what}`,
      );
    }
  }

  /** Writes the outbox to D1 in batches; false (keeping every sample) when D1 fails. */
  private async flush(): Promise<boolean> {
    for (;;) {
      const rows = this.ctx.storage.sql
        .exec<Row>('SELECT tick_id, target, variant, sample FROM outbox ORDER BY tick_id LIMIT ?', FLUSH_BATCH)
        .toArray();
      if (rows.length === 0) {
        this.noteError('last_flush_error', null);
        return true;
      }
      try {
        await insertSamples(
          this.env.DB,
          rows.map((r) => JSON.parse(String(r.sample)) as StoredSample),
        );
        this.markDirty(rows.map((r) => Number(r.tick_id)));
      } catch (e) {
        this.noteFlushError(e, this.count('outbox'));
        return false;
      }
      this.ctx.storage.transactionSync(() => {
        for (const r of rows)
          this.ctx.storage.sql.exec('DELETE FROM outbox WHERE tick_id = ? AND target = ? AND variant = ?', r.tick_id, r.target, r.variant);
      });
    }
  }

  /** Each duty's last failure in a field of its own (null once it succeeds again); written only when it changes. */
  private noteError(key: 'last_flush_error' | 'last_rollup_error' | 'last_evaluation_error', message: string | null): void {
    const value = message === null ? null : message.slice(0, 200);
    if (this.getMeta(key) !== value) this.setMeta(key, value);
  }

  private noteFlushError(e: unknown, kept: number): void {
    const message = e instanceof Error ? e.message : String(e);
    this.noteError('last_flush_error', message);
    console.error(`region ${this.getMeta('region')}: D1 write failed, ${kept} sample(s) kept for retry: ${message}`);
  }

  private count(
    table: 'jobs' | 'outbox' | 'dirty_hours' | 'dirty_days' | 'otlp_pending' | 'evaluations' | 'burst_runs' | 'burst_outbox',
  ): number {
    return Number(this.ctx.storage.sql.exec(`SELECT COUNT(*) AS n FROM ${table}`).one().n);
  }

  private async colo(): Promise<string | null> {
    const checkedAt = Number(this.getMeta('colo_checked_at') ?? 0);
    if (Date.now() - checkedAt < COLO_REFRESH_MS || !this.budget.take(1)) return this.getMeta('colo');
    const colo = await fetchColo(this.env.COLO_TRACE_URL);
    this.setMeta('colo', colo);
    this.setMeta('colo_checked_at', String(Date.now()));
    return colo;
  }

  private referenceUrl(region: string): string {
    const overrides = JSON.parse(this.env.REGION_REFERENCE_URLS || '{}') as Record<string, string>;
    return overrides[region] ?? this.env.REFERENCE_URL;
  }

  private noteMissingSecret(name: string): void {
    const missing = new Set<string>(JSON.parse(this.getMeta('missing_secrets') ?? '[]'));
    if (missing.has(name)) return;
    missing.add(name);
    this.setMeta('missing_secrets', JSON.stringify([...missing]));
  }

  private getMeta(key: string): string | null {
    const row = this.ctx.storage.sql.exec<Row>('SELECT value FROM meta WHERE key = ?', key).toArray()[0];
    return row ? (row.value as string | null) : null;
  }

  private setMeta(key: string, value: string | null): void {
    this.ctx.storage.sql.exec(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      key,
      value,
    );
  }
}
