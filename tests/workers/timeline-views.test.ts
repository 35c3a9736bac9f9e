/**
 * The timeline, concurrency-report and scrape views: built once by the view builder from real ticks, rollups and
 * concurrency runs, answered to every anonymous GET and HEAD with no D1 row read (cacheable: Cache-Control, ETag,
 * 304), narrowed by region, target and variant, and equal to what the live path computes over the same data
 * (deep-equal JSON; byte-equal Prometheus text).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { SELF } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import type { BurstsDoc, TimelineDoc } from '../../shared/api-types.ts';
import { VIEW_WINDOWS } from '../../shared/views/windows.ts';
import { PROMETHEUS_CONTENT_TYPE } from '../../workers/observatory/api/prometheus.ts';
import { alarmsUntil, drain } from './drain.ts';
import { fireCron } from './fire-cron.ts';
import { config } from './test-config.ts';

const HOUR = 3_600_000;
const FIVE_MIN = 300_000;
const now = Date.now();
const lastHour = Math.floor(now / HOUR) * HOUR;
// Ticks in the two hours before the last whole hour, and one two days ago (its day has daily rows).
const ticks = [lastHour - 2 * HOUR + 10 * FIVE_MIN, lastHour - HOUR + FIVE_MIN, lastHour - HOUR + 7 * FIVE_MIN, lastHour - 50 * HOUR];
// A concurrency run in the hour before the last whole one (the bursts' own cron, at its minute).
const burstRun = lastHour - HOUR + 2 * 60_000;
const regions = config.regions.map((r) => r.code);
const burstTargets = config.targets.filter((t) => t.bursts).map((t) => t.id);
/** The live path: a token holder asking for a fresh answer (without `no-cache` a view query is answered from its view). */
const token = { authorization: `Bearer ${env.READ_TOKEN}`, 'cache-control': 'no-cache' };

const get = (path: string, init: RequestInit = {}) => SELF.fetch(`https://observatory.test${path}`, init);
const live = (path: string) => get(path, { headers: token });
const rowsRead = (r: Response) => r.headers.get('x-d1-rows-read');

let built: { parts: Record<string, { views: number; rows_read: number; bytes: number; error: string | null }> };

beforeAll(async () => {
  for (const t of ticks) await fireCron(t);
  await fireCron(burstRun, { cron: config.bursts!.schedule });
  await drain(regions);
  for (const region of regions) {
    const stub = env.REGION_PROBER.getByName(region);
    // Every ended hour rolled up, every tick judged, and the concurrency runs stored.
    await alarmsUntil(region, async () => {
      const s = await stub.status();
      return s.pendingEvaluations === 0 && s.lastRollupError === null && s.pendingBursts === 0;
    });
  }
  const r = await SELF.fetch('https://observatory.test/api/v1/views', {
    method: 'POST',
    headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` },
  });
  expect(r.status, await r.clone().text()).toBe(200);
  built = await r.json();
}, 180_000);

/** Every query of these routes the views hold: each window, with and without filters, pooled; the report; each scrape. */
const VIEW_QUERIES = [
  '/api/v1/timeline',
  ...VIEW_WINDOWS.flatMap((w) => [
    `/api/v1/timeline?window=${w.id}`,
    `/api/v1/timeline?window=${w.id}&region=weur`,
    `/api/v1/timeline?window=${w.id}&target=ref-chat,ref-messages&variant=tiny`,
    `/api/v1/timeline?window=${w.id}&pooled=true`,
    `/api/v1/timeline?window=${w.id}&pooled=true&target=ref-chat`,
    `/api/v1/timeline?window=${w.id}&pooled=false&region=apac,enam&format=json`,
  ]),
  '/api/v1/bursts',
  '/api/v1/bursts?runs=6',
  '/api/v1/bursts?region=weur',
  '/api/v1/bursts?target=ref-chat&region=enam,apac',
  '/metrics',
  ...regions.map((r) => `/metrics?region=${r}`),
];

describe('the timeline, concurrency and scrape views', () => {
  it('answer every anonymous GET and HEAD they hold without D1 or a Durable Object, cacheable', async () => {
    for (const path of VIEW_QUERIES) {
      const r = await get(path);
      expect(r.status, `${path}: ${await r.clone().text()}`).toBe(200);
      expect(r.headers.get('x-view'), path).toBeTruthy();
      expect(rowsRead(r), path).toBe('0');
      expect(r.headers.get('x-do-requests'), path).toBe('0');
      expect(r.headers.get('cache-control'), path).toMatch(/^public, max-age=\d+, stale-while-revalidate=\d+$/);
      expect(Date.parse(r.headers.get('last-modified')!), path).toBeGreaterThan(0);
      expect(r.headers.get('content-type'), path).toBe(
        path.startsWith('/metrics') ? PROMETHEUS_CONTENT_TYPE : 'application/json; charset=utf-8',
      );
      const etag = r.headers.get('etag')!;
      expect(etag, path).toMatch(/^"[0-9a-f-]+"$/);
      await r.text();
      const head = await get(path, { method: 'HEAD' });
      expect(head.status, path).toBe(200);
      expect(head.headers.get('etag'), path).toBe(etag);
      expect(rowsRead(head), path).toBe('0');
      expect(await head.text()).toBe('');
      for (const method of ['GET', 'HEAD']) {
        const again = await get(path, { method, headers: { 'if-none-match': etag } });
        expect(again.status, `${method} ${path} with If-None-Match`).toBe(304);
        expect(rowsRead(again)).toBe('0');
      }
    }
  });

  it('hold the timeline of every window: equal to the live one over the same hours, whole and narrowed', async () => {
    for (const w of VIEW_WINDOWS) {
      const whole = await (await get(`/api/v1/timeline?window=${w.id}`)).json<TimelineDoc>();
      expect(whole.resolution).toBe(w.id === '24h' ? 'hour' : 'day');
      const span = `from=${Date.parse(whole.window.from)}&to=${Date.parse(whole.window.to)}`;
      /** The view's answer to `narrow`, and the live one over the same hours (null: more than one live request may read). */
      const both = async (narrow: string) => {
        const view = await get(`/api/v1/timeline?window=${w.id}${narrow}`);
        expect(view.headers.get('x-view'), narrow).toBeTruthy();
        const answer = await live(`/api/v1/timeline?${span}${narrow}`);
        expect(answer.headers.get('x-view')).toBeNull();
        const liveDoc = await answer.json<TimelineDoc & { error?: { code: string } }>();
        if (liveDoc.error?.code === 'too_much_work') return null;
        expect(answer.status, JSON.stringify(liveDoc)).toBe(200);
        return { view: await view.json<TimelineDoc>(), live: liveDoc };
      };
      // Every series alone, each target's pooled one, and whatever else one live request reads.
      const pairs = whole.series.map((s) => `&region=${s.region}&target=${s.target}&variant=${s.prompt_variant}`);
      expect(pairs.length).toBeGreaterThan(regions.length);
      const pooled = [...new Set(whole.series.map((s) => s.target))].map((t) => `&pooled=true&target=${t}`);
      for (const narrow of [...pairs, ...pooled]) {
        const answers = await both(narrow);
        expect(answers, `${w.id}${narrow}`).not.toBeNull();
        expect(answers!.view, `${w.id}${narrow}`).toEqual(answers!.live);
      }
      for (const narrow of ['', '&pooled=true', ...regions.map((r) => `&region=${r}`), '&region=weur,apac&target=ref-messages']) {
        const answers = await both(narrow);
        // The days of the whole grid are more than one live request on the free plan may read: its parts are compared above.
        if (answers === null && w.id !== '24h' && w.id !== '7d') continue;
        expect(answers, `${w.id}${narrow}`).not.toBeNull();
        expect(answers!.view, `${w.id}${narrow}`).toEqual(answers!.live);
      }
      // Narrowed lines are the whole view's lines that match.
      const weur = await (await get(`/api/v1/timeline?window=${w.id}&region=weur`)).json<TimelineDoc>();
      expect(weur.series).toEqual(whole.series.filter((s) => s.region === 'weur'));
      expect(weur.series.length).toBeGreaterThan(0);
    }
    // What the views hold: the 24 h view's hours of probes, the 7-day one's day two days ago.
    const day = await (await get('/api/v1/timeline?window=24h')).json<TimelineDoc>();
    const hours = [lastHour - 2 * HOUR, lastHour - HOUR].map((t) => new Date(t).toISOString());
    expect(day.series.length).toBeGreaterThan(0);
    for (const s of day.series) expect(s.points.map((p) => p.start)).toEqual(hours);
    const broken = day.series.filter((s) => s.target === 'ref-broken').flatMap((s) => s.points);
    expect(broken.length).toBeGreaterThan(0);
    expect(broken.every((p) => p.failures === p.probes && p.ttft_p50 === null && (p.errors.http ?? 0) === p.probes)).toBe(true);
    const week = await (await get('/api/v1/timeline?window=7d&pooled=true')).json<TimelineDoc>();
    expect(week.series.every((s) => s.region === '*')).toBe(true);
    const twoDaysAgo = new Date(Math.floor((lastHour - 50 * HOUR) / (24 * HOUR)) * 24 * HOUR).toISOString();
    expect(week.series.some((s) => s.points.some((p) => p.start === twoDaysAgo && p.probes > 0))).toBe(true);
  });

  it('hold the concurrency report: equal to the live one, whole and narrowed', async () => {
    for (const query of ['', '?region=weur', '?target=ref-chat', '?target=ref-messages&region=enam,apac', '?runs=6&region=apac']) {
      const view = await get(`/api/v1/bursts${query}`);
      expect(view.headers.get('x-view'), query).toBe('bursts');
      const doc = await view.json<BurstsDoc>();
      expect(doc, query).toEqual(await (await live(`/api/v1/bursts${query}`)).json());
    }
    const report = await (await get('/api/v1/bursts')).json<BurstsDoc>();
    expect(report.runs).toEqual([new Date(burstRun).toISOString()]);
    expect(new Set(report.reports.map((r) => `${r.region} ${r.target}`))).toEqual(
      new Set(regions.flatMap((region) => burstTargets.map((t) => `${region} ${t}`))),
    );
  });

  it('hold the scrape of every region and of each: byte for byte the live text', async () => {
    for (const query of ['', ...regions.map((r) => `?region=${r}`)]) {
      const view = await get(`/metrics${query}`);
      expect(view.headers.get('x-view'), query).toBeTruthy();
      const text = await view.text();
      const answer = await live(`/metrics${query}`);
      expect(answer.headers.get('content-type')).toBe(PROMETHEUS_CONTENT_TYPE);
      expect(text, query).toBe(await answer.text());
      expect(text).toContain('llm_probes_total{');
    }
    expect(await (await get('/metrics?region=weur')).text()).not.toContain('region="apac"');
  });

  it('leave what they do not hold to the live path', async () => {
    for (const path of [
      `/api/v1/timeline?from=${lastHour - 3 * HOUR}&to=${lastHour}`,
      '/api/v1/timeline?window=7d&pooled=true&region=weur',
      '/api/v1/timeline?window=24h&format=csv',
      '/api/v1/bursts?streams=true',
      '/api/v1/bursts?runs=3',
      '/api/v1/bursts?window=1d',
      '/metrics?region=weur,enam',
    ]) {
      const r = await get(path);
      expect(r.status, `${path}: ${await r.clone().text()}`).toBe(200);
      expect(r.headers.get('x-view'), path).toBeNull();
    }
    // A bad value is the route's own 400, whichever path it would have taken.
    for (const path of [
      '/api/v1/timeline?window=6h',
      '/api/v1/timeline?window=7d&region=mars',
      '/api/v1/timeline?window=7d&pooled=maybe',
      '/api/v1/bursts?target=nope',
      '/metrics?region=mars',
    ]) {
      const r = await get(path);
      expect(r.status, path).toBe(400);
    }
    // Pooled over some regions only: the live path pools those alone.
    const two = await (await get('/api/v1/timeline?window=24h&pooled=true&region=weur')).json<TimelineDoc>();
    const weur = await (await get('/api/v1/timeline?window=24h&region=weur')).json<TimelineDoc>();
    expect(two.series.map((s) => [s.region, s.target, s.points])).toEqual(weur.series.map((s) => ['*', s.target, s.points]));
  });

  it("say in the manifest what each part's build read", async () => {
    const parts = built.parts;
    for (const part of ['timeline', 'bursts', 'metrics']) {
      expect(parts[part], part).toBeDefined();
      expect(parts[part].error, part).toBeNull();
      expect(parts[part].rows_read, part).toBeGreaterThan(0);
    }
    // 4 windows × (by region, pooled); every region's scrape and each region's.
    expect(parts.timeline.views).toBe(8);
    expect(parts.metrics.views).toBe(1 + regions.length);
    expect(parts.bursts.views).toBe(1);
    // The scrape reads the running totals twice: once for every region, once region by region (each region's seek
    // reading at most one row past its own).
    const totals = Number((await env.DB.prepare('SELECT COUNT(*) AS n FROM rollup_totals').first<{ n: number }>())!.n);
    expect(parts.metrics.rows_read).toBeGreaterThanOrEqual(2 * totals);
    expect(parts.metrics.rows_read).toBeLessThanOrEqual(2 * totals + regions.length);
    console.log(
      `views built: ${['timeline', 'bursts', 'metrics'].map((p) => `${p} ${parts[p].views} views, ${parts[p].rows_read} D1 rows read, ${parts[p].bytes} bytes`).join('; ')}`,
    );
  });
});
