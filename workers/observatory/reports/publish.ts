/**
 * Publishing the weekly reports. Once a day (the cron's tick at PUBLISH_AFTER_MS past midnight UTC, index.ts) the
 * last ended week's report is published, unless the index names it already: running again writes nothing. It
 * waits PUBLISH_AFTER_MS past the week's end (Monday 00:00 UTC) for the regions' rollups of its last hour, which
 * come minutes after the hour ends; a week with no paired hour measured is not published (the next day's run
 * looks again). A correction (the admin route) publishes a week again as its next version, saying which version
 * it corrects and why; the one before stays as it was, and the index names its successor.
 */
import { isoWeek, lastEndedWeek, weekSpan } from '../../../shared/reports/week.ts';
import { versionOf, type ReportVersionEntry, type WeeklyReport } from '../../../shared/reports/report.ts';
import { DAY_MS, HOUR_MS } from '../../../shared/time.ts';
import { buildWeeklyReport } from './build-report.ts';
import { readReportIndex, storeReport } from './report-store.ts';

/** How long after a week ends its report is published: the regions' rollups of its last hour are in by then. */
export const PUBLISH_AFTER_MS = HOUR_MS;
/** A correction's reason, at most (it is part of the cited report). */
export const REASON_MAX_CHARS = 500;

export type PublishOutcome =
  | { week: string; outcome: 'published'; entry: ReportVersionEntry; created: boolean; report: WeeklyReport }
  | { week: string; outcome: 'already_published' | 'unmeasured' };

/** The last week ended PUBLISH_AFTER_MS before `now`, published if it is not yet. */
export async function publishDueReport(db: D1Database, bucket: R2Bucket, now: number): Promise<PublishOutcome> {
  const week = lastEndedWeek(now - PUBLISH_AFTER_MS);
  const read = await readReportIndex(bucket);
  const known = versionOf(read.index, week);
  // A version whose object exists but that the index misses (a failed index write) is named by storeReport.
  if (known) return { week, outcome: 'already_published' };
  const built = await buildWeeklyReport(db, bucket, week, 1, null, now);
  if (built.pairedRows === 0) return { week, outcome: 'unmeasured' };
  const stored = await storeReport(bucket, built.report, read);
  return { week, outcome: 'published', ...stored };
}

export class CorrectionError extends Error {}

/** Publishes an ended week again as its next version, correcting the current one for `reason`. */
export async function publishCorrection(
  db: D1Database,
  bucket: R2Bucket,
  week: string,
  reason: string,
  now: number,
): Promise<{ week: string; entry: ReportVersionEntry; created: boolean; report: WeeklyReport }> {
  const span = weekSpan(week);
  if (!span) throw new CorrectionError(`not an ISO week: ${week} (like ${isoWeek(now)})`);
  const read = await readReportIndex(bucket);
  const current = versionOf(read.index, week);
  if (!current) throw new CorrectionError(`${week} has no published report to correct`);
  const version = current.entry.version;
  const built = await buildWeeklyReport(db, bucket, week, version + 1, { version, reason }, now);
  return { week, ...(await storeReport(bucket, built.report, read)) };
}

/**
 * The cron's part (index.ts), run in the view builder's object (its CPU): on the day's tick at PUBLISH_AFTER_MS past midnight UTC, the last ended week's report
 * (every day, so a day that failed is retried the next). Never
 * throws: a failure is logged, and the next day's run publishes the week.
 */
export async function publishOnSchedule(env: Env, tickId: number, tickMs: number): Promise<Published | null> {
  const sinceMidnight = tickId % DAY_MS;
  if (sinceMidnight < PUBLISH_AFTER_MS || sinceMidnight >= PUBLISH_AFTER_MS + tickMs) return null;
  try {
    return await env.PUBLIC_VIEWS.getByName('global').publishReport(tickId);
  } catch (e) {
    console.error(`weekly report: publishing failed, tried again tomorrow: ${e instanceof Error ? e.message : e}`);
    return null;
  }
}

/** What a publication answers its caller (the report itself stays in R2). */
export type Published =
  | { week: string; outcome: 'already_published' | 'unmeasured' }
  | { week: string; outcome: 'published'; entry: ReportVersionEntry; created: boolean };

/**
 * After a version is stored (or found stored by a run that then failed): its digest queued for the channels that asked
 * for one (a second queueing of a version's is a no-op). A failure is logged; the report stays published.
 */
export async function queueDigest(env: Env, report: WeeklyReport, entry: ReportVersionEntry): Promise<void> {
  try {
    await env.STATUS_KEEPER.getByName('global').queueReportDigest(report, entry);
  } catch (e) {
    console.error(`weekly report ${report.week} v${entry.version}: its digest could not be queued: ${e instanceof Error ? e.message : e}`);
  }
}
