/**
 * GET /api/v1/uptime: a month's uptime report (shared/status/uptime.ts) per target × region and per target overall,
 * from the status history's day rows, the incidents and the daily rollups: a few hundred rows read whatever the
 * ticks. `format=csv` for a spreadsheet.
 */
import { paramsOf } from '../../../shared/api-contract/params.ts';
import { Hono } from 'hono';
import { METHOD_VERSION } from '../../../shared/constants.ts';
import { toCsv } from '../../../shared/csv.ts';
import {
  monthEnd,
  monthOf,
  monthStart,
  monthTtft,
  UPTIME_DEFINITIONS,
  uptimeMonth,
  uptimeRecords,
  type UptimeDayRow,
  type UptimeMonth,
} from '../../../shared/status/uptime.ts';
import type { Incident } from '../../../shared/status/incidents.ts';
import type { Rollup } from '../../../shared/rollup/rollup.ts';
import { PERIOD_STATES, stateColumn } from '../../../shared/status/levels.ts';
import { DAY_MS } from '../../../shared/time.ts';
import { getCapacity, getConfig, storedList } from '../config.ts';
import { rollupsIn } from '../db/rollups.ts';
import { listIncidents } from '../db/status.ts';
import { historyRows, type StoredHistoryRow } from '../db/status-history.ts';
import { badRequest } from './errors.ts';
import { INCIDENT_LIMIT } from './incident-docs.ts';
import type { ReaderEnv } from './public-reads.ts';
import { onlyKnown, parseChoice } from './query.ts';
import { regionsOfTarget } from '../../../shared/config/work-list.ts';

export const uptimeRoutes = new Hono<ReaderEnv>();

/** Day rows a month can hold: 31 days × every region × target × variant the configuration stores. */
export const monthRows = () => 31 * getConfig().regions.reduce((n, r) => n + storedList(r.code).length, 0);

/** The month's report's span: its start, and its end or now for the month in progress. */
export function uptimeSpan(month: string, now: number): { from: number; to: number } {
  const from = monthStart(month);
  if (from === null) throw badRequest(`month must look like 2026-11, got "${month}"`);
  if (from > now) throw badRequest(`month ${month} has not begun`);
  return { from, to: Math.min(monthEnd(from), now) };
}

/** How long before the month an incident that overlaps it may have opened (read so far back), and how many are read. */
const INCIDENT_LOOKBACK_MS = 31 * DAY_MS;
const MONTH_INCIDENTS = INCIDENT_LIMIT.most;

/** What a month's report reads besides its day rows: the incidents that may overlap it, its daily rollups. */
export async function uptimeReads(db: D1Database, from: number, to: number): Promise<{ incidents: Incident[]; daily: Rollup[] }> {
  const [incidents, daily] = await Promise.all([
    listIncidents(db, { from: from - INCIDENT_LOOKBACK_MS, limit: MONTH_INCIDENTS, withPoints: false }),
    rollupsIn(db, { fromHour: from, toHour: to, resolution: 'day', methodVersion: METHOD_VERSION, variants: [firstVariant()] }),
  ]);
  return { incidents, daily };
}

const firstVariant = () => getConfig().promptVariants[0].id;

/** The month's report (shared/status/uptime.ts) from its day rows (the month's, in the order D1 reads them) and reads. */
export function uptimeReport(
  month: string,
  now: number,
  days: readonly StoredHistoryRow[],
  { incidents, daily }: { incidents: readonly Incident[]; daily: readonly Rollup[] },
): UptimeMonth {
  const config = getConfig();
  const capacity = getCapacity();
  return uptimeMonth({
    month,
    now,
    ticksPerDay: capacity.ticksPerDay / capacity.spread,
    targets: config.targets.map((t) => {
      const regions = regionsOfTarget(config, t);
      const variants = [
        ...new Set(
          regions.flatMap((code) =>
            storedList(code)
              .filter((w) => w.target.id === t.id)
              .map((w) => w.variant.id),
          ),
        ),
      ];
      return { id: t.id, regions, variants };
    }),
    days: days.map(
      (d): UptimeDayRow => ({
        day: d.period,
        target: d.target,
        prompt_variant: d.prompt_variant,
        region: d.region,
        counts: Object.fromEntries(PERIOD_STATES.map((s) => [s, d[stateColumn(s)]])) as UptimeDayRow['counts'],
      }),
    ),
    incidents: incidents.map((i) => ({
      id: i.id,
      target: i.target,
      regions: i.regions,
      opened_at: i.opened_at,
      resolved_at: i.resolved_at,
    })),
    ttft: monthTtft(daily),
  })!;
}

/** GET /api/v1/uptime's JSON answer. */
export function uptimeDocument(report: UptimeMonth) {
  return {
    month: report.month,
    from: new Date(report.from).toISOString(),
    to: new Date(report.to).toISOString(),
    ttft_variant: firstVariant(),
    definitions: UPTIME_DEFINITIONS,
    rows: report.rows,
  };
}

uptimeRoutes.get('/uptime', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, paramsOf('uptime'));
  const now = Date.now();
  const month = q.get('month') ?? monthOf(now);
  const { from, to } = uptimeSpan(month, now);
  const format = parseChoice(q, 'format', ['json', 'csv'] as const, 'json');
  const [days, reads] = await Promise.all([
    historyRows(c.env.DB, { resolution: 'day', from, to }, monthRows()),
    uptimeReads(c.env.DB, from, to),
  ]);
  const report = uptimeReport(month, now, days, reads);
  if (format === 'csv') {
    const csv = toCsv(uptimeRecords(report));
    return new Response(csv, {
      headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="uptime-${month}.csv"` },
    });
  }
  return c.json(uptimeDocument(report));
});
