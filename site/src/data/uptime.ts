/** The uptime pages' rows and files (shared/status/uptime.ts computes them; the build keeps every month its history reaches). */
import { UPTIME_STATES, uptimeRecords, type UptimeMonth } from '../../../shared/status/uptime.ts';
import { toCsv } from '../../../shared/csv.ts';
import type { UptimeBar } from '../charts/charts.ts';

/** The month's rows for the chart: per target overall, the share of its ticks due in each state. */
export function uptimeBars(m: UptimeMonth): UptimeBar[] {
  return m.rows
    .filter((r) => r.region === '*')
    .flatMap((r) =>
      UPTIME_STATES.map((state) => ({
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

export { UPTIME_DEFINITIONS } from '../../../shared/status/uptime.ts';
