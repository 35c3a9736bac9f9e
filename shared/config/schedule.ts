/** The schedule's arithmetic the runtime uses: a cron's tick length, an alarm's share of probes, a tick's slice of the work list. */
import { MINUTE_MS } from '../time.ts';
import { PLAN_LIMITS } from './plan-limits.ts';
import type { ObservatoryConfig } from './types.ts';
import { workListOf } from './work-list.ts';

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
 * Probes one alarm of a regional object runs at most: `concurrency` at a time, a lane taking the next
 * job as its probe ends, up to twice `concurrency` in all, and never more than the plan's subrequest
 * budget allows (each probe: its stream and its round-trip requests, plus two for the object's own).
 */
export function probesPerAlarm(config: Pick<ObservatoryConfig, 'plan' | 'concurrency' | 'rttProbes'>): number {
  const limit = PLAN_LIMITS[config.plan].subrequestsPerInvocation;
  return Math.max(1, Math.min(2 * config.concurrency, Math.floor((limit - 2) / (1 + config.rttProbes))));
}

/** Probes (region × target × variant) one tick runs across every region, before spreading. */
export function probesPerTick(config: ObservatoryConfig): number {
  return config.regions.reduce((n, r) => n + workListOf(config, r.code).length, 0);
}

/** Which of `spread` slices a tick runs: ticks take turns, so each slice comes round every `spread` ticks. */
export function tickSlice(tickId: number, tickMinutes: number, spread: number): number {
  return Math.floor(tickId / (tickMinutes * MINUTE_MS)) % spread;
}
