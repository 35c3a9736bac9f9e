/**
 * GET /api/v1/uptime: a month's uptime report (shared/status/uptime.ts) per target × region and per target overall,
 * from the status history's day rows, the incidents and the daily rollups: a few hundred rows read whatever the
 * ticks. `format=csv` for a spreadsheet.
 */
import { Hono } from 'hono';
import { METHOD_VERSION } from '../../../shared/constants.ts';
import { toCsv } from '../../../shared/csv.ts';
import { monthEnd, monthOf, monthStart, monthTtft, uptimeMonth, uptimeRecords, type UptimeDayRow } from '../../../shared/status/uptime.ts';
import { PERIOD_STATES } from '../../../shared/status/levels.ts';
import { DAY_MS } from '../../../shared/time.ts';
import { getCapacity, getConfig, storedList } from '../config.ts';
import { rollupsIn } from '../db/rollups.ts';
import { listIncidents } from '../db/status.ts';
import { historyRows } from '../db/status-history.ts';
import { badRequest } from './errors.ts';
import type { ReaderEnv } from './public-reads.ts';
import { onlyKnown, parseChoice } from './query.ts';

export const uptimeRoutes = new Hono<ReaderEnv>();

/** Day rows a month can hold: 31 days × every region × target × variant the configuration stores. */
const monthRows = () => 31 * getConfig().regions.reduce((n, r) => n + storedList(r.code).length, 0);

uptimeRoutes.get('/api/v1/uptime', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, ['month', 'format']);
  const now = Date.now();
  const month = q.get('month') ?? monthOf(now);
  const from = monthStart(month);
  if (from === null) throw badRequest(`month must look like 2026-11, got "${month}"`);
  if (from > now) throw badRequest(`month ${month} has not begun`);
  const format = parseChoice(q, 'format', ['json', 'csv'] as const, 'json');
  const to = Math.min(monthEnd(from), now);
  const config = getConfig();
  const capacity = getCapacity();
  const first = config.promptVariants[0].id;
  const [days, incidents, daily] = await Promise.all([
    historyRows(c.env.DB, { resolution: 'day', from, to }, monthRows()),
    listIncidents(c.env.DB, { from: from - 31 * DAY_MS, limit: 500, withPoints: false }),
    rollupsIn(c.env.DB, { fromHour: from, toHour: to, resolution: 'day', methodVersion: METHOD_VERSION, variants: [first] }),
  ]);
  const report = uptimeMonth({
    month,
    now,
    ticksPerDay: capacity.ticksPerDay / capacity.spread,
    targets: config.targets.map((t) => {
      const regions = config.regions.map((r) => r.code).filter((code) => storedList(code).some((w) => w.target.id === t.id));
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
        counts: Object.fromEntries(PERIOD_STATES.map((s) => [s, d[s === 'no-data' ? 'no_data' : s]])) as UptimeDayRow['counts'],
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
  if (format === 'csv') {
    const csv = toCsv(uptimeRecords(report));
    return new Response(csv, {
      headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="uptime-${month}.csv"` },
    });
  }
  return c.json({
    month,
    from: new Date(report.from).toISOString(),
    to: new Date(report.to).toISOString(),
    ttft_variant: first,
    definitions:
      'shares of the ticks due (every region × target × prompt variant each tick); uptime = operational / (due - maintenance); unknown = due but never judged, or judged without data, never counted as up; incidents overlapping the month and their minutes inside it; TTFT of the first prompt variant, from the daily rollups',
    rows: report.rows,
  });
});
