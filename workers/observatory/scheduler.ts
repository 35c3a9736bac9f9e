/**
 * The cron tick. Cron handlers run in an arbitrary data centre, so the scheduler measures nothing:
 * it hands each region's share of the tick to that region's Durable Object, spreading work over
 * ticks when one tick would exceed the plan's limits.
 */
import { getCapacity, getConfig, tickJobs } from './config.ts';
import { deleteArchivedDays, sampleDayCounts, type DayCount } from './db/archive.ts';
import type { ArchiveTable } from '../../shared/archive/manifest.ts';
import { deleteRollupsBefore } from './db/rollups.ts';
import { deleteIncidentsBefore } from './db/status.ts';
import { DAY_MS, MINUTE_MS } from '../../shared/time.ts';
import { dayOf } from '../../shared/rollup/rollup.ts';
import { tickSlice } from '../../shared/config/schedule.ts';
import { ARCHIVE_ROLLUP_DAYS } from '../../shared/config/capacity.ts';
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
 * The days a run archives, with each region's rows of them: yesterday (the day that just ended), and
 * every day that retention cuts (normally one; more while archives fail). Days between were archived
 * when they ended, and are checked again when they reach the cut, while D1 still holds their rows.
 * Two scans of a day's rows, not of the whole retention.
 */
async function daysToArchive(db: D1Database, table: ArchiveTable, tickId: number, beforeTick: number): Promise<Map<string, DayCount[]>> {
  const today = dayOf(tickId);
  const cutEnd = Math.min(Math.ceil(beforeTick / DAY_MS) * DAY_MS, today - DAY_MS);
  const [old, yesterday] = await Promise.all([sampleDayCounts(db, 0, cutEnd, table), sampleDayCounts(db, today - DAY_MS, today, table)]);
  for (const [region, days] of yesterday) old.set(region, [...(old.get(region) ?? []), ...days]);
  return old;
}

/**
 * A table's rows before `beforeTick` (the raw samples, then the concurrency streams), region by region:
 * each region's object first archives its ended days to R2 (archive-duty.ts), then only the days it
 * confirmed are deleted. A region not reached, or whose archive failed, keeps its rows until a later run.
 * One region after another: they share manifest.json.
 */
async function archiveThenDelete(env: Env, table: ArchiveTable, tickId: number, beforeTick: number): Promise<number> {
  const days = await daysToArchive(env.DB, table, tickId, beforeTick);
  let deleted = 0;
  for (const region of getConfig().regions) {
    const owed = days.get(region.code) ?? [];
    if (table !== 'samples' && owed.length === 0) continue; // no concurrency streams here: nothing to call for
    try {
      const stub = env.REGION_PROBER.getByName(region.code, { locationHint: region.locationHint });
      const confirmed = await stub.archiveDays(region.code, owed, table);
      deleted += await deleteArchivedDays(
        env.DB,
        region.code,
        confirmed.filter((day) => day < beforeTick),
        beforeTick,
        table,
      );
    } catch (e) {
      const error = e instanceof Error ? e.message : String(e);
      console.error(`retention: region ${region.code} keeps its ${table} until a later run: ${error}`);
    }
  }
  return deleted;
}

/**
 * The hourly rollups of the days retention has cut samples from (they no longer change: their hours cannot
 * be rolled up again), region by region, into R2 beside the samples. Their D1 rows stay until the
 * rollups' own retention.
 */
async function archiveFinalRollups(env: Env, tickId: number, beforeTick: number): Promise<void> {
  const cutEnd = Math.min(Math.floor(beforeTick / DAY_MS) * DAY_MS, dayOf(tickId) - DAY_MS);
  // A week of them, each confirmed or written: a day whose archive failed is retried (capacity.ts ARCHIVE_ROLLUP_DAYS).
  const days = await sampleDayCounts(env.DB, cutEnd - ARCHIVE_ROLLUP_DAYS * DAY_MS, cutEnd, 'hourly_rollups');
  for (const region of getConfig().regions) {
    const owed = days.get(region.code) ?? [];
    if (owed.length === 0) continue;
    try {
      await env.REGION_PROBER.getByName(region.code, { locationHint: region.locationHint }).archiveDays(
        region.code,
        owed,
        'hourly_rollups',
      );
    } catch (e) {
      const error = e instanceof Error ? e.message : String(e);
      console.error(`retention: region ${region.code} could not archive its rollups, retried at the next run: ${error}`);
    }
  }
}

/**
 * Once a day (the first tick after midnight UTC), archives the ended days' samples and concurrency streams,
 * then deletes them (only archived ones), rollups and resolved incidents older than their retention.
 */
export async function applyRetention(env: Env, tickId: number): Promise<{ samples: number; rollups: number; incidents: number } | null> {
  const { retentionDays, rollupRetentionDays } = getConfig();
  if (tickId % DAY_MS >= getCapacity().tickMinutes * MINUTE_MS) return null;
  const cut = tickId - retentionDays * DAY_MS;
  const samples = (await archiveThenDelete(env, 'samples', tickId, cut)) + (await archiveThenDelete(env, 'burst_samples', tickId, cut));
  await archiveFinalRollups(env, tickId, cut);
  return {
    samples,
    rollups: await deleteRollupsBefore(env.DB, tickId - rollupRetentionDays * DAY_MS),
    // Resolved incidents are kept as long as rollups (their history page and feed).
    incidents: await deleteIncidentsBefore(env.DB, tickId - rollupRetentionDays * DAY_MS),
  };
}
