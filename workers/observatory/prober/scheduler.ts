/**
 * The cron tick. Cron handlers run in an arbitrary data centre, so the scheduler measures nothing:
 * it hands each region's share of the tick to that region's Durable Object, spreading work over
 * ticks when one tick would exceed the plan's limits.
 */
import { getCapacity, getConfig, tickJobs } from '../config.ts';
import { archiveFinalRollups, archiveSampleTables, deleteArchivedRollups } from '../archive/archive-run.ts';
import { deleteDerivedBefore } from '../db/rollups.ts';
import { deletePlacesBefore } from '../db/places.ts';
import { deleteIncidentsBefore } from '../db/status.ts';
import { DAY_MS, MINUTE_MS } from '../../../shared/time.ts';
import { tickSlice } from '../../../shared/config/schedule.ts';
import type { EnqueueResult } from './region-prober.ts';

export interface TickReport {
  tick_id: number;
  spread: number;
  slice: number;
  backfill: boolean;
  regions: Array<{ region: string } & (EnqueueResult | { error: string })>;
}

/** The regions a tick report says were not reached (their jobs are not queued). */
export function unreachedRegions(report: TickReport): string[] {
  return report.regions.filter((r) => 'error' in r).map((r) => r.region);
}

/** The tick a scheduled time belongs to: its start, on the schedule's grid (so a retried cron is the same tick). */
export function tickIdFor(scheduledTime: number): number {
  const step = getCapacity().tickMinutes * MINUTE_MS;
  return Math.floor(scheduledTime / step) * step;
}

export async function runTick(env: Env, tickId: number, { backfill = false, fromCron = false } = {}): Promise<TickReport> {
  const config = getConfig();
  const capacity = getCapacity();
  const slice = tickSlice(tickId, capacity.tickMinutes, capacity.spread);
  const report: TickReport = { tick_id: tickId, spread: capacity.spread, slice, backfill, regions: [] };
  await Promise.all(
    config.regions.map(async (region) => {
      const jobs = tickJobs(region.code, tickId, { backfill });
      try {
        const stub = env.REGION_PROBER.getByName(region.code, { locationHint: region.locationHint });
        // A tick of the cron arms each region's heartbeat (from then on it expects the next one, and runs it itself, late,
        // should it not come), or disarms it when LATE_TICKS is "off"; a POSTed tick leaves it as it is.
        const delivery = backfill ? undefined : { tickId, ...(fromCron ? { heartbeat: env.LATE_TICKS !== 'off' } : {}) };
        report.regions.push({ region: region.code, ...(await stub.enqueue(region.code, jobs, delivery)) });
      } catch (e) {
        const error = e instanceof Error ? e.message : String(e);
        console.error(`tick ${tickId}: region ${region.code} could not be reached: ${error}`);
        report.regions.push({ region: region.code, error });
      }
    }),
  );
  return report;
}

/**
 * A concurrency run (config.bursts, on its own cron): each region queues one run per opted-in target,
 * which its object starts once its regular probes are done. The run time is its id, so a retried cron
 * queues nothing twice.
 */
export async function runBursts(env: Env, runId: number): Promise<TickReport> {
  const config = getConfig();
  const report: TickReport = { tick_id: runId, spread: 1, slice: 0, backfill: false, regions: [] };
  if (!config.bursts) return report;
  await Promise.all(
    config.regions.map(async (region) => {
      try {
        const stub = env.REGION_PROBER.getByName(region.code, { locationHint: region.locationHint });
        report.regions.push({ region: region.code, ...(await stub.enqueueBursts(region.code, runId)) });
      } catch (e) {
        const error = e instanceof Error ? e.message : String(e);
        console.error(`burst run ${runId}: region ${region.code} could not be reached: ${error}`);
        report.regions.push({ region: region.code, error });
      }
    }),
  );
  return report;
}

/**
 * Once a day (the first tick after midnight UTC), archives the ended days' samples and concurrency streams
 * (archive-run.ts), then deletes those older than their retention whose archive is confirmed; the same for
 * the rollups; and by time what is derived from the samples, and resolved incidents.
 */
export async function applyRetention(env: Env, tickId: number): Promise<{ samples: number; rollups: number; incidents: number } | null> {
  const { retentionDays, rollupRetentionDays } = getConfig();
  if (tickId % DAY_MS >= getCapacity().tickMinutes * MINUTE_MS) return null;
  const cut = tickId - retentionDays * DAY_MS;
  const archived = await archiveSampleTables(env, tickId, cut, true);
  await archiveFinalRollups(env, tickId, cut);
  const rollupCut = tickId - rollupRetentionDays * DAY_MS;
  // The hours' place records go with the raw samples they summarise (a catalog or fidelity window is days, not months).
  const places = await deletePlacesBefore(env.DB, cut);
  return {
    samples: archived.reduce((n, r) => n + r.deleted, 0) + places,
    rollups: (await deleteArchivedRollups(env, rollupCut)) + (await deleteDerivedBefore(env.DB, rollupCut)),
    // Resolved incidents are kept as long as rollups (their history page and feed).
    incidents: await deleteIncidentsBefore(env.DB, tickId - rollupRetentionDays * DAY_MS),
  };
}
