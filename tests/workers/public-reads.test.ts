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

const FIVE_MIN = 300_000;
const now = Date.now();
const ticks = [3, 2, 1].map((k) => Math.floor(now / FIVE_MIN) * FIVE_MIN - k * FIVE_MIN);

async function get(path: string, overrides: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const r = await worker.fetch(new Request(`https://observatory.test${path}`, { headers }), { ...env, ...overrides } as Env, ctx);
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
    // test configuration's 10 pairs over 366 days are within the cap; with a fourth region (13 pairs, for this check only) not.
    const deployed = getConfig();
    deployed.regions.push({ code: 'oc', label: 'Oceania', locationHint: 'oc' });
    try {
      for (const headers of [{}, { authorization: `Bearer ${env.READ_TOKEN}` }] as Array<Record<string, string>>) {
        const r = await get('/api/v1/percentiles?source=rollups&window=366d&by=region,target,prompt_variant', {}, headers);
        expect(r.status).toBe(400);
        expect(await r.json()).toMatchObject({ error: { code: 'too_much_work' } });
      }
    } finally {
      deployed.regions.pop();
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
    expect(statuses.slice(0, 120).every((s) => s === 200)).toBe(true);
    // Another address is not held back by the first one's requests.
    expect((await get('/api/v1/status', limited, { 'cf-connecting-ip': '203.0.113.10' })).status).toBe(200);
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
