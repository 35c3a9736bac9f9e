/** Runs one job with the measurement core and stamps where it was really taken. */
import { runProbe } from '../../../shared/probe/probe.ts';
import { emptySample } from '../../../shared/sample-fields.ts';
import { safeDetail } from '../../../shared/probe/error-detail.ts';
import { METHOD_VERSION } from '../../../shared/constants.ts';
import type { ErrorClass, Sample } from '../../../shared/types.ts';
import { measureRtt } from '../../../shared/probe/rtt.ts';
import { randomNonce } from '../../../shared/probe/prompt.ts';
import { coloOutsideRegion } from '../../../shared/config/colos.ts';
import type { ProbeTarget } from '../../../shared/types.ts';
import type { RegionConfig, TargetConfig, PromptVariantConfig, ObservatoryConfig } from '../../../shared/config/types.ts';
import type { StoredSample } from '../db/sample-row.ts';
import type { Job } from '../config.ts';
import { secretValues } from '../secret-values.ts';
import { parseServiceAccount, type AuthContext, type ResolvedAuth } from '../../../shared/probe/auth.ts';
import type { SplitSourceBook } from '../../../shared/probe/split-sources.ts';

export interface ProbeEnvironment {
  referenceUrl: string;
  secrets: Record<string, unknown>;
  colo: string | null;
  simulated: boolean;
  /** The region object's service-account tokens, and the fetch that counts token requests (probe/auth.ts). */
  authContext?: AuthContext;
  /** The region object's book of each target's split sources (probe/split-sources.ts). */
  splitSources?: SplitSourceBook;
}

export class MissingSecretError extends Error {
  /** The secret's name (never its value). */
  readonly secret: string;

  constructor(message: string, secret: string) {
    super(message);
    this.secret = secret;
  }
}

/**
 * A deployed Worker's clock stands still while code runs and moves on only at I/O: without a fresh
 * I/O boundary, t0 would read the time of the last I/O, before the probe's preparation (and, on the
 * first probe of an isolate, its warm-up). A zero timer is such a boundary.
 */
const clockAdvance = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** A Worker secret's value; a missing or empty one stops the target (it is skipped, and health names the secret). */
function secretValue(env: ProbeEnvironment, name: string, target: string): string {
  const value = env.secrets[name];
  if (typeof value !== 'string' || value === '') throw new MissingSecretError(`secret ${name} for target ${target} is not set`, name);
  return value;
}

/**
 * A target's `auth` with its secrets read (config/types.ts AuthConfig). A reference target whose auth
 * secrets are not set (the local test credentials, where deployed) uses the endpoint's own key instead.
 */
function resolveAuth(t: TargetConfig, env: ProbeEnvironment): ResolvedAuth | undefined {
  const a = t.auth;
  if (!a) return undefined;
  if (t.reference) {
    const names = a.type === 'aws-sigv4' ? [a.accessKeyIdSecret, a.secretAccessKeySecret] : [a.secret];
    if (names.some((n) => typeof env.secrets[n] !== 'string' || env.secrets[n] === '')) return undefined;
  }
  switch (a.type) {
    case 'header':
      return { type: 'header', name: a.name, value: secretValue(env, a.secret, t.id) };
    case 'aws-sigv4':
      return {
        type: 'aws-sigv4',
        region: a.region ?? null,
        accessKeyId: secretValue(env, a.accessKeyIdSecret, t.id),
        secretAccessKey: secretValue(env, a.secretAccessKeySecret, t.id),
        sessionToken: a.sessionTokenSecret ? secretValue(env, a.sessionTokenSecret, t.id) : undefined,
      };
    case 'google-service-account': {
      const json = secretValue(env, a.secret, t.id);
      try {
        return { type: 'google-service-account', key: parseServiceAccount(json), mode: a.mode ?? 'token-exchange' };
      } catch (e) {
        throw new MissingSecretError(
          `secret ${a.secret} for target ${t.id} is not a service-account key file: ${(e as Error).message}`,
          a.secret,
        );
      }
    }
  }
}

/** The probe's target, with {REFERENCE_URL} filled in and the key read from the Worker's secrets. */
export function resolveTarget(t: TargetConfig, env: ProbeEnvironment): ProbeTarget {
  const auth = resolveAuth(t, env);
  let apiKey: string | undefined;
  if (t.apiKeySecret) {
    apiKey = secretValue(env, t.apiKeySecret, t.id);
  } else if (!auth && t.reference && typeof env.secrets.REFERENCE_KEY === 'string' && env.secrets.REFERENCE_KEY !== '') {
    // The deployed reference endpoint's token (npm run deploy sets both), for reference targets that name no secret.
    apiKey = env.secrets.REFERENCE_KEY;
  }
  return {
    id: t.id,
    api: t.api,
    url: t.url.replace('{REFERENCE_URL}', env.referenceUrl.replace(/\/$/, '')),
    model: t.model,
    apiKey,
    headers: t.headers,
    extraBody: t.extraBody,
    maxTokensParam: t.maxTokensParam,
    serverTimingMetrics: t.serverTimingMetrics,
    auth,
  };
}

export async function runJob(
  job: Job,
  region: RegionConfig,
  target: TargetConfig,
  variant: PromptVariantConfig,
  config: ObservatoryConfig,
  env: ProbeEnvironment,
): Promise<StoredSample> {
  const probeTarget = resolveTarget(target, env);
  // The reference endpoint (only it) is told where and for which tick it is probed: its scheduled regional faults key on them.
  if (target.reference) probeTarget.headers = { ...probeTarget.headers, 'x-ref-region': region.code, 'x-ref-tick': String(job.tickId) };
  const rtt =
    config.rttProbes > 0 ? await measureRtt({ target: probeTarget, count: config.rttProbes, timeoutMs: config.timeouts.headersMs }) : null;
  const rttMs = rtt?.rttMs ?? null;
  const { sample } = await runProbe({
    target: probeTarget,
    prompt: { id: variant.id, promptTokens: variant.promptTokens, maxTokens: variant.maxTokens },
    timeouts: config.timeouts,
    warm: rttMs !== null,
    rttMs,
    rttNote: rtt?.note,
    beforeT0: clockAdvance,
    authContext: env.authContext,
    splitSources: env.splitSources,
    redact: secretValues(env.secrets),
  });
  return stamped(sample, job, region, env);
}

/**
 * A prompt-cache job (MEASUREMENT.md, "Prompt cache"): the connection warmed by at least one round trip, then
 * the first pass with a fresh nonce and, as soon as it ends, the second reusing its prefix; the round trip
 * measured before the first serves both splits (the same path, seconds apart). Two samples: the first pass
 * under the variant's id, the second under its second pass's (`warm`).
 */
export async function runCacheJob(
  job: Job,
  region: RegionConfig,
  target: TargetConfig,
  variant: PromptVariantConfig,
  warm: PromptVariantConfig,
  config: ObservatoryConfig,
  env: ProbeEnvironment,
): Promise<[StoredSample, StoredSample]> {
  const probeTarget = resolveTarget(target, env);
  if (target.reference) probeTarget.headers = { ...probeTarget.headers, 'x-ref-region': region.code, 'x-ref-tick': String(job.tickId) };
  const rtt = await measureRtt({ target: probeTarget, count: Math.max(1, config.rttProbes), timeoutMs: config.timeouts.headersMs });
  const nonce = randomNonce();
  const pass = async (p: PromptVariantConfig, n: 1 | 2): Promise<StoredSample> => {
    const { sample } = await runProbe({
      target: probeTarget,
      prompt: { id: p.id, promptTokens: p.promptTokens, maxTokens: p.maxTokens },
      timeouts: config.timeouts,
      warm: rtt.rttMs !== null,
      rttMs: rtt.rttMs,
      rttNote: rtt.note,
      nonce,
      cachePass: n,
      beforeT0: clockAdvance,
      authContext: env.authContext,
      splitSources: env.splitSources,
      redact: secretValues(env.secrets),
    });
    sample.cache_pass = n;
    return stamped(sample, job, region, env);
  };
  const first = await pass(variant, 1);
  return [first, await pass(warm, 2)];
}

function stamped(sample: Sample, job: Job, region: RegionConfig, env: Pick<ProbeEnvironment, 'colo' | 'simulated'>): StoredSample {
  return {
    ...sample,
    tick_id: job.tickId,
    region: region.code,
    colo: env.colo,
    colo_outside_region: coloOutsideRegion(env.colo, region.locationHint),
    simulated: env.simulated,
    backfill: job.backfill,
    late: job.late === true,
    tick_position: job.position ?? null,
  };
}

/**
 * The one sample of a probe that never got to measure (its code failed, or the runtime stopped it
 * again and again): a failed sample of its own class, so error rates count it and nothing is lost.
 * `secrets`: every secret value of the deployment (secretValues), removed from the detail before it is cut.
 */
export function failedJobSample(
  job: Job,
  region: RegionConfig,
  target: TargetConfig,
  variant: PromptVariantConfig,
  env: Pick<ProbeEnvironment, 'colo' | 'simulated'>,
  error: ErrorClass,
  detail: string,
  secrets: readonly string[],
): StoredSample {
  const sample = Object.assign(emptySample(), {
    method_version: METHOD_VERSION,
    started_at: Date.now(),
    target: target.id,
    api: target.api,
    model: target.model,
    prompt_variant: variant.id,
    prompt_tokens: variant.promptTokens,
    max_tokens: variant.maxTokens,
    error,
    error_detail: safeDetail(detail, secrets),
  });
  return stamped(sample, job, region, env);
}
