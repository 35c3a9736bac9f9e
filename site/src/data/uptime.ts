/** The uptime pages' rows and files (shared/status/uptime.ts computes them; the build keeps every month its history reaches). */
import { uptimeRecords, type UptimeMonth } from '../../../shared/status/uptime.ts';
import { toCsv } from '../../../shared/csv.ts';
import type { UptimeBar } from '../charts/charts.ts';

/** The month's rows for the chart: per target overall, the share of its ticks due in each state. */
export function uptimeBars(m: UptimeMonth): UptimeBar[] {
  return m.rows
    .filter((r) => r.region === '*')
    .flatMap((r) =>
      (['operational', 'degraded', 'down', 'maintenance', 'unknown'] as const).map((state) => ({
        target: r.target,
        state,
        share: r.share[state],
      })),
    );
}

/** The month as CSV: a row per target × region and per target overall (`*`). */
export function uptimeCsv(m: UptimeMonth): string {
  return toCsv(uptimeRecords(m));
}

export const UPTIME_DEFINITIONS =
  'Shares of the ticks due (every region × target × prompt variant each tick, from the month’s start or the first day the target was judged). Uptime = ticks judged operational ÷ (ticks due − ticks in maintenance). A tick due but never judged, or judged without data, is unknown: it counts in the denominator, never as up. Incidents: those that overlapped the month, and their minutes inside it (a region’s: those that affected it). TTFT: the month’s successful probes of the first prompt variant, from the daily rollups.';
