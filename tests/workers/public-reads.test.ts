/**
 * Anonymous reads have a bounded cost: per request (a bound `npm run capacity` states), a repeated
 * request reads nothing (the Cache API), each address is rate limited, and all of them together have a
 * daily row budget past which they get 429 while the observatory keeps measuring and rolling up.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import worker from '../../workers/observatory/index.ts';
import { anonymousRowBound } from '../../shared/config/capacity.ts';
import { getConfig } from '../../workers/observatory/config.ts';
import { drain } from './drain.ts';
import { config } from './test-config.ts';
import { fireCron } from './fire-cron.ts';
import { FLUSH_SHARE, isolateBudgetView } from '../../workers/observatory/api/anonymous-budget.ts';
import { forgetViews, viewKey } from '../../workers/observatory/views/view-store.ts';
import { PERCENTILE_ROW_UNITS, percentileRowUnits } from '../../shared/config/read-limits.ts';
import { selectedPairs } from '../../workers/observatory/api/filters.ts';
import type { SampleFilter } from '../../workers/observatory/db/samples.ts';
import { DAY_MS, HOUR_MS } from '../../shared/time.ts';

const FIVE_MIN = 300_000;
const now = Date.now();
const ticks = [3, 2, 1].map((k) => Math.floor(now / FIVE_MIN) * FIVE_MIN - k * FIVE_MIN);

async function get(
  path: string,
  overrides: Record<string, unknown> = {},
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<Response> {
  const ctx = createExecutionContext();
  const r = await worker.fetch(new Request(`https://observatory.test${path}`, { headers, method }), { ...env, ...overrides } as Env, ctx);
  await waitOnExecutionContext(ctx);
  return r;
}
const rowsRead = (r: Response) => Number(r.headers.get('x-d1-rows-read'));

beforeAll(async () => {
  for (const t of ticks) {
    await fireCron(t);
  }
  await drain(config.regions.map((r) => r.code));
});

describe('anonymous reads', () => {
  it('cost at most the stated bound, whatever the parameters; beyond it they need the read token', async () => {
    const bound = anonymousRowBound(config);
    const heaviest = [
      '/api/v1/percentiles?source=raw&window=24h&by=region,target,prompt_variant,split_source',
      '/api/v1/samples?window=24h&limit=1000',
      '/api/v1/regions?window=24h',
      '/api/v1/rollups?resolution=hour&window=31d',
      '/api/v1/rollups?resolution=day&window=366d',
      // Every pair over the longest anonymous window: within the free plan's cap (PERCENTILE_ROW_UNITS).
      '/api/v1/percentiles?source=rollups&window=366d&by=region,target,prompt_variant',
      '/api/v1/bursts?runs=24',
    ];
    let most = 0;
    for (const path of heaviest) {
      const r = await get(path);
      expect(r.status, `${path}: ${await r.clone().text()}`).toBe(200);
      most = Math.max(most, rowsRead(r));
    }
    console.log(`the heaviest anonymous request read ${most} D1 rows (bound for this configuration: ${bound.rows}, ${bound.request})`);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(bound.rows);
    // More rollup rows than a free-plan request merges within its CPU: refused, whoever asks, with how to ask instead. The
    // test configuration's 10 pairs over 366 days are within the cap (a row a pair of each of the window's pieces,
    // shared/rollup/spans.ts); with enough regions more (for this check only) not.
    const deployed = getConfig();
    const regions = deployed.regions.length;
    const [from, to] = [Date.now() - 366 * DAY_MS, Date.now()].map((t) => Math.ceil(t / HOUR_MS) * HOUR_MS);
    for (let k = 0; k < 1_000 && percentileRowUnits(from, to, selectedPairs({} as SampleFilter)) <= 1.1 * PERCENTILE_ROW_UNITS.free; k++)
      deployed.regions.push({ code: `x${k}`, label: `Extra ${k}`, locationHint: 'oc' });
    try {
      for (const headers of [{}, { authorization: `Bearer ${env.READ_TOKEN}` }] as Array<Record<string, string>>) {
        const r = await get('/api/v1/percentiles?source=rollups&window=366d&by=region,target,prompt_variant', {}, headers);
        expect(r.status).toBe(400);
        expect(await r.json()).toMatchObject({ error: { code: 'too_much_work' } });
      }
    } finally {
      deployed.regions.splice(regions);
    }
    for (const path of [
      '/api/v1/percentiles?source=raw&window=2d',
      '/api/v1/samples?window=7d',
      '/api/v1/rollups?resolution=hour&window=60d',
      '/api/v1/bursts?runs=100',
      '/api/v1/targets?from=2026-01-01',
    ]) {
      const r = await get(path);
      expect(r.status, path).toBe(403);
      expect(await r.json()).toMatchObject({ error: { code: 'token_required' } });
      expect((await get(path, {}, { authorization: `Bearer ${env.READ_TOKEN}` })).status, `${path} with the read token`).toBe(200);
    }
  });

  it('are answered from the cache when repeated, reading no row', async () => {
    const cached = { PUBLIC_CACHE_SECONDS: '60' };
    const first = await get('/api/v1/percentiles?window=6h&by=region,target', cached);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('public, max-age=60');
    expect(rowsRead(first)).toBeGreaterThan(0);
    // The same question, its parameters in another order.
    const again = await get('/api/v1/percentiles?by=region,target&window=6h', cached);
    expect(again.headers.get('x-cache')).toBe('hit');
    expect(rowsRead(again)).toBe(0);
    expect(await again.json()).toEqual(await first.json());
  });

  it('count a HEAD as the GET it is: its rows go to the budget, and past the budget it is refused', async () => {
    const path = '/api/v1/samples?window=24h&limit=25';
    const before = isolateBudgetView().spent.rows + isolateBudgetView().pending.rows;
    // What the earlier tests spent, and room for about one such request more.
    const tiny = { ANON_ROWS_PER_DAY: String(before + 30) };
    const head = await get(path, tiny, {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(rowsRead(head)).toBeGreaterThan(0);
    const after = isolateBudgetView().spent.rows + isolateBudgetView().pending.rows;
    expect(after - before).toBe(rowsRead(head));
    let refused: Response | undefined;
    for (let i = 0; i < 5 && !refused; i++) {
      const r = await get(path, tiny, {}, 'HEAD');
      if (r.status === 429) refused = r;
    }
    expect(refused?.status).toBe(429);
    expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('keep their cost when the budget object cannot be reached, and count Durable Object requests', async () => {
    const unreachable = {
      READ_BUDGET: {
        getByName: () => ({ spend: () => Promise.reject(new Error('budget object out of reach')) }),
      },
    };
    const before = { ...isolateBudgetView().pending };
    // A live health check asks every region's object, the status keeper and the view builder (a view answers it
    // once one is built: the test takes it out).
    await env.ARCHIVE.delete(viewKey('health'));
    forgetViews();
    const r = await get('/api/v1/health', unreachable);
    expect(r.headers.get('x-view')).toBe('missing');
    const doRequests = Number(r.headers.get('x-do-requests'));
    expect(doRequests).toBe(config.regions.length + 2);
    // Every flush failed, so every request's cost is still pending (none of it was dropped).
    const samples = await get('/api/v1/samples?window=24h&limit=5', unreachable);
    expect(samples.status).toBe(200);
    const pending = isolateBudgetView().pending;
    expect(pending.rows - before.rows).toBeGreaterThanOrEqual(rowsRead(r) + rowsRead(samples));
    expect(pending.doRequests - before.doRequests).toBeGreaterThanOrEqual(doRequests);
    // Once the object answers again, the pending batch reaches it.
    await get('/api/v1/samples?window=24h&limit=1', { ANON_ROWS_PER_DAY: String(Math.ceil(1 / FLUSH_SHARE)) });
    expect(isolateBudgetView().pending.rows).toBeLessThan(pending.rows);
  });

  it('refuse an unknown parameter on the health route too', async () => {
    const r = await get('/api/v1/health?zz=1');
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ error: { code: 'bad_request', message: expect.stringContaining('zz') } });
  });

  it('are limited per address by the rate-limiting binding', async () => {
    const limited = { ANON_RATE_LIMIT: '1' };
    // 120 a minute, counted in fixed windows: a run of requests that straddles a window's end gets up to 240 through
    // before the first 429, so it asks until one comes (bounded), and never sees one before the 121st.
    const statuses: number[] = [];
    while (statuses.length < 2 * 120 + 10 && !statuses.includes(429)) {
      statuses.push((await get('/api/v1/status', limited, { 'cf-connecting-ip': '203.0.113.9' })).status);
    }
    expect(statuses).toContain(429);
    expect(statuses.indexOf(429)).toBeGreaterThanOrEqual(120);
    expect(statuses.slice(0, 120).filter((s) => s !== 200)).toEqual([]);
    // Another address is not held back by the first one's requests.
    expect((await get('/api/v1/status', limited, { 'cf-connecting-ip': '203.0.113.10' })).status).toBe(200);
    // An IPv6 client is one /64: rotating through its addresses does not get it past its limit.
    const v6: number[] = [];
    for (let i = 0; v6.length < 2 * 120 + 10 && !v6.includes(429); i++)
      v6.push((await get('/api/v1/status', limited, { 'cf-connecting-ip': `2001:db8:7:7::${(i + 1).toString(16)}` }, 'HEAD')).status);
    expect(v6).toContain(429);
    expect((await get('/api/v1/status', limited, { 'cf-connecting-ip': '2001:db8:7:8::1' })).status).toBe(200);
  });

  it('stop at a tiny daily budget with 429 until midnight, while samples and rollups are still written', async () => {
    const tiny = { ANON_ROWS_PER_DAY: '20' };
    const answers: Response[] = [];
    for (let i = 0; i < 5; i++) answers.push(await get(`/api/v1/samples?window=24h&limit=${10 + i}`, tiny));
    const refused = answers.find((r) => r.status === 429);
    expect(refused, answers.map((r) => r.status).join(',')).toBeDefined();
    expect(await refused!.json()).toMatchObject({ error: { code: 'read_budget_spent' } });
    const retryAfter = Number(refused!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    // The observatory's own work goes on: a new tick is measured, stored and rolled up.
    const tick = Math.floor(Date.now() / FIVE_MIN) * FIVE_MIN;
    await fireCron(tick, { bindings: { ...env, ...tiny } as Env });
    await drain(config.regions.map((r) => r.code));
    const stored = await env.DB.prepare('SELECT COUNT(*) AS n FROM samples WHERE tick_id = ?').bind(tick).first<{ n: number }>();
    expect(stored?.n).toBe(9); // every region × target but the one whose secret is missing
    const rolled = await env.DB.prepare('SELECT COUNT(*) AS n FROM hourly_rollups WHERE hour = ?')
      .bind(Math.floor(ticks[0] / 3_600_000) * 3_600_000)
      .first<{ n: number }>();
    if (Math.floor(ticks[0] / 3_600_000) < Math.floor(Date.now() / 3_600_000)) expect(rolled?.n).toBeGreaterThan(0);
    // A reader with the token is no anonymous reader.
    expect((await get('/api/v1/samples?window=24h&limit=10', tiny, { authorization: `Bearer ${env.READ_TOKEN}` })).status).toBe(200);
  });
});
