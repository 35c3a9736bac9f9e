/**
 * The weekly comparison report (docs/REPORTS.md): what one ISO week (week.ts) found, frozen once the week has
 * ended, so a post or a paper can cite a URL whose answer never changes. Per region × prompt variant (a paired
 * family, shared/rollup/paired-families.ts) and paired figure: the week's comparisons as GET /api/v1/compare gives
 * them (computed by the same code), the leaders, and what changed against the week before; the week's incidents
 * and vendor incidents; and the data files it was computed from. A report once published is never rewritten: a
 * correction is a new version, which names the one it corrects and why (`corrects`), and the index names each
 * version's successor (`superseded_by`). Pure: the Worker reads and stores (workers/observatory/reports/).
 */
import type { ComparisonDoc } from '../api-types.ts';
import type { PairedFigure } from '../rollup/paired-hours.ts';
import type { Verdict } from '../stats/paired.ts';

/** The report document's shape; a new shape is a new format, never a rewrite of a published one. */
export const REPORT_FORMAT = 1;

/** A pair whose verdict this week differs from the week before's. */
export interface VerdictChange {
  a: string;
  b: string;
  verdict: Verdict;
  previous_verdict: Verdict | null;
  difference_pct: number | null;
  previous_difference_pct: number | null;
}

export interface ReportFigure {
  figure: PairedFigure;
  /** The week's comparisons of the family on this figure, as GET /api/v1/compare over the week gives them. */
  comparisons: ComparisonDoc[];
  /** Targets no other was found faster than, that were found faster than one at least (id order). */
  leaders: string[];
  /** The same of the week before. */
  previous_leaders: string[];
  changes: VerdictChange[];
}

export interface ReportFamily {
  region: string;
  prompt_variant: string;
  targets: string[];
  figures: ReportFigure[];
}

/** An incident of the observatory's probes that was open at some time in the week. */
export interface ReportIncident {
  id: string;
  target: string;
  variant: string;
  severity: string;
  scope: string;
  regions: string[];
  rules: string[];
  opened_at: string;
  resolved_at: string | null;
}

/** A vendor's own incident (its status page) that was open at some time in the week. */
export interface ReportVendorIncident {
  page: string;
  id: string;
  name: string;
  impact: string;
  created_at: string;
  resolved_at: string | null;
  shortlink: string | null;
}

/** An archive file of one of the week's days (docs/ARCHIVE.md), as the archive's manifest listed it at publication. */
export interface ReportDataFile {
  key: string;
  table: string;
  day: string;
  region: string;
  rows: number;
  bytes: number;
  sha256: string;
}

export interface WeeklyReport {
  format: typeof REPORT_FORMAT;
  week: string;
  version: number;
  published_at: string;
  /** The week: [from, to). */
  window: { from: string; to: string };
  previous_week: string;
  method_version: number;
  margin_pct: number;
  method: string;
  /** A correction names the version it corrects and why; null for a week's first version. */
  corrects: { version: number; reason: string } | null;
  families: ReportFamily[];
  incidents: ReportIncident[];
  vendor_incidents: ReportVendorIncident[];
  data: { files: ReportDataFile[] };
}

/** One published version as the index lists it: its bytes' SHA-256 (hex) is its answer's ETag. */
export interface ReportVersionEntry {
  version: number;
  sha256: string;
  bytes: number;
  published_at: string;
  corrects: { version: number; reason: string } | null;
  /** The version that corrects this one, once there is one. */
  superseded_by: number | null;
}

export interface ReportWeekEntry {
  week: string;
  window: { from: string; to: string };
  /** Oldest first; the last is the week's current version. */
  versions: ReportVersionEntry[];
}

/** reports/index.json: every week published, newest first. */
export interface ReportIndex {
  format: typeof REPORT_FORMAT;
  weeks: ReportWeekEntry[];
}

/** GET /api/v1/reports: the index with each version's URL, and each week's current one. */
export interface ReportIndexAnswer {
  format: typeof REPORT_FORMAT;
  weeks: Array<
    Omit<ReportWeekEntry, 'versions'> & {
      current: { version: number; url: string };
      versions: Array<ReportVersionEntry & { url: string }>;
    }
  >;
}

export const emptyReportIndex = (): ReportIndex => ({ format: REPORT_FORMAT, weeks: [] });

/** Where each version is read: the API's paths (the site's pages are /reports/<week>/). */
export const reportPath = (week: string, version?: number) =>
  version === undefined ? `/api/v1/reports/${week}` : `/api/v1/reports/${week}/v${version}`;

/** Which side a comparison found faster, if either. */
function faster(c: ComparisonDoc): { winner: string; loser: string } | null {
  if (c.verdict === 'a_faster') return { winner: c.a, loser: c.b };
  if (c.verdict === 'b_faster') return { winner: c.b, loser: c.a };
  return null;
}

/** Targets no comparison found slower than another, that one comparison at least found faster (id order). */
export function leadersOf(comparisons: readonly ComparisonDoc[]): string[] {
  const winners = new Set<string>();
  const losers = new Set<string>();
  for (const c of comparisons) {
    const f = faster(c);
    if (!f) continue;
    winners.add(f.winner);
    losers.add(f.loser);
  }
  return [...winners].filter((t) => !losers.has(t)).sort();
}

/** The pairs whose verdict changed from the week before (a pair new this week has no previous verdict). */
export function verdictChanges(now: readonly ComparisonDoc[], before: readonly ComparisonDoc[]): VerdictChange[] {
  const previous = new Map(before.map((c) => [`${c.a}|${c.b}`, c]));
  const out: VerdictChange[] = [];
  for (const c of now) {
    const p = previous.get(`${c.a}|${c.b}`);
    if (p && p.verdict === c.verdict) continue;
    out.push({
      a: c.a,
      b: c.b,
      verdict: c.verdict,
      previous_verdict: p?.verdict ?? null,
      difference_pct: c.difference_pct,
      previous_difference_pct: p?.difference_pct ?? null,
    });
  }
  return out;
}

/** The index with a new version of a week added (a new week first), the version it corrects marked superseded. */
export function withVersion(index: ReportIndex, week: string, window: ReportWeekEntry['window'], entry: ReportVersionEntry): ReportIndex {
  const weeks = index.weeks.map((w) => ({ ...w, versions: [...w.versions] }));
  let found = weeks.find((w) => w.week === week);
  if (!found) {
    found = { week, window, versions: [] };
    weeks.push(found);
    weeks.sort((a, b) => (a.week < b.week ? 1 : a.week > b.week ? -1 : 0));
  }
  if (entry.version !== found.versions.length + 1)
    throw new Error(`${week}: version ${entry.version} does not follow ${found.versions.length}`);
  const last = found.versions.at(-1);
  if (last) found.versions[found.versions.length - 1] = { ...last, superseded_by: entry.version };
  found.versions.push(entry);
  return { ...index, weeks };
}

/** A week's entry and one of its versions (the current one when none is named), or null. */
export function versionOf(index: ReportIndex, week: string, version?: number): { week: ReportWeekEntry; entry: ReportVersionEntry } | null {
  const w = index.weeks.find((x) => x.week === week);
  const entry = w ? (version === undefined ? w.versions.at(-1) : w.versions.find((v) => v.version === version)) : undefined;
  return w && entry ? { week: w, entry } : null;
}

/** The few lines a digest message says of a report: each family's leaders on each figure, and its changes. */
export function digestLines(report: WeeklyReport): string[] {
  const lines: string[] = [];
  for (const f of report.families)
    for (const x of f.figures) {
      const leaders = x.leaders.length > 0 ? x.leaders.join(', ') : 'no clear leader';
      lines.push(`${f.region} · ${f.prompt_variant} · ${x.figure}: ${leaders}; ${x.changes.length} verdict change(s)`);
    }
  lines.push(`${report.incidents.length} incident(s), ${report.vendor_incidents.length} vendor incident(s)`);
  return lines;
}
