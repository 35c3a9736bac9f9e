/** The concurrency bursts' schedule and size: runs per day, streams per run, and how a cron reads. */
import type { BurstConfig } from './types.ts';

export const DEFAULT_BURST_LEVELS = [1, 4, 8, 16];
/** The most simultaneous streams one level may start. */
export const MAX_BURST_LEVEL = 32;

export function burstLevels(b: BurstConfig): number[] {
  return b.levels ?? DEFAULT_BURST_LEVELS;
}

/** `M * * * *` runs hourly, `M H * * *` daily; anything else is not a burst schedule (null). */
export function burstCadence(schedule: string): 'hourly' | 'daily' | null {
  const f = schedule.trim().split(/\s+/);
  if (f.length !== 5 || !/^\d{1,2}$/.test(f[0]) || Number(f[0]) > 59 || f[2] !== '*' || f[3] !== '*' || f[4] !== '*') return null;
  if (f[1] === '*') return 'hourly';
  return /^\d{1,2}$/.test(f[1]) && Number(f[1]) <= 23 ? 'daily' : null;
}

export function burstRunsPerDay(b: BurstConfig): number {
  const cadence = burstCadence(b.schedule);
  return cadence === 'hourly' ? 24 : cadence === 'daily' ? 1 : 0;
}

/** Streams one run starts per region and target when every level runs (a rate limit stops it sooner). */
export function burstStreamsPerRun(b: BurstConfig): number {
  return burstLevels(b).reduce((n, l) => n + l, 0);
}
