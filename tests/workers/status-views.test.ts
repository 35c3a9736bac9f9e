/**
 * The public views of the status family: the status history (24 hours of hours; 7, 30 and 90 days of days), the
 * maintenance windows, the uptime of every month the 90 days reach, the incidents (with and without points) and
 * the vendor incidents. On real ticks judged by the status keeper, with what months of them leave behind written
 * through the keeper's own writers (the history of 121 days, of targets still configured and of some retired,
 * incidents of several targets, a vendor page's poll), built by the admin route; then every anonymous GET and HEAD
 * is answered from the views (0 D1 rows, cacheable, 304) and equals the live answer a token holder gets for the
 * same window, whole and narrowed.
 */
import type { PublicViews } from '../../workers/observatory/views/public-views.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { PERIOD_STATES } from '../../shared/status/levels.ts';
import type { PeriodCounts } from '../../shared/status/period-tally.ts';
import { monthOf } from '../../shared/status/uptime.ts';
import type { Incident } from '../../shared/status/incidents.ts';
import type { VendorIncidentsDoc } from '../../shared/api-types.ts';
import { writeHistory, historyRows, type HistoryHour } from '../../workers/observatory/db/status-history.ts';
import { listIncidents, newestIncidentsPerKey, upsertIncidents } from '../../workers/observatory/db/status.ts';
import { listVendorIncidents, newestVendorIncidentsPerPage } from '../../workers/observatory/db/vendor-incidents.ts';
import { pollVendorStatus } from '../../workers/observatory/vendor/vendor-status.ts';
import { monthRows, uptimeDocument, uptimeReads, uptimeReport } from '../../workers/observatory/api/uptime.ts';
import { storedList } from '../../workers/observatory/config.ts';
import { historyPart, uptimeMonths } from '../../workers/observatory/views/history-views.ts';
import { VENDOR_POLL_MS } from '../../shared/status/statuspage.ts';
import { opened, resolved, escalated, TTFT_FIRED, DOWN_FIRED } from '../helpers/incident-fixture.ts';
import { statuspageIncident } from '../helpers/statuspage-fixtures.ts';
import { alarmsUntil, drain } from './drain.ts';
import { fireCron } from './fire-cron.ts';
import { config } from './test-config.ts';
import { buildViews, expectViewAnswer, fromView, get, live } from './view-answers.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const now = Date.now();
const lastHour = Math.floor(now / HOUR) * HOUR;
const today = Math.floor(now / DAY) * DAY;
const regions = config.regions.map((r) => r.code);
const iso = (t: number) => new Date(t).toISOString();
/** Days of history written before today: the 90 days and the month before them that the first uptime month reaches. */
const HISTORY_DAYS = 121;
/** Targets no longer configured whose history D1 still holds: the live route lists their rows, so the views do. */
const RETIRED = ['retired-a', 'retired-b', 'retired-c'];

/** Every region × target × variant stored, and the retired ones' (in three regions). */
const pairs = [
  ...regions.flatMap((region) => storedList(region).map((w) => ({ region, target: w.target.id, variant: w.variant.id }))),
  ...RETIRED.flatMap((target) => regions.map((region) => ({ region, target, variant: 'tiny' }))),
];

/** An hour of each pair each past day (at 12:00), counts that differ by day and pair, a note now and then. */
async function writePastHistory(): Promise<void> {
  // Today's first hour too: its day row is today's, as the keeper writes it once that hour ends.
  for (let d = 0; d <= HISTORY_DAYS; d++) {
    const hours: HistoryHour[] = pairs.map((p, k) => ({
      hour: d === 0 ? today : today - d * DAY + 12 * HOUR,
      target: p.target,
      variant: p.variant,
      region: p.region,
      tally: {
        counts: Object.fromEntries(
          PERIOD_STATES.map((s, i) => [s, s === 'operational' ? 10 + ((d + k) % 3) : (d * 7 + k + i) % 3]),
        ) as PeriodCounts,
        note: (d + k) % 9 === 0 ? 'the last 3 probes failed (HTTP 503)' : null,
        late: 0,
      },
    }));
    await writeHistory(env.DB, hours);
  }
}

/** Incidents of several targets and both states, two opened at one tick, one long over, one open since long ago. */
function pastIncidents(): Incident[] {
  const at = (days: number) => Math.floor((now - days * DAY) / (5 * MIN)) * 5 * MIN;
  const withPoints = (i: Incident): Incident => ({
    ...i,
    points: i.regions.flatMap((region) =>
      Array.from({ length: 5 }, (_, k) => ({
        t: i.opened_at + k * 5 * MIN,
        region,
        ttft_ms: 900 + k,
        error: k % 2 === 0,
        baseline: 700,
        threshold: 1_050,
      })),
    ),
  });
  return [
    resolved(opened('ref-chat', 'tiny', ['weur'], [TTFT_FIRED], at(3))).incident,
    resolved(escalated(opened('ref-chat', 'tiny', ['weur', 'apac'], [TTFT_FIRED], at(40)))).incident,
    withPoints(resolved(opened('ref-messages', 'tiny', ['enam'], [DOWN_FIRED], at(2))).incident),
    // Two variants of one target opened at one tick: ordered by id.
    withPoints(opened('ref-messages', 'code', ['apac'], [DOWN_FIRED], at(1)).incident),
    withPoints(opened('ref-messages', 'tiny', ['apac'], [DOWN_FIRED], at(1)).incident),
    resolved(opened('ref-broken', 'tiny', ['weur', 'enam'], [DOWN_FIRED], at(60))).incident,
    // Opened before the 90 days: listed while open, not once resolved.
    opened('ref-no-key', 'tiny', ['weur'], [DOWN_FIRED], at(100)).incident,
    resolved(opened('ref-broken', 'tiny', ['apac'], [DOWN_FIRED], at(95))).incident,
  ];
}

const PAGE = 'views-status';
/** The page as the targets name it (test-config.ts): the key its incidents are stored under. */
const PAGE_KEY = '{VENDOR_STATUS_URL}';
/** A vendor page polled twice: first empty (it is watched from then on), then with two incidents. */
async function pollVendorPage(): Promise<void> {
  const serve = async (incidents: unknown[]) => {
    const r = await fetch(`${env.STATUSPAGE_URL}/${PAGE}/_fixture`, {
      method: 'PUT',
      body: JSON.stringify({ mode: 'incidents', incidents }),
    });
    expect(r.status).toBe(204);
  };
  const bound = { ...env, VENDOR_STATUS_URL: `${env.STATUSPAGE_URL}/${PAGE}` } as Env;
  const first = Math.floor((now - 5 * DAY) / VENDOR_POLL_MS) * VENDOR_POLL_MS;
  await serve([]);
  await pollVendorStatus(bound, first);
  await serve([
    statuspageIncident({
      id: 'vs1',
      name: 'Elevated errors',
      created: iso(now - 2 * DAY + 20 * MIN),
      resolved: iso(now - 2 * DAY + 90 * MIN),
    }),
    statuspageIncident({
      id: 'vs2',
      name: 'Dashboard slow',
      impact: 'minor',
      created: iso(now - 4 * DAY),
      resolved: iso(now - 4 * DAY + HOUR),
    }),
  ]);
  await pollVendorStatus(bound, first + 4 * DAY);
}

/** The builder's marks: what a data owner said changed since they were last cleared. */
const marked = async () => Object.keys(await env.PUBLIC_VIEWS.getByName('global').dirtyParts()).sort();
/** Clears the builder's marks and its alarm, so no build comes between a view read and the live answer compared. */
const clearMarks = () =>
  runInDurableObject(env.PUBLIC_VIEWS.getByName('global'), async (instance: PublicViews, state) => {
    for (const part of Object.keys(await instance.dirtyParts())) instance.markDue(part, null);
    await state.storage.deleteAlarm();
  });

/** Waits (bounded, 30 s) until `done` says so. */
async function until(done: () => Promise<boolean>, what: string): Promise<void> {
  for (const end = Date.now() + 30_000; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) if (await done()) return;
  throw new Error(`not within 30 s: ${what}`);
}

let built: Awaited<ReturnType<typeof buildViews>>;

beforeAll(async () => {
  // Real ticks in the two hours before the last whole one: judged by the keeper, written to D1 once their hours ended.
  for (const t of [lastHour - 2 * HOUR + 10 * 5 * MIN, lastHour - HOUR + 5 * MIN]) await fireCron(t);
  await drain(regions);
  for (const region of regions)
    await alarmsUntil(region, async () => (await env.REGION_PROBER.getByName(region).status()).pendingEvaluations === 0);
  await writePastHistory();
  await upsertIncidents(env.DB, pastIncidents());
  await pollVendorPage();
  // The keeper has written every ended hour and incident (its alarm runs on its own once a report came).
  await until(async () => {
    const s = await env.STATUS_KEEPER.getByName('global').status();
    const hours = await historyRows(env.DB, { resolution: 'hour', from: lastHour - 2 * HOUR, to: lastHour });
    return s.incidents_unwritten === 0 && new Set(hours.map((h) => h.period)).size === 2;
  }, "the keeper wrote the ticks' hours and its incidents");
  await clearMarks();
  built = await buildViews();
}, 180_000);

const WINDOWS = [
  { resolution: 'hour', window: '24h' },
  { resolution: 'day', window: '7d' },
  { resolution: 'day', window: '30d' },
  { resolution: 'day', window: '90d' },
];
const NARROWED = [
  '',
  '&region=weur',
  '&target=ref-chat',
  '&target=ref-messages,ref-broken&variant=tiny',
  '&region=enam,apac&target=ref-chat',
];

/** Every query of these routes the views hold: each window and month, with and without filters. */
const VIEW_QUERIES = [
  '/api/v1/status-history',
  '/api/v1/status-history?resolution=hour',
  ...WINDOWS.flatMap((w) => NARROWED.map((n) => `/api/v1/status-history?resolution=${w.resolution}&window=${w.window}${n}`)),
  '/api/v1/maintenance',
  '/api/v1/maintenance?window=90d',
  '/api/v1/uptime',
  ...uptimeMonths(now).map((m) => `/api/v1/uptime?month=${m}`),
  '/api/v1/uptime?format=json',
  ...['', 'points=true&'].flatMap((p) =>
    [
      '',
      'target=ref-messages',
      'status=open',
      'status=resolved&limit=2',
      'target=ref-chat&status=resolved&limit=1',
      'limit=500&window=90d',
    ].map((f) => `/api/v1/incidents?${p}${f}`),
  ),
  '/api/v1/vendor-incidents',
  '/api/v1/vendor-incidents?window=90d',
  ...config.targets.map((t) => `/api/v1/vendor-incidents?target=${t.id}`),
  '/api/v1/vendor-incidents?limit=500',
  '/api/v1/vendor-incidents?target=ref-broken&limit=200',
];

/** The live route's pages of a status-history query over the view's window: the first's head, every page's rows end to end, how many. */
async function livePages(
  query: string,
  window: { from: string; to: string },
): Promise<{ head: Record<string, unknown>; rows: unknown[]; pages: number }> {
  const q = new URLSearchParams(query);
  q.delete('window');
  q.set('from', String(Date.parse(window.from)));
  q.set('to', String(Date.parse(window.to)));
  const rows: unknown[] = [];
  let head: Record<string, unknown> = {};
  for (let pages = 1; ; pages++) {
    const page = await (await live(`/api/v1/status-history?${q}`)).json<{ rows: unknown[]; next_cursor: string | null }>();
    if (pages === 1) head = { ...page, rows: undefined, next_cursor: null };
    rows.push(...page.rows);
    if (page.next_cursor === null) return { head, rows, pages };
    q.set('cursor', page.next_cursor);
  }
}

describe('the views of the status family', () => {
  it('answer every anonymous GET and HEAD they hold from a view: no D1 row, cacheable, 304 on If-None-Match', async () => {
    for (const path of VIEW_QUERIES) await expectViewAnswer(path);
  });

  it('hold the status history of each window: the live pages end to end, whole and narrowed', async () => {
    let paged = 0;
    for (const w of WINDOWS)
      for (const n of NARROWED) {
        const query = `resolution=${w.resolution}&window=${w.window}${n}`;
        const view = await fromView<{
          window: { from: string; to: string };
          rows: unknown[];
          next_cursor: string | null;
        }>(`/api/v1/status-history?${query}`);
        expect(view.next_cursor, query).toBeNull();
        const { head, rows, pages } = await livePages(query, view.window);
        if (pages > 1) paged++;
        expect({ ...view, rows: undefined }, query).toEqual(head);
        expect(view.rows, query).toEqual(rows);
        expect(view.rows.length, query).toBeGreaterThan(0);
      }
    // The 90 days whole are more than a page of the live route (retired targets' rows included).
    expect(paged).toBeGreaterThan(0);
    const whole = await fromView<{ rows: Array<{ target: string; day: string }> }>('/api/v1/status-history');
    expect(whole.rows.some((r) => r.target === 'retired-b')).toBe(true);
    expect(new Set(whole.rows.map((r) => r.day)).size).toBeGreaterThanOrEqual(89);
    // Each window of days ends with today's day, as far as its hours are written.
    for (const w of WINDOWS.filter((x) => x.resolution === 'day')) {
      const days = await fromView<{ rows: Array<{ day: string }> }>(`/api/v1/status-history?window=${w.window}&target=ref-chat`);
      expect(
        days.rows.map((r) => r.day),
        w.window,
      ).toContain(iso(today));
    }
    // The hours of the real ticks are there.
    const hours = await fromView<{ rows: Array<{ hour: string }> }>('/api/v1/status-history?resolution=hour&target=ref-chat');
    expect(hours.rows.map((r) => r.hour)).toContain(iso(lastHour - HOUR));
  });

  it('split a window of more lines than a narrowed view may hold: a view per target and per region, each the whole one narrowed', async () => {
    // At the configuration's size no window is over NARROWED_VIEW_LINES; at a budget of 100 lines the day windows are.
    const part = historyPart(100);
    const views = await part.build({ env, db: env.DB, now });
    const match = (q: string) => part.routes['/api/v1/status-history'](new URLSearchParams(q));
    expect(match('window=90d&target=ref-chat&region=weur')?.view).toBe('status-history/day/90d@target=ref-chat');
    expect(match('window=30d&region=apac')?.view).toBe('status-history/day/30d@region=apac');
    expect(match('window=90d&region=apac,weur&target=ref-chat,ref-broken')?.view).toBe('status-history/day/90d');
    expect(match('window=90d')?.view).toBe('status-history/day/90d');
    const doc = (name: string) =>
      (views.find((v) => v.name === name) as { doc: object }).doc as { rows: Array<{ target: string; region: string }> };
    const whole = doc('status-history/day/90d');
    for (const t of config.targets) {
      const split = doc(`status-history/day/90d@target=${t.id}`);
      expect(split).toEqual({ ...whole, rows: whole.rows.filter((r) => r.target === t.id) });
    }
    for (const r of regions) expect(doc(`status-history/day/90d@region=${r}`).rows).toEqual(whole.rows.filter((x) => x.region === r));
    // 30 days × 10 pairs are over 100 lines, 7 days under them.
    expect(views.filter((v) => v.name.startsWith('status-history/day/30d@'))).toHaveLength(config.targets.length + regions.length);
    expect(views.filter((v) => v.name.startsWith('status-history/day/7d@'))).toHaveLength(0);
    // The served default keeps every window whole: 90 days × 10 pairs is under the budget.
    expect((await get('/api/v1/status-history?target=ref-chat')).headers.get('x-view')).toBe('status-history/day/90d');
  });

  it("read each table's rows of their windows once a build, not once a view", async () => {
    const months = uptimeMonths(now);
    const count = async (sql: string, ...params: number[]) =>
      Number(
        (await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${sql}`)
          .bind(...params)
          .first<{ n: number }>())!.n,
      );
    const firstMonth = Date.parse(`${months[0]}-01T00:00:00Z`);
    // The hours of the last day, the days since the first month reached, and per month its incidents (scanned and sorted:
    // twice each) and daily rollups; D1 counts a row more for a query that finds none.
    const hours = await count('status_hours WHERE hour >= ?', lastHour - 24 * HOUR);
    const days = await count('status_days WHERE day >= ?', firstMonth);
    const perMonth = 2 * (await count('incidents')) + (await count('daily_rollups WHERE day >= ?', firstMonth));
    const queries = 3 + 2 * months.length;
    const rows = hours + days + months.length * perMonth + (await count('maintenance')) + queries;
    expect(built.history.rows_read).toBeGreaterThanOrEqual(days);
    expect(built.history.rows_read).toBeLessThanOrEqual(rows);
    // The incidents' views: every incident row read a handful of times (its window's ranking), whatever the views.
    expect(built.incidents.rows_read).toBeLessThanOrEqual(6 * (await count('incidents')));
    expect(built['vendor-incidents'].views).toBe(2 * (config.targets.length + 1));
    expect(built['vendor-incidents'].rows_read).toBeLessThanOrEqual(
      6 * ((await count('incidents')) + (await count('vendor_incidents'))) + 2,
    );
  });

  it('read per key what any limit up to theirs selects: the first of them that pass its filter', async () => {
    const from = now - 90 * DAY;
    // One a key, so that some of the fixtures' targets and states hold more than that.
    const perKey = await newestIncidentsPerKey(env.DB, { from, perKey: 1, withPoints: false });
    let cut = 0;
    for (const target of [undefined, ...config.targets.map((t) => t.id)])
      for (const status of [undefined, 'open', 'resolved'] as const)
        for (const limit of [1]) {
          const listed = await listIncidents(env.DB, { from, target, status, limit, withPoints: false });
          const kept = perKey.filter((i) => (!target || i.target === target) && (!status || i.status === status)).slice(0, limit);
          expect(kept, `${target} ${status} ${limit}`).toEqual(listed);
        }
    for (const target of config.targets.map((t) => t.id))
      for (const status of ['open', 'resolved'] as const)
        if ((await listIncidents(env.DB, { from, target, status, limit: 500, withPoints: false })).length > 1) cut++;
    expect(cut).toBeGreaterThan(0);
    const pages = [PAGE_KEY];
    const vendor = await newestVendorIncidentsPerPage(env.DB, { from, to: now, pages, perPage: 1 });
    expect(vendor).toEqual(await listVendorIncidents(env.DB, { from, to: now, pages, limit: 1 }));
    expect((await listVendorIncidents(env.DB, { from, to: now, pages, limit: 500 })).length).toBeGreaterThan(1);
  });

  it('hold the maintenance windows of the 90 days, the live answer from the same instant', async () => {
    const view = await fromView<{ from: string; windows: unknown[] }>('/api/v1/maintenance');
    expect(view).toEqual(await (await live(`/api/v1/maintenance?from=${Date.parse(view.from)}`)).json());
  });

  it("hold each month's uptime that the 90 days reach, equal to the route's report at the same instant", async () => {
    const months = uptimeMonths(now);
    expect(months.length).toBeGreaterThanOrEqual(3);
    for (const month of months) {
      const view = await fromView<{ from: string; to: string; rows: Array<{ due: number; uptime: number | null }> }>(
        `/api/v1/uptime?month=${month}`,
      );
      expect(view.rows.length, month).toBeGreaterThan(0);
      if (month !== monthOf(now)) {
        // A month over: its report is the same at any later instant. The history written counts in it.
        expect(
          view.rows.some((r) => r.uptime !== null && r.uptime > 0),
          month,
        ).toBe(true);
        expect(view, month).toEqual(await (await live(`/api/v1/uptime?month=${month}`)).json());
        continue;
      }
      // The month in progress counts up to now: the route's own functions at the instant the view was built.
      const at = Date.parse(view.to);
      const from = Date.parse(view.from);
      const days = await historyRows(env.DB, { resolution: 'day', from, to: at }, monthRows());
      expect(view, month).toEqual(
        JSON.parse(JSON.stringify(uptimeDocument(uptimeReport(month, at, days, await uptimeReads(env.DB, from, at))))),
      );
    }
    expect(await fromView('/api/v1/uptime')).toEqual(await fromView(`/api/v1/uptime?month=${monthOf(now)}`));
  });

  it('hold the incidents with and without points: every target, status and limit as the live route lists them', async () => {
    for (const points of ['', '&points=true'])
      for (const target of ['', ...config.targets.map((t) => `&target=${t.id}`)])
        for (const status of ['', '&status=open', '&status=resolved'])
          for (const limit of ['', '&limit=1', '&limit=2', '&limit=500']) {
            const query = `${points}${target}${status}${limit}`.slice(1);
            const view = await fromView<{
              window: { from: string; to: string };
              incidents: unknown[];
            }>(`/api/v1/incidents?${query}`);
            const from = Date.parse(view.window.from);
            const to = Date.parse(view.window.to);
            expect(view, query).toEqual(await (await live(`/api/v1/incidents?from=${from}&to=${to}&${query}`)).json());
          }
    const all = await fromView<{ incidents: Array<{ id: string; points: unknown[] }> }>('/api/v1/incidents?points=true');
    // The fixtures and the real ticks' own incidents; the one resolved before the 90 days left out, the open one kept.
    expect(all.incidents.length).toBeGreaterThanOrEqual(pastIncidents().length - 1);
    expect(all.incidents.some((i) => i.id.endsWith('ref-no-key-tiny'))).toBe(true);
    expect(all.incidents.some((i) => i.points.length > 0)).toBe(true);
    // Two opened at one tick come in the order of their ids, in the views as in the live route.
    const tied = all.incidents
      .map((i) => i.id)
      .filter((id) => /-ref-messages-(code|tiny)$/.test(id) && id.startsWith(all.incidents[0].id.split('-')[0]));
    expect(tied.map((id) => id.split('-').at(-1))).toEqual(['code', 'tiny']);
  });

  it('hold the vendor incidents beside the probes: the whole answer and each target’s', async () => {
    for (const target of [undefined, ...config.targets.map((t) => t.id)])
      for (const limit of ['', '&limit=500']) {
        const narrow = `${target ? `target=${target}` : ''}${limit}`;
        const view = await fromView<VendorIncidentsDoc>(`/api/v1/vendor-incidents?${narrow}`);
        const w = `from=${Date.parse(view.window.from)}&to=${Date.parse(view.window.to)}`;
        expect(view, narrow).toEqual(await (await live(`/api/v1/vendor-incidents?${w}&${narrow}`)).json());
      }
    const whole = await fromView<VendorIncidentsDoc>('/api/v1/vendor-incidents');
    expect(whole.vendor_incidents.map((v) => v.id)).toEqual(['vs1', 'vs2']);
    expect(whole.probe_incidents.length).toBeGreaterThan(0);
    expect(whole.matches.length + whole.unposted_by_vendor.length).toBeGreaterThan(0);
  });

  it('leave what they do not hold to the live path, and a bad value is the route’s own 400', async () => {
    for (const path of [
      '/api/v1/status-history?resolution=hour&window=7d',
      '/api/v1/status-history?window=14d',
      `/api/v1/status-history?from=${today - 7 * DAY}`,
      `/api/v1/status-history?cursor=${today - 30 * DAY}`,
      '/api/v1/maintenance?window=30d',
      '/api/v1/uptime?format=csv',
      '/api/v1/incidents?window=7d',
      `/api/v1/incidents?from=${today - DAY}`,
      '/api/v1/vendor-incidents?limit=10',
      '/api/v1/vendor-incidents?limit=0500',
      '/api/v1/vendor-incidents?window=30d',
    ]) {
      const r = await get(path);
      expect(r.status, path).toBe(200);
      expect(r.headers.get('x-view'), path).toBeNull();
    }
    for (const path of [
      '/api/v1/status-history?region=mars',
      '/api/v1/status-history?resolution=week',
      '/api/v1/uptime?month=2026-13',
      '/api/v1/uptime?month=2099-01',
      '/api/v1/incidents?target=nope',
      '/api/v1/incidents?limit=501',
      '/api/v1/incidents?points=maybe',
      '/api/v1/vendor-incidents?target=nope',
      '/api/v1/maintenance?windows=90d',
    ]) {
      const r = await get(path);
      expect(r.status, path).toBe(400);
    }
  });

  it('are marked when their data change: an ended hour, incidents, a maintenance window, a vendor poll', async () => {
    await clearMarks();
    // A window made through the admin API.
    const admin = { authorization: `Bearer ${env.ADMIN_TOKEN}` };
    const made = await get('/api/v1/maintenance', {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ region: 'apac', start: iso(now + DAY), end: iso(now + DAY + HOUR), note: 'views test' }),
    });
    expect(made.status, await made.clone().text()).toBe(201);
    expect(await marked()).toEqual(['history']);
    await clearMarks();
    // The keeper writes an incident, then a tick's ended hour.
    await runInDurableObject(env.STATUS_KEEPER.getByName('global'), async (keeper, state) => {
      const incident = opened('ref-chat', 'tiny', ['weur'], [TTFT_FIRED], lastHour - 3 * HOUR).incident;
      state.storage.sql.exec(
        "INSERT INTO incidents (id, target, variant, status, body, unwritten, reminded_at) VALUES (?, 'ref-chat', 'tiny', 'open', ?, 1, ?)",
        incident.id,
        JSON.stringify(incident),
        now,
      );
      state.storage.sql.exec(
        "INSERT INTO history (hour, target, variant, region, ticks, unwritten, touched_at) VALUES (?, 'ref-chat', 'tiny', 'weur', ?, 1, ?)",
        lastHour - 3 * HOUR,
        JSON.stringify({ [lastHour - 3 * HOUR]: ['operational', null] }),
        now,
      );
      await keeper.alarm();
    });
    expect(await marked()).toEqual(['history', 'incidents', 'vendor-incidents']);
    await clearMarks();
    const bound = { ...env, VENDOR_STATUS_URL: `${env.STATUSPAGE_URL}/${PAGE}` } as Env;
    await fetch(`${env.STATUSPAGE_URL}/${PAGE}/_fixture`, {
      method: 'PUT',
      body: JSON.stringify({ mode: 'incidents', incidents: [statuspageIncident({ id: 'vs3', created: iso(now - HOUR) })] }),
    });
    await pollVendorStatus(bound, Math.floor(now / VENDOR_POLL_MS) * VENDOR_POLL_MS);
    expect(await marked()).toEqual(['vendor-incidents']);
    await clearMarks();
  });
});
