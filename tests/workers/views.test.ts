/**
 * The public views: computed once by the view builder, answered to every anonymous GET and HEAD from R2 with no
 * D1 row read and no Durable Object called, narrowed by region, target and variant, cacheable (Cache-Control,
 * ETag, 304), and equal to what the live path computes over the same data.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runDurableObjectAlarm, runInDurableObject, SELF } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { VIEW_WINDOWS } from '../../shared/views/windows.ts';
import { expectFromView, viewQueries } from '../helpers/view-queries.ts';
import { ROLLUP_FIGURES } from '../../workers/observatory/api/percentiles.ts';
import { forgetViews, viewKey } from '../../workers/observatory/views/view-store.ts';
import type { PublicViews } from '../../workers/observatory/views/public-views.ts';
import { alarmsUntil, drain } from './drain.ts';
import { fireCron } from './fire-cron.ts';
import { config } from './test-config.ts';

const HOUR = 3_600_000;
const FIVE_MIN = 300_000;
const now = Date.now();
const lastHour = Math.floor(now / HOUR) * HOUR;
// Ticks in the two hours before the last whole hour, and one two days ago (its day has daily rows).
const ticks = [lastHour - 2 * HOUR + 10 * FIVE_MIN, lastHour - HOUR + FIVE_MIN, lastHour - HOUR + 7 * FIVE_MIN, lastHour - 50 * HOUR];
const regions = config.regions.map((r) => r.code);
/** The live path: a token holder asking for a fresh answer (without `no-cache` a view query is answered from its view). */
const token = { authorization: `Bearer ${env.READ_TOKEN}`, 'cache-control': 'no-cache' };

const get = (path: string, init: RequestInit = {}) => SELF.fetch(`https://observatory.test${path}`, init);
const rowsRead = (r: Response) => r.headers.get('x-d1-rows-read');

async function buildViews(): Promise<void> {
  const r = await SELF.fetch('https://observatory.test/api/v1/views', {
    method: 'POST',
    headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` },
  });
  expect(r.status, await r.clone().text()).toBe(200);
}

beforeAll(async () => {
  for (const t of ticks) await fireCron(t);
  await drain(regions);
  // Every hour rolled up and every tick judged by the status keeper before the views are built.
  for (const region of regions) {
    const stub = env.REGION_PROBER.getByName(region);
    await alarmsUntil(region, async () => {
      const s = await stub.status();
      // Today's day stays owed until it ends; every ended hour is rolled up by the alarm that judges its ticks.
      return s.pendingEvaluations === 0 && s.lastRollupError === null;
    });
  }
  await buildViews();
}, 120_000);

/** Every query of a view route the views hold: each window, with and without filters. */
const VIEW_QUERIES = viewQueries(regions, ['ref-chat', 'ref-messages'], 'tiny');

describe('the public views', () => {
  it('answer every anonymous GET and HEAD they hold without D1 or a Durable Object, cacheable', async () => {
    for (const path of VIEW_QUERIES) await expectFromView(get, path);
  });

  it('narrow by region, target and variant, each narrowed answer with its own ETag', async () => {
    const whole = await (await get('/api/v1/percentiles?window=7d')).json<{ groups: Array<{ region: string; target: string }> }>();
    expect(new Set(whole.groups.map((g) => g.region)).size).toBeGreaterThan(1);
    const weur = await get('/api/v1/percentiles?window=7d&region=weur');
    const narrowed = await weur.json<{ groups: Array<{ region: string; target: string }> }>();
    expect(narrowed.groups.length).toBeGreaterThan(0);
    expect(narrowed.groups).toEqual(whole.groups.filter((g) => g.region === 'weur'));
    const two = await (await get('/api/v1/percentiles?window=7d&target=ref-chat&region=enam,apac')).json<typeof whole>();
    expect(two.groups).toEqual(whole.groups.filter((g) => g.target === 'ref-chat' && ['enam', 'apac'].includes(g.region)));
    expect(weur.headers.get('etag')).not.toBe((await get('/api/v1/percentiles?window=7d')).headers.get('etag'));
    expect(weur.headers.get('etag')).not.toBe((await get('/api/v1/percentiles?window=7d&region=enam')).headers.get('etag'));
  });

  it('equal the live computation over the same data: every window and figure, whole and narrowed', async () => {
    for (const w of VIEW_WINDOWS) {
      for (const metric of ROLLUP_FIGURES) {
        // Narrowed to each region, as a free-plan request of the live path merges (the whole grid of 90 days is more).
        for (const region of [...regions, undefined]) {
          const narrow = region ? `&region=${region}` : '';
          const view = await (await get(`/api/v1/percentiles?window=${w.id}&metric=${metric}${narrow}`)).json<{
            window: { from: string; to: string };
          }>();
          const from = Date.parse(view.window.from);
          const to = Date.parse(view.window.to);
          const live = await get(`/api/v1/percentiles?source=rollups&metric=${metric}&from=${from}&to=${to}${narrow}`, { headers: token });
          expect(live.headers.get('x-view')).toBeNull();
          const answer = await live.json<{ error?: { code: string } }>();
          // The whole grid over 90 days is more than one live request may merge (too_much_work): its regions are compared.
          if (!region && answer.error?.code === 'too_much_work') continue;
          expect(view, `${w.id} ${metric} ${region ?? 'every region'}`).toEqual(answer);
        }
      }
      const pooled = await (await get(`/api/v1/percentiles?window=${w.id}&by=target`)).json<{ window: { from: string; to: string } }>();
      const live = await get(
        `/api/v1/percentiles?source=rollups&by=target&from=${Date.parse(pooled.window.from)}&to=${Date.parse(pooled.window.to)}`,
        { headers: token },
      );
      const answer = await live.json<{ error?: { code: string } }>();
      if (answer.error?.code !== 'too_much_work') expect(pooled).toEqual(answer);
    }
    // The views hold samples: the 7-day one counts the day two days ago and the last hours.
    const week = await (await get('/api/v1/percentiles?window=7d')).json<{ groups: Array<{ samples: number }> }>();
    expect(week.groups.reduce((n, g) => n + g.samples, 0)).toBeGreaterThan(0);
  });

  it('equal the live status, catalog, places of answer and fidelity', async () => {
    const { generated_at: _, ...status } = await (await get('/api/v1/status')).json<Record<string, unknown>>();
    const { generated_at: __, ...liveStatus } = await (await get('/api/v1/status', { headers: token })).json<Record<string, unknown>>();
    expect(status).toEqual(liveStatus);
    const hours = `from=${lastHour - 24 * HOUR}&to=${lastHour}`;
    const targets = await (await get('/api/v1/targets')).json<{ targets: Array<{ id: string; samples: number }> }>();
    // Every sample of the 24 whole hours: the ticks of the two hours before the last.
    const stored = await env.DB.prepare('SELECT target, COUNT(*) AS n FROM samples WHERE tick_id >= ? AND tick_id < ? GROUP BY target')
      .bind(lastHour - 24 * HOUR, lastHour)
      .all<{ target: string; n: number }>();
    expect(stored.results.length).toBeGreaterThan(0);
    for (const row of stored.results) expect(targets.targets.find((t) => t.id === row.target)?.samples, row.target).toBe(row.n);
    expect(targets).toEqual(await (await get(`/api/v1/targets?source=rollups&${hours}`, { headers: token })).json());
    const regionsView = await (await get('/api/v1/regions')).json<{
      regions: Array<{ samples: number; colos: Array<{ samples: number }> }>;
    }>();
    expect(regionsView).toEqual(await (await get(`/api/v1/regions?source=rollups&${hours}`, { headers: token })).json());
    for (const r of regionsView.regions) expect(r.colos.reduce((n, c) => n + c.samples, 0)).toBe(r.samples);
    for (const route of ['served-by', 'fidelity']) {
      const view = await (await get(`/api/v1/${route}`)).json<{ rows: Array<{ region: string }> }>();
      expect(view.rows.length, route).toBeGreaterThan(0);
      expect(view, route).toEqual(await (await get(`/api/v1/${route}?${hours}`, { headers: token })).json());
      const apac = await (await get(`/api/v1/${route}?region=apac`)).json<typeof view>();
      expect(apac.rows, route).toEqual(view.rows.filter((r) => r.region === 'apac'));
    }
    // Where each was answered: the reference endpoint names no place; its TTFT median is that of the successes.
    const served = await (await get('/api/v1/served-by?region=weur&target=ref-chat')).json<{
      rows: Array<{ places: Array<{ place: string | null; samples: number; ttft_p50: number | null }> }>;
    }>();
    const ttft = await env.DB.prepare(
      "SELECT ttft_ms FROM samples WHERE region = 'weur' AND target = 'ref-chat' AND error IS NULL AND tick_id >= ? AND tick_id < ? ORDER BY ttft_ms",
    )
      .bind(lastHour - 24 * HOUR, lastHour)
      .all<{ ttft_ms: number }>();
    const values = ttft.results.map((r) => r.ttft_ms);
    const median = values.length % 2 ? values[(values.length - 1) / 2] : (values[values.length / 2 - 1] + values[values.length / 2]) / 2;
    expect(served.rows[0].places).toEqual([{ place: null, source: null, samples: 3, ttft_p50: median }]);
  });

  it('equal the live time profiles: each cell the median of its days', async () => {
    const view = await (await get('/api/v1/time-profiles')).json<{
      window: { from: string; to: string };
      rows: Array<{ region: string; target: string; cells: Array<[number, number, number | null]> }>;
    }>();
    expect(view.rows.length).toBeGreaterThan(0);
    const live = await get(`/api/v1/time-profiles?from=${Date.parse(view.window.from)}&to=${Date.parse(view.window.to)}`, {
      headers: token,
    });
    expect(view).toEqual(await live.json());
    // The day two days ago holds one tick: its weekday's cell at that hour has one day. The window holds whole days
    // only, so the recent ticks add their cells only when they fell before its end (just after midnight UTC).
    const cellOf = (t: number) => {
      const d = new Date(t);
      return ((d.getUTCDay() + 6) % 7) * 24 + d.getUTCHours();
    };
    const [from, to] = [Date.parse(view.window.from), Date.parse(view.window.to)];
    const cells = new Set(ticks.filter((t) => t >= from && t < to).map(cellOf));
    const chat = view.rows.find((r) => r.region === 'weur' && r.target === 'ref-chat')!;
    expect(chat.cells).toHaveLength(7 * 24);
    expect(chat.cells[cellOf(ticks[3])][0]).toBe(1);
    expect(chat.cells.flatMap(([days], i) => (days > 0 ? [i] : []))).toEqual([...cells].sort((a, b) => a - b));
    const narrowed = await (await get('/api/v1/time-profiles?region=weur&target=ref-chat')).json<typeof view>();
    expect(narrowed.rows).toEqual([chat]);
  });

  it('are built by the marks their data owners set: each part once its settling time has passed, only the parts marked', async () => {
    const views = env.PUBLIC_VIEWS.getByName('global');
    const marked = Date.now();
    await views.markDirty(['status', 'percentiles']);
    await views.markDirty(['status']);
    const due = await views.dirtyParts();
    expect(Object.keys(due).sort()).toEqual(['percentiles', 'status']);
    // A tick's reports settle for a minute (its first mark counts, not the second); a rollup's marks for
    // ROLLUP_SETTLE_SECONDS (wrangler.toml: 15 locally).
    expect(due.status - marked).toBeGreaterThanOrEqual(59_000);
    expect(due.status - marked).toBeLessThanOrEqual(61_000 + 1_000);
    expect(due.percentiles - marked).toBeGreaterThanOrEqual(14_000);
    expect(due.percentiles - marked).toBeLessThan(59_000);
    const before = (await views.manifest()).parts;
    // The alarm a mark sets (in the tests, the tests set it: VIEW_BUILDS is on-demand), run before anything is due.
    const runAlarm = async () => {
      await runInDurableObject(views, (_, state) => state.storage.setAlarm(Date.now() + 60_000));
      return runDurableObjectAlarm(views);
    };
    expect(await runAlarm()).toBe(true);
    expect((await views.manifest()).parts.status.built_at).toBe(before.status.built_at);
    // The status due now: only it is built, the percentiles stay marked for later.
    await runInDurableObject(views, (instance: PublicViews) => instance.markDue('status', 0));
    expect(await runAlarm()).toBe(true);
    const after = (await views.manifest()).parts;
    expect(after.status.built_at).toBeGreaterThan(before.status.built_at!);
    expect(after.percentiles.built_at).toBe(before.percentiles.built_at);
    expect(Object.keys(await views.dirtyParts())).toEqual(['percentiles']);
    await runInDurableObject(views, (instance: PublicViews) => instance.markDue('percentiles', null));
  });

  it('leave what they do not hold to the live path', async () => {
    for (const path of [
      '/api/v1/percentiles?window=6h',
      '/api/v1/percentiles?window=24h&source=raw',
      `/api/v1/percentiles?from=${lastHour - 3 * HOUR}&to=${lastHour}`,
      '/api/v1/percentiles?window=7d&by=region&source=rollups',
      '/api/v1/percentiles?window=7d&by=target&region=weur&source=rollups',
      '/api/v1/percentiles?window=7d&format=csv&source=rollups',
      '/api/v1/targets?window=2h',
    ]) {
      const r = await get(path);
      expect(r.status, path).toBe(200);
      expect(r.headers.get('x-view'), path).toBeNull();
    }
    // A bad value is the route's own 400, whichever path it would have taken.
    for (const path of ['/api/v1/percentiles?window=7d&region=mars', '/api/v1/percentiles?window=7d&metric=nope']) {
      const r = await get(path);
      expect(r.status, path).toBe(400);
    }
    // A token holder is answered from the view too, unless it asks for a fresh answer (then the live path computes).
    const stored = await get('/api/v1/percentiles?window=7d', { headers: { authorization: token.authorization } });
    expect(stored.headers.get('x-view')).toMatch(/^percentiles\//);
    expect(rowsRead(stored)).toBe('0');
    expect((await get('/api/v1/percentiles?window=7d', { headers: token })).headers.get('x-view')).toBeNull();
    const pragma = { authorization: token.authorization, pragma: 'no-cache' };
    expect((await get('/api/v1/percentiles?window=7d', { headers: pragma })).headers.get('x-view')).toBeNull();
  });

  it('are said in health to be this old, and a view never built falls back to the live path', async () => {
    const health = await (await get('/api/v1/health', { headers: token })).json<{
      views: Record<string, { age_seconds: number; error: string | null }>;
    }>();
    for (const part of ['status', 'percentiles', 'catalog', 'health']) {
      expect(health.views[part], part).toBeDefined();
      expect(health.views[part].error, part).toBeNull();
      expect(health.views[part].age_seconds, part).toBeGreaterThanOrEqual(0);
    }
    // The stored health says its own build too, though the manifest is written after it.
    const stored = await get('/api/v1/health');
    expect(stored.headers.get('x-view')).toBe('health');
    const own = (await stored.json<{ views: Record<string, { built_at: string | null; age_seconds: number }> }>()).views.health;
    expect(own.built_at).toBeTruthy();
    expect(own.age_seconds).toBe(0);
    await env.ARCHIVE.delete(viewKey('percentiles/30d/tpot_ms'));
    forgetViews();
    const r = await get('/api/v1/percentiles?window=30d&metric=tpot_ms&source=rollups');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-view')).toBe('missing');
  });
});
