/** The schedule's arithmetic the runtime uses: a cron's tick length, an alarm's share of probes, a tick's slice of the work list. */
import { MINUTE_MS } from '../time.ts';
import { PLAN_LIMITS } from './plan-limits.ts';
import type { ObservatoryConfig, PromptVariantConfig } from './types.ts';
import { requestsPerJob, workListOf } from './work-list.ts';

/** Minutes between ticks of a `*\/N * * * *` (or `M * * * *`, hourly) schedule; null when not of that form. */
export function tickMinutesOf(schedule: string): number | null {
  const parts = schedule.trim().split(/\s+/);
  if (parts.length !== 5 || parts.slice(1).some((p) => p !== '*')) return null;
  const every = /^\*\/(\d+)$/.exec(parts[0]);
  if (every) {
    const n = Number(every[1]);
    return n >= 1 && n <= 60 && 60 % n === 0 ? n : null;
  }
  if (parts[0] === '*') return 1;
  return /^\d+$/.test(parts[0]) && Number(parts[0]) < 60 ? 60 : null;
}

/**
 * Subrequests an alarm of a regional object keeps for what follows its probes: the status keeper's
 * report, an OTLP push, and a token request per service account that exchanges its JWT (at most one an
 * hour each; probe/auth.ts).
 */
export function subrequestsAfterProbes(config: Pick<ObservatoryConfig, 'targets'>): number {
  const accounts = new Set(
    config.targets.flatMap((t) => (t.auth?.type === 'google-service-account' && t.auth.mode !== 'self-signed' ? [t.auth.secret] : [])),
  );
  return 2 + accounts.size;
}

/**
 * Subrequests one job makes: its stream and its round trips; a prompt-cache job two streams after at least
 * one round trip (its passes run on a warm connection).
 */
export function subrequestsPerJob(config: Pick<ObservatoryConfig, 'rttProbes'>, variant: Pick<PromptVariantConfig, 'promptCache'>): number {
  return variant.promptCache ? 2 + Math.max(1, config.rttProbes) : 1 + config.rttProbes;
}

/** The most subrequests any job of the configuration makes (what a lane sets aside before it claims one). */
export function maxSubrequestsPerJob(config: Pick<ObservatoryConfig, 'rttProbes' | 'promptVariants'>): number {
  return Math.max(1 + config.rttProbes, ...config.promptVariants.map((v) => subrequestsPerJob(config, v)));
}

/**
 * Probes one alarm of a regional object runs at most: `concurrency` at a time, a lane taking the next
 * job as its probe ends, up to twice `concurrency` in all, and never more than the plan's subrequest
 * budget allows (each job its maxSubrequestsPerJob at most; subrequestsAfterProbes kept aside).
 */
export function probesPerAlarm(
  config: Pick<ObservatoryConfig, 'plan' | 'concurrency' | 'rttProbes' | 'targets' | 'promptVariants'>,
): number {
  const limit = PLAN_LIMITS[config.plan].subrequestsPerInvocation;
  return Math.max(1, Math.min(2 * config.concurrency, Math.floor((limit - subrequestsAfterProbes(config)) / maxSubrequestsPerJob(config))));
}

/** Probes (region × target × variant; a prompt-cache job's two passes counted as two) one tick runs across every region, before spreading: its samples. */
export function probesPerTick(config: ObservatoryConfig): number {
  return config.regions.reduce((n, r) => n + workListOf(config, r.code).reduce((m, w) => m + requestsPerJob(w.variant), 0), 0);
}

/** Which of `spread` slices a tick runs: ticks take turns, so each slice comes round every `spread` ticks. */
export function tickSlice(tickId: number, tickMinutes: number, spread: number): number {
  return Math.floor(tickId / (tickMinutes * MINUTE_MS)) % spread;
}
