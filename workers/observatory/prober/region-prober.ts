/**
 * One regional Durable Object per configured region. A tick's jobs are queued in its own SQLite
 * storage; an alarm runs a few of them (probesPerAlarm), `concurrency` at once and never two of one
 * target at once, each alarm one small invocation well inside the CPU and subrequest limits. Each sample goes straight to D1; when D1
 * fails it waits in the object's outbox until a later alarm writes it, so nothing measured is lost.
 * Storage writes are a cost too: a probe normally costs two (its job queued, then removed).
 */
import { DurableObject } from 'cloudflare:workers';
import { findRegion, getConfig, workList, type Job } from '../config.ts';
import type { Delivery, TickState } from './tick-heartbeat.ts';
import { PLAN_LIMITS } from '../../../shared/config/plan-limits.ts';
import { SubrequestBudget } from '../subrequest-budget.ts';
import { burstTargetsStored } from '../db/bursts.ts';
import { queueBurst } from '../bursts/burst-duty.ts';
import { archiveRegionDays } from '../archive/archive-duty.ts';
import type { DayCount } from '../db/archive.ts';
import type { ArchiveTable } from '../../../shared/archive/manifest.ts';
import { BaselineCache } from '../keeper/status-evaluation.ts';
import { AccessTokenCache } from '../../../shared/probe/auth.ts';
import { ProberStore } from '../duty/prober-store.ts';
import { StoredSplitSourceBook } from './split-source-book.ts';
import {
  dutyHealth,
  FLUSH_RETRY_MS,
  runDuties,
  type DutyContext,
  type ErrorField,
  type PendingField,
  type ProberMemory,
} from '../duty/duty.ts';
import { measureJob } from './probe-duty.ts';
import type { StoredSample } from '../db/sample-row.ts';
import { PROBER_DUTIES } from './duties.ts';
import { armHeartbeat, noteDelivered, tickState } from './heartbeat-duty.ts';
import { probesOf, queueJobs } from './job-queue.ts';

export type { Delivery, TickState } from './tick-heartbeat.ts';
export { FLUSH_RETRY_MS, MAX_PROBE_ATTEMPTS } from '../duty/duty.ts';

/** Probes queued and skipped (a prompt-cache job is two: its two passes' samples). */
export interface EnqueueResult {
  queued: number;
  skipped: number;
}

/** A region's object as /api/v1/health reports it: each duty's waiting work and last failure (duty.ts). */
export interface ProberStatus extends Record<PendingField, number>, Record<ErrorField, string | null> {
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
  private readonly store: ProberStore;
  /** What a running alarm may still fetch or call (one alarm at a time runs in an object); set as each alarm starts. */
  private budget = new SubrequestBudget(0);
  private readonly memory: ProberMemory;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new ProberStore(ctx.storage);
    this.memory = {
      running: new Set<string>(),
      baselines: new BaselineCache(),
      // A token request is a subrequest of the alarm that makes it, within the share the probes leave (subrequestsAfterProbes).
      authContext: {
        tokens: new AccessTokenCache(),
        fetch: (input, init) => {
          if (!this.budget.take(1)) return Promise.reject(new Error('no subrequest left in this alarm for a token request'));
          return fetch(input, init);
        },
      },
      splitSources: new StoredSplitSourceBook(this.store),
    };
    ctx.blockConcurrencyWhile(async () => this.store.migrate(PROBER_DUTIES));
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
    for (const target of targets.filter((t) => !done.has(t))) if (queueBurst(this.store, tickId, target)) queued++;
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
    const queued = await queueJobs(this.store, this.env.DB, region, jobs);
    if (delivery) noteDelivered(this.store, delivery);
    await this.wake(queued);
    // A tick with no work here (spread over ticks) still moves the heartbeat on.
    if (queued === 0) await armHeartbeat(this.store);
    return { queued, skipped: jobs.reduce((n, j) => n + probesOf(j), 0) - queued };
  }

  /** An alarm now when there is new work, unless one is due sooner (a heartbeat waiting for the next tick is later). */
  private async wake(queued: number): Promise<void> {
    if (queued === 0) return;
    const alarm = await this.ctx.storage.getAlarm();
    if (alarm === null || alarm > Date.now()) await this.ctx.storage.setAlarm(Date.now());
  }

  /** Archives these ended days of the region to R2 (archive-duty.ts): the days confirmed, which retention may delete. */
  async archiveDays(region: string, days: DayCount[], table: ArchiveTable = 'samples'): Promise<number[]> {
    return archiveRegionDays(this.store, this.env.DB, this.env.ARCHIVE, region, days, table);
  }

  async status(): Promise<ProberStatus> {
    return {
      region: this.store.meta('region'),
      colo: this.store.meta('colo'),
      ...dutyHealth(PROBER_DUTIES, this.store),
      // Those noted missing and still unset: a key added since (a new .dev.vars, `wrangler secret put`) is no longer named.
      missingSecrets: (JSON.parse(this.store.meta('missing_secrets') ?? '[]') as string[]).filter((name) => {
        const value = (this.env as unknown as Record<string, unknown>)[name];
        return typeof value !== 'string' || value === '';
      }),
      ticks: tickState(this.store),
    };
  }

  /** The duties' steps in order (duties.ts) until one asks for the alarm again now, or after FLUSH_RETRY_MS. */
  override async alarm(info?: AlarmInvocationInfo): Promise<void> {
    const config = getConfig();
    const regionCode = this.store.meta('region');
    const region = regionCode ? findRegion(regionCode) : undefined;
    if (!region) return;
    this.budget = new SubrequestBudget(PLAN_LIMITS[config.plan].subrequestsPerInvocation);
    const outcome = await runDuties(PROBER_DUTIES, {
      store: this.store,
      env: this.env,
      region,
      referenceUrl: this.referenceUrl(region.code),
      budget: this.budget,
      retry: info?.isRetry === true,
      memory: this.memory,
      measure: (job, ctx, colo) => this.measure(job, ctx, colo),
    });
    if (outcome === 'again' || outcome === 'retry') {
      await this.ctx.storage.setAlarm(Date.now() + (outcome === 'again' ? 0 : FLUSH_RETRY_MS));
      return;
    }
    if (outcome === 'failed' && (await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + FLUSH_RETRY_MS);
    await armHeartbeat(this.store);
  }

  /** One job measured (probe-duty.ts): a method of the object, where a test can watch each probe. */
  private measure(job: Job, ctx: DutyContext, colo: string | null): Promise<StoredSample[] | null> {
    return measureJob(ctx, job, colo);
  }

  private referenceUrl(region: string): string {
    const overrides = JSON.parse(this.env.REGION_REFERENCE_URLS || '{}') as Record<string, string>;
    return overrides[region] ?? this.env.REFERENCE_URL;
  }
}
