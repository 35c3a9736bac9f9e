/**
 * The status keeper's judgement over time (hours of the last day, days of the longest view), the maintenance
 * windows, the uptime report of each month those days reach into, and the TTFA changes of this week against the four
 * before. The uptime and the changes still need the daily rollups of the longest window (they are read once here).
 */
import type { MaintenanceDoc } from '../../../../shared/api-types.ts';
import { forEachPage, pageUrl, type Paged } from '../../../../shared/api-pages.ts';
import { tickMinutesOf } from '../../../../shared/config/schedule.ts';
import { rollupFromBase64Json, type Rollup, type RollupBase64Json } from '../../../../shared/rollup/rollup.ts';
import { monthOf, monthTtft, uptimeMonth, type UptimeMonth } from '../../../../shared/status/uptime.ts';
import { DAY_MS, HOUR_MS } from '../../../../shared/time.ts';
import { LONGEST_VIEW_DAYS } from '../../../../shared/views/windows.ts';
import { ttfaChanges } from '../changes.ts';
import { tallyOfRow, type HistoryRow } from '../status.ts';
import type { SiteData } from '../types.ts';
import type { SitePart } from './part.ts';

export const historyPart: SitePart = {
  name: 'history',
  async collect({ api, now, data }) {
    const lastHour = Math.floor(now / HOUR_MS) * HOUR_MS;
    const today = Math.floor(now / DAY_MS) * DAY_MS;
    const status_history = {
      hours: await api.liveRows<HistoryRow>(
        'status_hours',
        `/status-history?resolution=hour&from=${lastHour - 24 * HOUR_MS}&to=${lastHour + HOUR_MS}`,
      ),
      days: await api.liveRows<HistoryRow>(
        'status_days',
        `/status-history?resolution=day&from=${today - (LONGEST_VIEW_DAYS - 1) * DAY_MS}&to=${today + DAY_MS}`,
      ),
    };
    const { windows: maintenance } = await api.live<{ windows: MaintenanceDoc[] }>(
      'maintenance',
      `/maintenance?from=${today - LONGEST_VIEW_DAYS * DAY_MS}`,
    );
    const daily: Rollup[] = [];
    const path = `/rollups?resolution=day&histograms=base64&from=${today - LONGEST_VIEW_DAYS * DAY_MS}&to=${today}`;
    await forEachPage(
      (cursor) => api.live<{ rows: RollupBase64Json[] } & Paged>('rollups_daily', pageUrl(path, cursor)),
      (page) => {
        for (const j of page.rows) daily.push(rollupFromBase64Json(j));
      },
    );
    return {
      status_history,
      maintenance,
      uptime: uptimeMonths(status_history.days, daily, data, now),
      changes: ttfaChanges(daily, today),
    };
  },
  empty() {
    return { status_history: { hours: [], days: [] }, maintenance: [], uptime: [], changes: [] };
  },
  fallback: { status_history: { hours: [], days: [] }, maintenance: [], uptime: [] },
};

/** The uptime report of every month the status history's days reach into (shared/status/uptime.ts, as GET /api/v1/uptime). */
function uptimeMonths(days: readonly HistoryRow[], daily: readonly Rollup[], data: Partial<SiteData>, now: number): UptimeMonth[] {
  const ticksPerDay = (24 * 60) / (tickMinutesOf(data.schedule!) ?? 5) / (data.health?.spread ?? 1);
  const firstVariant = data.variant!.id;
  const months = [...new Set(days.map((d) => d.day!.slice(0, 7)))].sort();
  return months.map(
    (month) =>
      uptimeMonth({
        month,
        now,
        ticksPerDay,
        targets: data.targets!.map((t) => ({
          id: t.id,
          regions: t.regions,
          variants: [...new Set(data.status?.targets.filter((x) => x.target === t.id).map((x) => x.prompt_variant) ?? [])],
        })),
        days: days.map((d) => ({
          day: Date.parse(d.day!),
          target: d.target,
          prompt_variant: d.prompt_variant,
          region: d.region,
          counts: tallyOfRow(d).counts,
        })),
        incidents: (data.incidents ?? []).map((i) => ({
          id: i.id,
          target: i.target,
          regions: i.regions,
          opened_at: Date.parse(i.opened_at),
          resolved_at: i.resolved_at === null ? null : Date.parse(i.resolved_at),
        })),
        ttft: monthTtft(daily.filter((r) => r.prompt_variant === firstVariant && monthOf(r.hour) === month)),
      })!,
  );
}
