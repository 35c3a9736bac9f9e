/**
 * The status keeper's judgement over time (hours of the last day, days of the longest view), the maintenance
 * windows, the uptime report of each month those days reach into, and the TTFA changes of this week against the four
 * before: each from its public view (GET /api/v1/status-history, /maintenance, /uptime, /changes), as every anonymous
 * reader reads them. The site computes none of it.
 */
import type { ChangesDoc } from '../../../../shared/api-types.ts';
import type { UptimeMonth } from '../../../../shared/status/uptime.ts';
import type { HistoryRow } from '../status.ts';
import type { SitePart } from './part.ts';

/** GET /api/v1/uptime's answer: the report with its span as ISO. */
interface UptimeAnswer {
  month: string;
  from: string;
  to: string;
  rows: UptimeMonth['rows'];
}

export const historyPart: SitePart = {
  name: 'history',
  async collect({ api }) {
    const status_history = {
      hours: (await api.view('status_hours', 'statusHistory', { resolution: 'hour' }).as<{ rows: HistoryRow[] }>()).rows,
      days: (await api.view('status_days', 'statusHistory', { resolution: 'day' }).as<{ rows: HistoryRow[] }>()).rows,
    };
    const { windows: maintenance } = await api.view('maintenance', 'maintenance').answer();
    // Every month the history's rows reach into: its whole days', and its hours' (today is not a whole day yet).
    const months = [...status_history.days.map((d) => d.day!), ...status_history.hours.map((h) => h.hour!)].map((t) => t.slice(0, 7));
    const uptime: UptimeMonth[] = [];
    for (const month of [...new Set(months)].sort()) {
      const report = await api.view(`uptime_${month}`, 'uptime', { month }).as<UptimeAnswer>();
      uptime.push({ month: report.month, from: Date.parse(report.from), to: Date.parse(report.to), rows: report.rows });
    }
    const { changes } = await api.view('changes', 'changes').as<ChangesDoc>();
    return { status_history, maintenance, uptime, changes };
  },
  empty() {
    return { status_history: { hours: [], days: [] }, maintenance: [], uptime: [], changes: [] };
  },
  fallback: { status_history: { hours: [], days: [] }, maintenance: [], uptime: [] },
};
