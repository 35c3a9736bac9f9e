/**
 * One regional Durable Object per configured region. A tick's jobs are queued in its own SQLite
 * storage; an alarm runs a few of them (probesPerAlarm), `concurrency` at once and never two of one
 * target at once, each alarm one small invocation well inside the CPU and subrequest limits. Each sample goes straight to D1; when D1
 * fails it waits in the object's outbox until a later alarm writes it, so nothing measured is lost.
 * Storage writes are a cost too: a probe normally costs two (its job queued, then removed).
 */
import { DurableObject } from 'cloudflare:workers';
import { findRegion, findTarget, findVariant, getCapacity, getConfig, tickJobs, warmPassOf, workList, type Job } from '../config.ts';
import { afterDelivery, cadenceOf, heartbeatDue, heartbeatVerdict, type Delivery, type TickState } from './tick-heartbeat.ts';
import { PLAN_LIMITS } from '../../../shared/config/plan-limits.ts';
import { maxSubrequestsPerJob, probesPerAlarm, subrequestsAfterProbes, subrequestsPerJob } from '../../../shared/config/schedule.ts';
import { requestsPerJob } from '../../../shared/config/work-list.ts';
import { SubrequestBudget } from './subrequest-budget.ts';
import { burstTargetsStored } from '../db/bursts.ts';
import { flushBurstOutbox, runOwedBurst } from '../bursts/burst-queue.ts';
import { COLO_REFRESH_MS, fetchColo } from './colo.ts';
import { failedJobSample, MissingSecretError, runCacheJob, runJob } from './probe-job.ts';
import { secretValues } from './secret-values.ts';
import { insertSamples, storedKeys } from '../db/samples.ts';
import { hourOf } from '../../../shared/rollup/rollup.ts';
import { pushPendingToOtlp, rollUpDirtyHours } from '../rollup/rollup-duty.ts';
import { archiveRegionDays } from '../archive/archive-duty.ts';
import { markViews } from '../views/mark-views.ts';
import type { ViewPartName } from '../views/parts.ts';
import { redact } from '../../../shared/probe/error-detail.ts';
import type { DayCount } from '../db/archive.ts';
import type { ArchiveTable } from '../../../shared/archive/manifest.ts';
import { BaselineCache, evaluatePendingTicks } from '../keeper/status-evaluation.ts';
import type { StoredSample } from '../db/sample-row.ts';
import { AccessTokenCache, type AuthContext } from '../../../shared/probe/auth.ts';
import { jobKey, ProberStore, type DutyErrorKey, type QueuedJob } from './prober-store.ts';
import { StoredSplitSourceBook } from './split-source-book.ts';
import type { PromptVariantConfig, RegionConfig, TargetConfig } from '../../../shared/config/types.ts';

export type { Delivery, TickState } from './tick-heartbeat.ts';

/** Wait before retrying to write the outbox after D1 failed. */
export const FLUSH_RETRY_MS = 30_000;
/** Samples written to D1 per batch when the outbox is flushed. */
const FLUSH_BATCH = 50;
/**
 * Runs of one job whose alarm did not live to finish it (the runtime stopped it, or it threw) before the
 * job is given up as a failed sample of its own: a poisoned stream never blocks its region.
 */
export const MAX_PROBE_ATTEMPTS = 3;

/** Probes queued and skipped (a prompt-cache job is two: its two passes' samples). */
export interface EnqueueResult {
  queued: number;
  skipped: number;
}

/** The samples a job stores: two for a prompt-cache job. */
const probesOf = (job: Job): number => {
  const variant = findVariant(job.variant);
  return variant ? requestsPerJob(variant) : 1;
};

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
  /** The last failed concurrency run, or failed D1 write of its samples (they wait in the burst outbox). */
  lastBurstError: string | null;
  /** The last failed archive of an ended day to R2 (its samples stay in D1; archive-duty.ts). */
  lastArchiveError: string | null;
  /** The same for the concurrency streams' archive, and the hourly rollups'. */
  lastBurstArchiveError: string | null;
  lastRollupArchiveError: string | null;
  missingSecrets: string[];
  ticks: TickState | null;
}

export class RegionProber extends DurableObject<Env> {
  /** Jobs an alarm of this instance is running now (a job leaves the table only once it is done). */
  private readonly running = new Set<string>();
  private readonly baselines = new BaselineCache();
  private readonly store: ProberStore;
  /**
   * Service-account tokens of this region (never stored, never logged); a token request is a subrequest of
   * the alarm that makes it, within the share the probes leave (subrequestsAfterProbes).
   */
  private readonly authContext: AuthContext = {
    tokens: new AccessTokenCache(),
    fetch: (input, init) => {
      if (!this.budget.take(1)) return Promise.reject(new Error('no subrequest left in this alarm for a token request'));
      return fetch(input, init);
    },
  };
  /** What the running alarm may still fetch or call (one alarm at a time runs in an object); set as each alarm starts. */
  private budget = new SubrequestBudget(0);
  /** Each target's split sources here (shared/probe/split-sources.ts), kept in this object's storage. */
  private readonly splitSources: StoredSplitSourceBook;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new ProberStore(ctx.storage);
    this.splitSources = new StoredSplitSourceBook(this.store);
    ctx.blockConcurrencyWhile(async () => this.store.migrate());
  }

  /**
   * Queues a concurrency run of every target here that opted in. Run by the alarm once no regular
   * job is waiting, one target at a time, so a burst never overlaps this region's own probes.
   */
  async enqueueBursts(region: string, tickId: number): Promise<EnqueueResult> {
    if (this.store.meta('region') !== region) this.store.setMeta('region', region);
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
    for (const target of targets.filter((t) => !done.has(t))) if (this.store.queueBurst(tickId, target)) queued++;
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
    if (this.store.meta('region') !== region) this.store.setMeta('region', region);
    const queued = await this.queue(region, jobs);
    if (delivery) this.noteDelivered(delivery);
    await this.wake(queued);
    // A tick with no work here (spread over ticks) still moves the heartbeat on.
    if (queued === 0) await this.armHeartbeat();
    return { queued, skipped: jobs.reduce((n, j) => n + probesOf(j), 0) - queued };
  }

  /** Jobs into the queue (those D1 does not hold yet); the probes (samples to come) of those that were new. */
  private async queue(region: string, jobs: Job[]): Promise<number> {
    let stored = new Set<string>();
    try {
      stored = await storedKeys(this.env.DB, region, [...new Set(jobs.map((j) => j.tickId))]);
    } catch (e) {
      console.error(`region ${region}: could not check D1 for stored samples (${e instanceof Error ? e.message : e}); queueing all`);
    }
    let queued = 0;
    for (const job of jobs) {
      if (stored.has(jobKey(job))) continue;
      if (this.store.queueJob(job)) queued += probesOf(job);
    }
    return queued;
  }

  /** An alarm now when there is new work, unless one is due sooner (a heartbeat waiting for the next tick is later). */
  private async wake(queued: number): Promise<void> {
    if (queued === 0) return;
    const alarm = await this.ctx.storage.getAlarm();
    if (alarm === null || alarm > Date.now()) await this.ctx.storage.setAlarm(Date.now());
  }

  /** A delivered tick of the schedule (tick-heartbeat.ts's afterDelivery); a retried or stray older one writes nothing. */
  private noteDelivered(delivery: Delivery): void {
    const before = this.store.tickState();
    const next = afterDelivery(before, delivery);
    if (JSON.stringify(next) !== JSON.stringify(before)) this.store.setTickState(next);
  }

  /** Idle: the heartbeat's alarm waits for the next tick (and is moved to now when it comes). */
  private async armHeartbeat(): Promise<void> {
    const ticks = this.store.tickState();
    if (ticks?.heartbeat && (await this.ctx.storage.getAlarm()) === null)
      await this.ctx.storage.setAlarm(heartbeatDue(ticks.newest, cadenceOf(getCapacity().tickMinutes)));
  }

  /**
   * The heartbeat (tick-heartbeat.ts): when the tick after the newest one here is overdue, this
   * region's share of it is queued, flagged late. True when jobs were queued.
   */
  private async runLateTick(region: string): Promise<boolean> {
    const state = this.store.tickState();
    if (!state?.heartbeat) return false;
    const verdict = heartbeatVerdict(Date.now(), state.newest, state.delivered, cadenceOf(getCapacity().tickMinutes));
    if (verdict.kind === 'waiting') return false;
    if (verdict.kind === 'stopped') {
      console.warn(
        `region ${region}: no tick delivered for ${verdict.ticksWithoutDelivery} ticks; taking the schedule to be stopped, waiting for the next tick it sends`,
      );
      this.store.setTickState({ ...state, heartbeat: false });
      return false;
    }
    const queued = await this.queue(region, tickJobs(region, verdict.tickId, { late: true }));
    this.store.setTickState({ ...state, newest: verdict.tickId, late: state.late + 1, missed: state.missed + verdict.missed });
    console.warn(
      `region ${region}: tick ${new Date(verdict.tickId).toISOString()} never came; run here, late (${queued} probes${verdict.missed > 0 ? `; ${verdict.missed} tick(s) before it missed` : ''})`,
    );
    return queued > 0;
  }

  /** Archives these ended days of the region to R2 (archive-duty.ts): the days confirmed, which retention may delete. */
  async archiveDays(region: string, days: DayCount[], table: ArchiveTable = 'samples'): Promise<number[]> {
    return archiveRegionDays(this.store, this.env.DB, this.env.ARCHIVE, region, days, table);
  }

  async status(): Promise<ProberStatus> {
    return {
      region: this.store.meta('region'),
      queued: this.store.count('jobs'),
      outbox: this.store.count('outbox') + this.store.count('burst_outbox'),
      pendingRollups: this.store.count('dirty_hours') + this.store.count('dirty_days'),
      pendingEvaluations: this.store.countPendingEvaluations(),
      pendingBursts: this.store.count('burst_runs'),
      pendingOtlp: this.store.count('otlp_pending'),
      lastOtlpError: this.store.meta('last_otlp_error'),
      colo: this.store.meta('colo'),
      lastFlushError: this.store.meta('last_flush_error'),
      lastRollupError: this.store.meta('last_rollup_error'),
      lastEvaluationError: this.store.meta('last_evaluation_error'),
      lastBurstError: this.store.meta('last_burst_error'),
      lastArchiveError: this.store.meta('last_archive_error'),
      lastBurstArchiveError: this.store.meta('last_burst_archive_error'),
      lastRollupArchiveError: this.store.meta('last_rollup_archive_error'),
      // Those noted missing and still unset: a key added since (a new .dev.vars, `wrangler secret put`) is no longer named.
      missingSecrets: (JSON.parse(this.store.meta('missing_secrets') ?? '[]') as string[]).filter((name) => {
        const value = (this.env as unknown as Record<string, unknown>)[name];
        return typeof value !== 'string' || value === '';
      }),
      ticks: this.store.tickState(),
    };
  }

  override async alarm(info?: AlarmInvocationInfo): Promise<void> {
    const config = getConfig();
    const regionCode = this.store.meta('region');
    const region = regionCode ? findRegion(regionCode) : undefined;
    if (!region) return;
    // After an alarm that did not finish, one probe at a time, each claim counted: the job that keeps
    // stopping its alarm is then the one being counted, and it is given up (claimNext).
    const retry = info?.isRetry === true;
    this.budget = new SubrequestBudget(PLAN_LIMITS[config.plan].subrequestsPerInvocation);
    await this.runProbes(region, retry ? 1 : config.concurrency, probesPerAlarm(config), retry);
    if (this.store.count('jobs') > this.running.size || (await this.runLateTick(regionCode!))) {
      await this.ctx.storage.setAlarm(Date.now());
      return;
    }
    if (
      (this.store.count('outbox') > 0 && !(await this.flush())) ||
      (this.store.count('burst_outbox') > 0 && !(await flushBurstOutbox(this.store, this.env.DB, regionCode!)))
    ) {
      await this.ctx.storage.setAlarm(Date.now() + FLUSH_RETRY_MS);
      return;
    }
    const rolled = await this.rollUp(regionCode!);
    const evaluated = await this.evaluatePending(regionCode!);
    // Concurrency runs last, one target per alarm, once the tick's own probes, rollups and evaluations are done.
    if (this.store.count('burst_runs') > 0) {
      const ran = await runOwedBurst(this.store, this.env, region, this.referenceUrl(region.code), MAX_PROBE_ATTEMPTS);
      await this.ctx.storage.setAlarm(Date.now() + (ran ? 0 : FLUSH_RETRY_MS));
      return;
    }
    if ((!rolled || !evaluated) && (await this.ctx.storage.getAlarm()) === null)
      await this.ctx.storage.setAlarm(Date.now() + FLUSH_RETRY_MS);
    await this.armHeartbeat();
  }

  /** The rollups owed (rollup-duty.ts), then their OTLP push; false when a rollup failed (kept for retry). */
  private async rollUp(region: string): Promise<boolean> {
    const { ok, rolled, days } = await rollUpDirtyHours(this.store, this.env.DB, region, Date.now());
    // The views of rollups (percentiles, the timeline, the scrape of the running totals, the paired comparisons and
    // prompt caches; the catalog with them) are built anew; the time profiles and the TTFA changes when a day was written.
    const parts: ViewPartName[] = ['percentiles', 'catalog', 'timeline', 'metrics', 'compare', 'prompt-cache'];
    if (rolled > 0) await markViews(this.env, days > 0 ? [...parts, 'profiles', 'changes'] : parts);
    if (!ok) return false;
    if (!(await pushPendingToOtlp(this.store, this.env, region, this.budget)) && (await this.ctx.storage.getAlarm()) === null)
      await this.ctx.storage.setAlarm(Date.now() + FLUSH_RETRY_MS);
    return true;
  }

  /** The status rules' evaluation of every finished tick (status-evaluation.ts); false when one failed (kept for retry). */
  private async evaluatePending(region: string): Promise<boolean> {
    const failed = await evaluatePendingTicks(
      this.store,
      this.env.DB,
      this.env.STATUS_KEEPER.getByName('global'),
      region,
      this.baselines,
      this.budget,
    );
    this.noteError('last_evaluation_error', failed);
    return failed === null;
  }

  private markDirty(tickIds: number[]): void {
    this.store.markDirtyHours(new Set(tickIds.map(hourOf)));
  }

  /**
   * Runs up to `budget` queued probes, `lanes` at a time: each lane takes the oldest job whose target
   * no other probe here is measuring (two probes of one target would queue behind each other at the
   * vendor), and the next one as soon as its probe ends. Returns how many ran.
   */
  private async runProbes(region: RegionConfig, lanes: number, budget: number, counted: boolean): Promise<number> {
    const subrequests = this.budget;
    let started = 0;
    if (this.store.count('jobs') <= this.running.size) return 0;
    const colo = await this.colo();
    const config = getConfig();
    // The most a job takes, set aside before claiming one; what the claimed job will not use goes back.
    const perProbe = maxSubrequestsPerJob(config);
    let failed = false;
    const lane = async (): Promise<void> => {
      while (started < budget && !failed) {
        // A job's streams and round trips, while enough is left for what the alarm does after the probes.
        if (this.store.count('jobs') <= this.running.size || !subrequests.take(perProbe, subrequestsAfterProbes(config))) return;
        const job = this.claimNext(counted);
        if (!job) {
          subrequests.refund(perProbe);
          return;
        }
        const variant = findVariant(job.variant);
        subrequests.refund(perProbe - (variant ? subrequestsPerJob(config, variant) : 1 + config.rttProbes));
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
  private claimNext(counted: boolean): QueuedJob | null {
    const busy = [...new Set([...this.running].map((key) => key.split('|')[1]))];
    const job = this.store.nextJob(busy);
    if (!job) return null;
    if (counted && job.attempts < MAX_PROBE_ATTEMPTS - 1) this.store.countAttempt(job);
    this.running.add(jobKey(job));
    return job;
  }

  /** A job whose alarms kept stopping before it finished: one failed sample (each pass's, for a prompt-cache job) instead of another run. */
  private givenUp(job: Job, region: RegionConfig, colo: string | null): StoredSample[] | null {
    const target = findTarget(job.target);
    const variant = findVariant(job.variant);
    console.error(
      `region ${region.code}: probe of ${job.target} (tick ${job.tickId}) stopped ${MAX_PROBE_ATTEMPTS} times before finishing; given up as a failed sample`,
    );
    return target && variant
      ? this.failedSamples(
          job,
          region,
          target,
          variant,
          colo,
          `the probe was stopped ${MAX_PROBE_ATTEMPTS} times before it finished (the runtime ended it, or it failed); given up`,
        )
      : null;
  }

  /** The `internal` failure of a job that never got to measure: a sample for each request it owed. */
  private failedSamples(
    job: Job,
    region: RegionConfig,
    target: TargetConfig,
    variant: PromptVariantConfig,
    colo: string | null,
    detail: string,
  ): StoredSample[] {
    const warm = variant.promptCache ? warmPassOf(variant.id) : undefined;
    return [variant, ...(warm ? [warm] : [])].map((v, i) => {
      const sample = failedJobSample(
        job,
        region,
        target,
        v,
        { colo, simulated: this.env.SIMULATED_REGIONS === '1' },
        'internal',
        detail,
        secretValues(this.env as unknown as Record<string, unknown>),
      );
      if (warm) sample.cache_pass = i + 1;
      return sample;
    });
  }

  /** A claimed job, measured and stored; it counts as running until its row is gone (so no lane takes it again). */
  private async runOne(job: QueuedJob, region: RegionConfig, colo: string | null): Promise<void> {
    try {
      const sample = job.attempts >= MAX_PROBE_ATTEMPTS - 1 ? this.givenUp(job, region, colo) : await this.measure(job, region, colo);
      await this.save(job, sample);
    } finally {
      this.running.delete(jobKey(job));
    }
  }

  /** A job's samples to D1 (or the outbox, when D1 fails), and the job gone, in one transaction. */
  private async save(job: Job, samples: StoredSample[] | null): Promise<void> {
    let written = false;
    if (samples) {
      try {
        await insertSamples(this.env.DB, samples);
        written = true;
        this.markDirty([job.tickId]);
      } catch (e) {
        this.noteFlushError(e, samples.length);
      }
    }
    this.store.finishJob(job, samples && !written ? samples : []);
  }

  /** One job's samples (a prompt-cache job's two passes); null when there is nothing to store (target gone from the config, its secret missing). */
  private async measure(job: Job, region: RegionConfig, colo: string | null): Promise<StoredSample[] | null> {
    const target = findTarget(job.target);
    const variant = findVariant(job.variant);
    if (!target || !variant) {
      console.error(`region ${region.code}: job for unknown target/variant ${job.target}/${job.variant} dropped (config changed)`);
      return null;
    }
    const env = {
      referenceUrl: this.referenceUrl(region.code),
      secrets: this.env as unknown as Record<string, unknown>,
      colo,
      simulated: this.env.SIMULATED_REGIONS === '1',
      authContext: this.authContext,
      splitSources: this.splitSources,
    };
    try {
      const warm = variant.promptCache ? warmPassOf(variant.id) : undefined;
      if (warm) return await runCacheJob(job, region, target, variant, warm, getConfig(), env);
      return [await runJob(job, region, target, variant, getConfig(), env)];
    } catch (e) {
      if (e instanceof MissingSecretError) {
        this.noteMissingSecret(e.secret);
        console.error(`region ${region.code}: ${e.message}; target skipped`);
        return null;
      }
      // The probe's own code failed around the measurement (the core itself never throws): one failed sample. The log
      // gets what the sample gets, redacted (an exception's message or stack may quote a key), never the raw exception.
      const what = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      console.error(
        `region ${region.code}: probe of ${job.target} failed unexpectedly; stored as an internal error: ${redact(what, secretValues(this.env as unknown as Record<string, unknown>))}`,
      );
      return this.failedSamples(job, region, target, variant, colo, `probe failed: ${what}`);
    }
  }

  /** Writes the outbox to D1 in batches; false (keeping every sample) when D1 fails. */
  private async flush(): Promise<boolean> {
    for (;;) {
      const batch = this.store.outboxBatch(FLUSH_BATCH);
      if (batch.length === 0) {
        this.noteError('last_flush_error', null);
        return true;
      }
      try {
        await insertSamples(
          this.env.DB,
          batch.map((b) => b.sample),
        );
        this.markDirty(batch.map((b) => b.job.tickId));
      } catch (e) {
        this.noteFlushError(e, this.store.count('outbox'));
        return false;
      }
      this.store.removeFromOutbox(batch.map((b) => b.job));
    }
  }

  private noteError(key: DutyErrorKey, message: string | null): void {
    this.store.noteDutyError(key, message);
  }

  private noteFlushError(e: unknown, kept: number): void {
    const message = e instanceof Error ? e.message : String(e);
    this.noteError('last_flush_error', `D1 write of samples failed, ${kept} kept for retry: ${message}`);
    console.error(`region ${this.store.meta('region')}: D1 write failed, ${kept} sample(s) kept for retry: ${message}`);
  }

  private async colo(): Promise<string | null> {
    const checkedAt = Number(this.store.meta('colo_checked_at') ?? 0);
    if (Date.now() - checkedAt < COLO_REFRESH_MS || !this.budget.take(1)) return this.store.meta('colo');
    const colo = await fetchColo(this.env.COLO_TRACE_URL);
    this.store.setMeta('colo', colo);
    this.store.setMeta('colo_checked_at', String(Date.now()));
    return colo;
  }

  private referenceUrl(region: string): string {
    const overrides = JSON.parse(this.env.REGION_REFERENCE_URLS || '{}') as Record<string, string>;
    return overrides[region] ?? this.env.REFERENCE_URL;
  }

  private noteMissingSecret(name: string): void {
    const missing = new Set<string>(JSON.parse(this.store.meta('missing_secrets') ?? '[]'));
    if (missing.has(name)) return;
    missing.add(name);
    this.store.setMeta('missing_secrets', JSON.stringify([...missing]));
  }
}
