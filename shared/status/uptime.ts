/**
 * Monthly uptime reports (README "Status and alerts", "Uptime"), from what is stored: the status history's day
 * rows (period-tally.ts), the incidents, and the daily rollups' TTFT histograms. Per target × region and per
 * target overall, over a UTC month (up to now, for the month in progress):
 * - the share of the ticks due (from the month's start, or from the first day the target was judged at all, if
 *   later: a target added mid-month is not down before it existed) that were judged operational, degraded, down, in
 *   maintenance, or unknown (due but never judged, or judged without data: never counted as up);
 * - uptime = operational ÷ (due − maintenance);
 * - incidents that overlapped the month, and their minutes inside it (for a region: those that affected it);
 * - TTFT p50 and p95 of the month's successful probes of the first prompt variant, from the merged daily histograms.
 * Prompt variants are added up: each variant's ticks are judgements of their own.
 */
import { PERIOD_STATES, type PeriodState, type StripState } from './levels.ts';
import { emptyCounts, type PeriodCounts } from './period-tally.ts';
import { rollupPercentileGroups } from '../rollup/percentiles.ts';
import type { Rollup } from '../rollup/rollup.ts';
import { DAY_MS, MINUTE_MS } from '../time.ts';

/**
 * What a month's share is counted in: the levels, maintenance, and unknown (a tick due but never judged, or judged
 * without data: the status history's no-data ticks and the ticks it never counted). Drawn in no-data's colour.
 */
export const UPTIME_STATES = ['operational', 'degraded', 'down', 'maintenance', 'unknown'] as const;
export type UptimeState = (typeof UPTIME_STATES)[number];
/** The colour each uptime state is drawn in, from the status states' (levels.ts). */
export const uptimeColorOf = (s: UptimeState): StripState => (s === 'unknown' ? 'no-data' : s);

/** How the uptime report counts, in words: the API's answer and the site's uptime pages say the same. */
export const UPTIME_DEFINITIONS =
  'Shares of the ticks due (every region × target × prompt variant each tick, from the month’s start or the first day the target was judged). Uptime = ticks judged operational ÷ (ticks due − ticks in maintenance). A tick due but never judged, or judged without data, is unknown: it counts in the denominator, never as up. Incidents: those that overlapped the month, and their minutes inside it (a region’s: those that affected it). TTFT: the month’s successful probes of the first prompt variant, from the daily rollups.';

export interface UptimeDayRow {
  /** The day's start, epoch ms. */
  day: number;
  target: string;
  prompt_variant: string;
  region: string;
  counts: PeriodCounts;
}

export interface UptimeIncident {
  id: string;
  target: string;
  regions: string[];
  opened_at: number;
  resolved_at: number | null;
}

export interface UptimeRow {
  target: string;
  /** `*` for the target overall (every region it runs in). */
  region: string;
  due: number;
  /** Shares of `due`, each in [0, 1]; they add up to 1. */
  share: Record<PeriodState | UptimeState, number>;
  uptime: number | null;
  incidents: number;
  incident_minutes: number;
  /** The worst day: its start (ISO) and uptime, or null without a judged day. */
  worst_day: { day: string; uptime: number } | null;
  ttft_p50_ms: number | null;
  ttft_p95_ms: number | null;
}

export interface UptimeMonth {
  month: string;
  from: number;
  /** The month's end, or now for the month in progress. */
  to: number;
  rows: UptimeRow[];
}

/** "2026-11" → its first instant (UTC); null when it is not a month. */
export function monthStart(month: string): number | null {
  const m = /^(\d{4})-(\d{2})$/.exec(month);
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 12) return null;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, 1);
}

export function monthEnd(start: number): number {
  const d = new Date(start);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

export const monthOf = (t: number): string => new Date(t).toISOString().slice(0, 7);

export interface UptimeInput {
  month: string;
  now: number;
  /** Regions each target runs in, and its prompt variants (second passes included), as configured. */
  targets: ReadonlyArray<{ id: string; regions: readonly string[]; variants: readonly string[] }>;
  /** Ticks due per day for one region × target × variant (1440 / tick minutes / spread). */
  ticksPerDay: number;
  days: readonly UptimeDayRow[];
  incidents: readonly UptimeIncident[];
  /** TTFT percentiles of the month per "target|region" and per "target|*" (null when none). */
  ttft: (target: string, region: string) => { p50: number | null; p95: number | null };
}

/** The month's report; its rows in the configuration's order, each target overall first. */
export function uptimeMonth(input: UptimeInput): UptimeMonth | null {
  const from = monthStart(input.month);
  if (from === null) return null;
  const to = Math.min(monthEnd(from), input.now);
  const rows: UptimeRow[] = [];
  for (const t of input.targets) {
    const judgedDays = input.days.filter((d) => d.target === t.id && d.day >= from && d.day < to).map((d) => d.day);
    const since = judgedDays.length > 0 ? Math.max(from, Math.min(...judgedDays)) : from;
    for (const region of ['*', ...t.regions]) {
      const regions = region === '*' ? t.regions : [region];
      const mine = input.days.filter((d) => d.target === t.id && regions.includes(d.region) && d.day >= from && d.day < to);
      const counts = emptyCounts();
      const perDay = new Map<number, PeriodCounts>();
      for (const d of mine) {
        let c = perDay.get(d.day);
        if (!c) perDay.set(d.day, (c = emptyCounts()));
        for (const s of PERIOD_STATES) {
          counts[s] += d.counts[s];
          c[s] += d.counts[s];
        }
      }
      const dueOf = (start: number, end: number) =>
        Math.round(((end - start) / DAY_MS) * input.ticksPerDay * regions.length * t.variants.length);
      const due = Math.max(dueOf(since, to), judgedOf(counts));
      const share = sharesOf(counts, due);
      let worst: UptimeRow['worst_day'] = null;
      for (const [day, c] of perDay) {
        const u = uptimeOf(c, Math.max(dueOf(day, Math.min(day + DAY_MS, to)), judgedOf(c)));
        if (u !== null && (worst === null || u < worst.uptime)) worst = { day: new Date(day).toISOString().slice(0, 10), uptime: u };
      }
      const hit = input.incidents.filter((i) => i.target === t.id && (region === '*' || i.regions.includes(region)));
      const overlapping = hit.filter((i) => i.opened_at < to && (i.resolved_at ?? input.now) > from);
      const minutes = overlapping.reduce(
        (n, i) => n + (Math.min(i.resolved_at ?? input.now, to) - Math.max(i.opened_at, from)) / MINUTE_MS,
        0,
      );
      const ttft = input.ttft(t.id, region);
      rows.push({
        target: t.id,
        region,
        due,
        share,
        uptime: uptimeOf(counts, due),
        incidents: overlapping.length,
        incident_minutes: Math.round(minutes),
        worst_day: worst,
        ttft_p50_ms: ttft.p50,
        ttft_p95_ms: ttft.p95,
      });
    }
  }
  return { month: input.month, from, to, rows };
}

const judgedOf = (c: PeriodCounts) => PERIOD_STATES.reduce((n, s) => n + c[s], 0);

function sharesOf(c: PeriodCounts, due: number): UptimeRow['share'] {
  const of = (n: number) => (due > 0 ? n / due : 0);
  const unknown = Math.max(0, due - judgedOf(c)) + c['no-data'];
  return {
    operational: of(c.operational),
    degraded: of(c.degraded),
    down: of(c.down),
    maintenance: of(c.maintenance),
    'no-data': 0,
    unknown: of(unknown),
  };
}

/** Operational ticks ÷ (due − maintenance); null when nothing outside maintenance was due. */
export function uptimeOf(c: PeriodCounts, due: number): number | null {
  const base = due - c.maintenance;
  return base > 0 ? c.operational / base : null;
}

/** The report as spreadsheet records: a row per target × region and per target overall (`*`), the same for the API's CSV and the site's. */
export function uptimeRecords(m: Pick<UptimeMonth, 'month' | 'rows'>): Array<Record<string, string | number | null>> {
  return m.rows.map((r) => ({
    month: m.month,
    target: r.target,
    region: r.region,
    ticks_due: r.due,
    uptime: r.uptime,
    operational: r.share.operational,
    degraded: r.share.degraded,
    down: r.share.down,
    maintenance: r.share.maintenance,
    unknown: r.share.unknown,
    incidents: r.incidents,
    incident_minutes: r.incident_minutes,
    worst_day: r.worst_day?.day ?? null,
    worst_day_uptime: r.worst_day?.uptime ?? null,
    ttft_p50_ms: r.ttft_p50_ms,
    ttft_p95_ms: r.ttft_p95_ms,
  }));
}

/** The month's TTFT per target × region and per target overall (`*`), from its daily rollups of one variant. */
export function monthTtft(daily: Iterable<Rollup>): UptimeInput['ttft'] {
  const rows = [...daily];
  const byRegion = rollupPercentileGroups(rows, 'ttft_ms', ['target', 'region']);
  const byTarget = rollupPercentileGroups(rows, 'ttft_ms', ['target']);
  return (target, region) => {
    const g = region === '*' ? byTarget.find((x) => x.target === target) : byRegion.find((x) => x.target === target && x.region === region);
    return { p50: (g?.p50 as number | null | undefined) ?? null, p95: (g?.p95 as number | null | undefined) ?? null };
  };
}
