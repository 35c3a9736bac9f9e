/**
 * The archive across regions: which ended days each region owes R2, handed to that region's object
 * (archive-duty.ts writes the files), and retention's deletes of only the days an archive confirms.
 * Run by retention at the first tick after midnight UTC (scheduler.ts), and on demand by
 * POST /api/v1/archive (the demo archives its backfilled days with it). One region after another:
 * they share manifest.json. A region that is in D1 but no longer in the configuration is archived,
 * and its rows deleted, like any other.
 */
import { getConfig } from '../config.ts';
import { deleteArchivedDays, deleteArchivedRollupDays, sampleDayCounts, type DayCount } from '../db/archive.ts';
import { isoDay, MANIFEST_KEY, parseManifest, type ArchiveTable } from '../../../shared/archive/manifest.ts';
import { ARCHIVE_ROLLUP_DAYS } from '../../../shared/config/capacity.ts';
import { DAY_MS } from '../../../shared/time.ts';
import { dayOf } from '../../../shared/rollup/rollup.ts';

/** Counting queries a run makes for the days between the cut and yesterday, at most (D1 bounds queries per invocation). */
const MAX_COUNTS = 4;

/** What a run did for one table of one region. */
export interface ArchiveRegionReport {
  region: string;
  table: ArchiveTable;
  /** Days the region owed. */
  owed: number;
  /** Of those, days confirmed in R2 (written now, or already whole). */
  confirmed: number;
  /** Rows retention deleted after the confirmation. */
  deleted: number;
  error?: string;
}

/**
 * The UTC days in R2's manifest that hold a file of this table (of any region); null when it cannot be read
 * (then only yesterday is counted among the days between: a broken manifest never makes a run scan them all).
 */
async function daysInManifest(bucket: R2Bucket, table: ArchiveTable): Promise<Set<string> | null> {
  try {
    const stored = await bucket.get(MANIFEST_KEY);
    return new Set(
      parseManifest(stored ? await stored.text() : null)
        .files.filter((f) => f.table === table)
        .map((f) => f.day),
    );
  } catch (e) {
    // The regions' own runs read it again and report what is wrong (health: errors.archive).
    console.error(`archive: manifest.json unreadable, only yesterday and the cut are archived: ${e instanceof Error ? e.message : e}`);
    return null;
  }
}

function merge(into: Map<string, DayCount[]>, more: Map<string, DayCount[]>): void {
  for (const [region, days] of more)
    into.set(
      region,
      [...(into.get(region) ?? []), ...days].sort((a, b) => a.day - b.day),
    );
}

/**
 * The days a run archives, with each region's rows of them: every day before the cut's end (normally the
 * one retention cuts), yesterday, and each day between them that the manifest holds no file of (a day the
 * archive missed in every region, as in an R2 outage, or the demo's backfilled days). Days between that hold a
 * file are checked again when they reach the cut (so is the day of a region whose archive alone failed).
 * One scan of each of those days' rows, for all regions; days between that hold a file cost nothing.
 */
async function daysToArchive(env: Env, table: ArchiveTable, tickId: number, beforeTick: number): Promise<Map<string, DayCount[]>> {
  const today = dayOf(tickId);
  const cutEnd = Math.min(Math.ceil(beforeTick / DAY_MS) * DAY_MS, today - DAY_MS);
  const owed = await sampleDayCounts(env.DB, 0, cutEnd, table);
  const listed = await daysInManifest(env.ARCHIVE, table);
  // Runs of consecutive days between not in the manifest (yesterday always counted): one count for each run,
  // or, past MAX_COUNTS of them, one count from the first such day on (a query bound, whatever the gaps).
  const runs: Array<[number, number]> = [];
  for (let day = cutEnd; day < today; day += DAY_MS) {
    if (day !== today - DAY_MS && (listed === null || listed.has(isoDay(day)))) continue;
    const last = runs.at(-1);
    if (last && last[1] === day) last[1] = day + DAY_MS;
    else runs.push([day, day + DAY_MS]);
  }
  const counted = runs.length > MAX_COUNTS ? [[runs[0][0], today] as [number, number]] : runs;
  for (const [from, to] of counted) merge(owed, await sampleDayCounts(env.DB, from, to, table));
  return owed;
}

/** The configured regions first (with their location hints), then any D1 still holds rows of. */
function regionsOf(days: Map<string, DayCount[]>): Array<{ code: string; locationHint?: DurableObjectLocationHint }> {
  const configured = getConfig().regions.map((r) => ({ code: r.code, locationHint: r.locationHint }));
  const known = new Set(configured.map((r) => r.code));
  return [...configured, ...[...days.keys()].filter((code) => !known.has(code)).map((code) => ({ code }))];
}

async function archiveRegions(
  env: Env,
  table: ArchiveTable,
  days: Map<string, DayCount[]>,
  remove: ((region: string, confirmed: number[]) => Promise<number>) | null,
): Promise<ArchiveRegionReport[]> {
  const reports: ArchiveRegionReport[] = [];
  for (const region of regionsOf(days)) {
    const owed = days.get(region.code) ?? [];
    // Only the raw samples' run is made for a region without rows: it clears the region's archive error.
    if (table !== 'samples' && owed.length === 0) continue;
    const report: ArchiveRegionReport = { region: region.code, table, owed: owed.length, confirmed: 0, deleted: 0 };
    try {
      const stub = env.REGION_PROBER.getByName(region.code, region.locationHint ? { locationHint: region.locationHint } : undefined);
      const confirmed = await stub.archiveDays(region.code, owed, table);
      report.confirmed = confirmed.length;
      if (remove) report.deleted = await remove(region.code, confirmed);
    } catch (e) {
      report.error = e instanceof Error ? e.message : String(e);
      console.error(`archive: region ${region.code} keeps its ${table} until a later run: ${report.error}`);
    }
    reports.push(report);
  }
  return reports;
}

/**
 * Archives the owed days of the raw samples and the concurrency streams; with `deleteBefore`, then deletes
 * each region's confirmed days before it (retention's cut), and nothing else.
 */
export async function archiveSampleTables(env: Env, tickId: number, cut: number, deleteBefore: boolean): Promise<ArchiveRegionReport[]> {
  const reports: ArchiveRegionReport[] = [];
  for (const table of ['samples', 'burst_samples'] as const) {
    const days = await daysToArchive(env, table, tickId, cut);
    const remove = deleteBefore
      ? (region: string, confirmed: number[]) =>
          deleteArchivedDays(
            env.DB,
            region,
            confirmed.filter((day) => day < cut),
            cut,
            table,
          )
      : null;
    reports.push(...(await archiveRegions(env, table, days, remove)));
  }
  return reports;
}

/**
 * The hourly rollups of the days retention has cut samples from (they no longer change: their hours cannot
 * be rolled up again), region by region, into R2 beside the samples: a week of them, each confirmed or
 * written, so a day whose archive failed is retried (capacity.ts ARCHIVE_ROLLUP_DAYS). Their D1 rows stay
 * until the rollups' own retention (deleteArchivedRollups).
 */
export async function archiveFinalRollups(env: Env, tickId: number, cut: number): Promise<ArchiveRegionReport[]> {
  const cutEnd = Math.min(Math.floor(cut / DAY_MS) * DAY_MS, dayOf(tickId) - DAY_MS);
  const days = await sampleDayCounts(env.DB, cutEnd - ARCHIVE_ROLLUP_DAYS * DAY_MS, cutEnd, 'hourly_rollups');
  return archiveRegions(env, 'hourly_rollups', days, null);
}

/**
 * The rollups' retention: each region's hourly rollups of the days before `rollupCut`, confirmed in R2 (or
 * written now, from D1), and only then deleted with that region's daily rows of those days (merged from
 * them). A region whose archive failed keeps its rollups until a later run.
 */
export async function deleteArchivedRollups(env: Env, rollupCut: number): Promise<number> {
  const cutEnd = Math.floor(rollupCut / DAY_MS) * DAY_MS;
  const days = await sampleDayCounts(env.DB, 0, cutEnd, 'hourly_rollups');
  const reports = await archiveRegions(env, 'hourly_rollups', days, (region, confirmed) =>
    deleteArchivedRollupDays(env.DB, region, confirmed),
  );
  return reports.reduce((n, r) => n + r.deleted, 0);
}
