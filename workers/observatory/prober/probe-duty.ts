/**
 * A region object's probe duty: the queued jobs (job-queue.ts), a few per alarm (probesPerAlarm),
 * `concurrency` at once and never two of one target at once. Each job's samples go straight to D1; when
 * D1 fails they wait in the sample outbox (sample-outbox.ts). A job whose alarms keep stopping before it
 * finishes is given up as a failed sample of its own (MAX_PROBE_ATTEMPTS).
 */
import { findTarget, findVariant, getConfig, warmPassOf, type Job } from '../config.ts';
import { maxSubrequestsPerJob, probesPerAlarm, subrequestsAfterProbes, subrequestsPerJob } from '../../../shared/config/schedule.ts';
import type { PromptVariantConfig, RegionConfig, TargetConfig } from '../../../shared/config/types.ts';
import { redact } from '../../../shared/probe/error-detail.ts';
import type { StoredSample } from '../db/sample-row.ts';
import { insertSamples } from '../db/samples.ts';
import { oweEvaluation } from './evaluation-duty.ts';
import { oweRollupsOf } from '../rollup/rollup-duty.ts';
import { COLO_REFRESH_MS, fetchColo } from '../probe/colo.ts';
import { MAX_PROBE_ATTEMPTS, type Duty, type DutyContext } from '../duty/duty.ts';
import { countAttempt, JOB_TABLES, nextJob, removeJob, upgradeJobs, type QueuedJob } from './job-queue.ts';
import { failedJobSample, MissingSecretError, runCacheJob, runJob } from '../probe/probe-job.ts';
import { jobKey, type JobKey, type ProberStore } from '../duty/prober-store.ts';
import { keepSamples, noteFlushError } from './sample-outbox.ts';
import { secretValues } from '../secret-values.ts';

const secretsOf = (env: Env) => env as unknown as Record<string, unknown>;

/** A job done, in one transaction: its samples D1 did not take into the outbox, the job gone, and its tick owed its evaluation once it was the tick's last job here. */
function finishJob(store: ProberStore, job: JobKey, unwritten: readonly StoredSample[]): void {
  store.transaction(() => {
    keepSamples(store, job, unwritten);
    if (removeJob(store, job)) oweEvaluation(store, job.tickId);
  });
}

async function colo(ctx: DutyContext): Promise<string | null> {
  const { store, env, budget } = ctx;
  const checkedAt = Number(store.meta('colo_checked_at') ?? 0);
  if (Date.now() - checkedAt < COLO_REFRESH_MS || !budget.take(1)) return store.meta('colo');
  const found = await fetchColo(env.COLO_TRACE_URL);
  store.setMeta('colo', found);
  store.setMeta('colo_checked_at', String(Date.now()));
  return found;
}

function noteMissingSecret(store: ProberStore, name: string): void {
  const missing = new Set<string>(JSON.parse(store.meta('missing_secrets') ?? '[]'));
  if (missing.has(name)) return;
  missing.add(name);
  store.setMeta('missing_secrets', JSON.stringify([...missing]));
}

/**
 * The oldest queued job whose target is not being probed here now, or null. `counted`: its attempt
 * is written down first (only after an alarm that did not finish: a normal claim costs no write).
 */
function claimNext(ctx: DutyContext, counted: boolean): QueuedJob | null {
  const running = ctx.memory.running;
  const busy = [...new Set([...running].map((key) => key.split('|')[1]))];
  const job = nextJob(ctx.store, busy);
  if (!job) return null;
  if (counted && job.attempts < MAX_PROBE_ATTEMPTS - 1) countAttempt(ctx.store, job);
  running.add(jobKey(job));
  return job;
}

/** The `internal` failure of a job that never got to measure: a sample for each request it owed. */
function failedSamples(
  ctx: DutyContext,
  job: Job,
  target: TargetConfig,
  variant: PromptVariantConfig,
  colo: string | null,
  detail: string,
): StoredSample[] {
  const warm = variant.promptCache ? warmPassOf(variant.id) : undefined;
  return [variant, ...(warm ? [warm] : [])].map((v, i) => {
    const sample = failedJobSample(
      job,
      ctx.region,
      target,
      v,
      { colo, simulated: ctx.env.SIMULATED_REGIONS === '1' },
      'internal',
      detail,
      secretValues(secretsOf(ctx.env)),
    );
    if (warm) sample.cache_pass = i + 1;
    return sample;
  });
}

/** A job whose alarms kept stopping before it finished: one failed sample (each pass's, for a prompt-cache job) instead of another run. */
function givenUp(ctx: DutyContext, job: Job, colo: string | null): StoredSample[] | null {
  const target = findTarget(job.target);
  const variant = findVariant(job.variant);
  console.error(
    `region ${ctx.region.code}: probe of ${job.target} (tick ${job.tickId}) stopped ${MAX_PROBE_ATTEMPTS} times before finishing; given up as a failed sample`,
  );
  return target && variant
    ? failedSamples(
        ctx,
        job,
        target,
        variant,
        colo,
        `the probe was stopped ${MAX_PROBE_ATTEMPTS} times before it finished (the runtime ended it, or it failed); given up`,
      )
    : null;
}

/** One job's samples (a prompt-cache job's two passes); null when there is nothing to store (target gone from the config, its secret missing). */
export async function measureJob(ctx: DutyContext, job: Job, colo: string | null): Promise<StoredSample[] | null> {
  const region: RegionConfig = ctx.region;
  const target = findTarget(job.target);
  const variant = findVariant(job.variant);
  if (!target || !variant) {
    console.error(`region ${region.code}: job for unknown target/variant ${job.target}/${job.variant} dropped (config changed)`);
    return null;
  }
  const env = {
    referenceUrl: ctx.referenceUrl,
    secrets: secretsOf(ctx.env),
    colo,
    simulated: ctx.env.SIMULATED_REGIONS === '1',
    authContext: ctx.memory.authContext,
    splitSources: ctx.memory.splitSources,
  };
  try {
    const warm = variant.promptCache ? warmPassOf(variant.id) : undefined;
    if (warm) return await runCacheJob(job, region, target, variant, warm, getConfig(), env);
    return [await runJob(job, region, target, variant, getConfig(), env)];
  } catch (e) {
    if (e instanceof MissingSecretError) {
      noteMissingSecret(ctx.store, e.secret);
      console.error(`region ${region.code}: ${e.message}; target skipped`);
      return null;
    }
    // The probe's own code failed around the measurement (the core itself never throws): one failed sample. The log
    // gets what the sample gets, redacted (an exception's message or stack may quote a key), never the raw exception.
    const what = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    console.error(
      `region ${region.code}: probe of ${job.target} failed unexpectedly; stored as an internal error: ${redact(what, secretValues(secretsOf(ctx.env)))}`,
    );
    return failedSamples(ctx, job, target, variant, colo, `probe failed: ${what}`);
  }
}

/** A job's samples to D1 (or the outbox, when D1 fails), and the job gone, in one transaction. */
async function save(ctx: DutyContext, job: Job, samples: StoredSample[] | null): Promise<void> {
  let written = false;
  if (samples) {
    try {
      await insertSamples(ctx.env.DB, samples);
      written = true;
      oweRollupsOf(ctx.store, [job.tickId]);
    } catch (e) {
      noteFlushError(ctx.store, e, samples.length);
    }
  }
  finishJob(ctx.store, job, samples && !written ? samples : []);
}

/** A claimed job, measured and stored; it counts as running until its row is gone (so no lane takes it again). */
async function runOne(ctx: DutyContext, job: QueuedJob, colo: string | null): Promise<void> {
  try {
    const sample = job.attempts >= MAX_PROBE_ATTEMPTS - 1 ? givenUp(ctx, job, colo) : await ctx.measure(job, ctx, colo);
    await save(ctx, job, sample);
  } finally {
    ctx.memory.running.delete(jobKey(job));
  }
}

/**
 * Runs up to `budget` queued probes, `lanes` at a time: each lane takes the oldest job whose target
 * no other probe here is measuring (two probes of one target would queue behind each other at the
 * vendor), and the next one as soon as its probe ends. Returns how many ran.
 */
async function runProbes(ctx: DutyContext, lanes: number, budget: number, counted: boolean): Promise<number> {
  const { store, budget: subrequests } = ctx;
  const running = ctx.memory.running;
  let started = 0;
  if (store.count('jobs') <= running.size) return 0;
  const here = await colo(ctx);
  const config = getConfig();
  // The most a job takes, set aside before claiming one; what the claimed job will not use goes back.
  const perProbe = maxSubrequestsPerJob(config);
  let failed = false;
  const lane = async (): Promise<void> => {
    while (started < budget && !failed) {
      // A job's streams and round trips, while enough is left for what the alarm does after the probes.
      if (store.count('jobs') <= running.size || !subrequests.take(perProbe, subrequestsAfterProbes(config))) return;
      const job = claimNext(ctx, counted);
      if (!job) {
        subrequests.refund(perProbe);
        return;
      }
      const variant = findVariant(job.variant);
      subrequests.refund(perProbe - (variant ? subrequestsPerJob(config, variant) : 1 + config.rttProbes));
      started++;
      try {
        await runOne(ctx, job, here);
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

export const probeDuty: Duty = {
  name: 'probes',
  tables: JOB_TABLES,
  upgrade: upgradeJobs,
  pending: (store) => store.count('jobs'),
  // After an alarm that did not finish, one probe at a time, each claim counted: the job that keeps
  // stopping its alarm is then the one being counted, and it is given up (claimNext).
  async run(ctx) {
    const config = getConfig();
    await runProbes(ctx, ctx.retry ? 1 : config.concurrency, probesPerAlarm(config), ctx.retry);
    return ctx.store.count('jobs') > ctx.memory.running.size ? 'again' : 'done';
  },
  healthKey: 'queued',
  errors: [],
};
