/**
 * A week's report from D1 and the archive's manifest (shared/reports/report.ts says what it holds): each paired
 * family's comparisons over the week and over the week before, computed by the code GET /api/v1/compare and the
 * compare views run (shared/rollup/paired-families.ts over shared/stats/paired.ts: one read and one parse of a
 * family's hourly rows for both weeks, each week's blocks then ranked whole); the incidents and vendor incidents
 * open at some time in the week; the archive files of its days.
 */
import { METHOD_VERSION } from '../../../shared/constants.ts';
import { isoDay, MANIFEST_KEY, parseManifest } from '../../../shared/archive/manifest.ts';
import { statusPagesOf } from '../../../shared/config/validate-vendor-status.ts';
import { COMPARE_METHOD } from '../../../shared/rollup/paired-families.ts';
import {
  REPORT_FORMAT,
  type ReportFamily,
  type ReportIncident,
  type ReportVendorIncident,
  type WeeklyReport,
} from '../../../shared/reports/report.ts';
import { previousWeek, weekSpan } from '../../../shared/reports/week.ts';
import { DEFAULT_MARGIN } from '../../../shared/stats/paired.ts';
import { familyReport } from './family-report.ts';
import type { Incident } from '../../../shared/status/incidents.ts';
import type { PagedVendorIncident } from '../../../shared/status/vendor-incidents.ts';
import { DAY_MS } from '../../../shared/time.ts';
import { compareFamilies, parsedRowsOf } from '../api/compare.ts';
import { getConfig } from '../config.ts';
import { pairedRowsIn } from '../db/paired.ts';
import { incidentsInSpan } from '../db/status.ts';
import { vendorIncidentsInSpan } from '../db/vendor-incidents.ts';

const iso = (t: number) => new Date(t).toISOString();

const incidentOf = (i: Incident): ReportIncident => ({
  id: i.id,
  target: i.target,
  variant: i.variant,
  severity: i.severity,
  scope: i.scope,
  regions: i.regions,
  rules: i.rules,
  opened_at: iso(i.opened_at),
  resolved_at: i.resolved_at === null ? null : iso(i.resolved_at),
});

const vendorIncidentOf = (v: PagedVendorIncident): ReportVendorIncident => ({
  page: v.page,
  id: v.id,
  name: v.name,
  impact: v.impact,
  created_at: iso(v.created_at),
  resolved_at: v.resolved_at === null ? null : iso(v.resolved_at),
  shortlink: v.shortlink,
});

export interface BuiltReport {
  report: WeeklyReport;
  /** Paired hourly rows of the week itself (none: nothing was measured in it, and a first version is not published). */
  pairedRows: number;
}

/** The report of a week (an id weekSpan accepts), as version `version`. */
export async function buildWeeklyReport(
  db: D1Database,
  bucket: R2Bucket,
  week: string,
  version: number,
  corrects: WeeklyReport['corrects'],
  now: number,
): Promise<BuiltReport> {
  const span = weekSpan(week);
  const previous = previousWeek(week);
  const before = weekSpan(previous);
  if (!span || !before) throw new Error(`not a week: ${week}`);
  const families: ReportFamily[] = [];
  let pairedRows = 0;
  // One family's rows at a time: a build holds one family's blocks at once, as the compare views' build.
  for (const f of compareFamilies()) {
    const rows = await pairedRowsIn(db, {
      fromHour: before.from,
      toHour: span.to,
      methodVersion: METHOD_VERSION,
      regions: [f.region],
      variants: [f.prompt_variant],
    });
    pairedRows += rows.filter((r) => r.hour >= span.from).length;
    families.push(familyReport(f, parsedRowsOf(rows, f), span, before));
  }
  const pages = statusPagesOf(getConfig().targets).map((p) => p.page);
  const incidents = await incidentsInSpan(db, span.from, span.to);
  const vendor = await vendorIncidentsInSpan(db, { from: span.from, to: span.to, pages });
  const manifest = await bucket.get(MANIFEST_KEY);
  const days = new Set(Array.from({ length: 7 }, (_, k) => isoDay(span.from + k * DAY_MS)));
  const files = parseManifest(manifest ? await manifest.text() : null)
    .files.filter((e) => days.has(e.day))
    .map(({ key, table, day, region, rows, bytes, sha256 }) => ({ key, table, day, region, rows, bytes, sha256 }));
  return {
    pairedRows,
    report: {
      format: REPORT_FORMAT,
      week,
      version,
      published_at: iso(now),
      window: { from: iso(span.from), to: iso(span.to) },
      previous_week: previous,
      method_version: METHOD_VERSION,
      margin_pct: DEFAULT_MARGIN * 100,
      method: COMPARE_METHOD,
      corrects,
      families,
      incidents: incidents.map(incidentOf),
      vendor_incidents: vendor.map(vendorIncidentOf),
      data: { files },
    },
  };
}
