/** The read API and the admin route, driven like a client would, inside workerd with a seeded local D1. */
import { beforeAll, describe, expect, it } from 'vitest';
import { SELF } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { drain } from './drain.ts';
import { config } from './test-config.ts';
import { SAMPLE_COLUMNS } from '../../workers/observatory/db/sample-row.ts';
import { METHOD_VERSION } from '../../shared/constants.ts';
import { fireCron } from './fire-cron.ts';

const BASE = 'https://observatory.test';
const FIVE_MIN = 300_000;
const bodies: string[] = [];

async function get(path: string, init?: RequestInit): Promise<Response> {
  const response = await SELF.fetch(BASE + path, init);
  bodies.push(await response.clone().text());
  return response;
}

const now = Date.now();
const firstTick = Math.floor(now / FIVE_MIN) * FIVE_MIN - 2 * FIVE_MIN;

beforeAll(async () => {
  for (const t of [firstTick, firstTick + FIVE_MIN]) {
    await fireCron(t);
    await drain(config.regions.map((r) => r.code));
  }
});

describe('GET /api/v1/*', () => {
  it('health says ok and when the last tick was', async () => {
    const r = await get('/api/v1/health');
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({
      status: 'ok',
      db: 'ok',
      last_tick_at: new Date(firstTick + FIVE_MIN).toISOString(),
      regions: 3,
      targets: 4,
      spread: 1,
      prompt_variants: [{ id: 'tiny', label: 'Tiny', prompt_tokens: 40, max_tokens: 6 }],
    });
  });

  it('regions lists each region with its samples and observed colos', async () => {
    const body = await (await get('/api/v1/regions')).json<{ regions: Array<{ code: string; samples: number; colos: unknown[] }> }>();
    expect(body.regions.map((r) => r.code)).toEqual(['weur', 'enam', 'apac']);
    for (const r of body.regions) expect(r.samples).toBe(6);
    expect(body.regions[0].colos).toEqual([{ colo: null, samples: 6, outside_region: 0 }]);
  });

  it('targets lists labels, apis and hosts, and nothing about keys', async () => {
    const body = await (await get('/api/v1/targets')).json<{ targets: Array<Record<string, unknown>> }>();
    expect(body.targets.map((t) => t.id)).toEqual(['ref-chat', 'ref-messages', 'ref-broken', 'ref-no-key']);
    expect(body.targets[0]).toMatchObject({ api: 'openai-chat', model: 'ref-fast-small', reference: true, samples: 6 });
    // The list price as configured, in the API's names; null for a target without one.
    expect(body.targets[0].price).toEqual({
      input_per_mtokens: 0.15,
      output_per_mtokens: 0.6,
      currency: 'USD',
      as_of: '2026-12-01',
      source: 'test price',
    });
    expect(body.targets.slice(1).map((t) => t.price)).toEqual([null, null, null]);
    expect(JSON.stringify(body)).not.toMatch(/apiKeySecret|REFERENCE_KEY/);
  });

  it('samples pages newest first with a cursor, and filters', async () => {
    const first = await (await get('/api/v1/samples?limit=4')).json<{
      samples: Array<{ id: number; timeline: number[] }>;
      next_cursor: number;
    }>();
    expect(first.samples).toHaveLength(4);
    const second = await (await get(`/api/v1/samples?limit=100&cursor=${first.next_cursor}`)).json<{
      samples: Array<{ id: number }>;
      next_cursor: null;
    }>();
    expect(second.samples).toHaveLength(14);
    expect(second.next_cursor).toBeNull();
    expect(Math.max(...second.samples.map((s) => s.id))).toBeLessThan(Math.min(...first.samples.map((s) => s.id)));
    const ok = first.samples.find((s) => s.timeline.length > 0)!;
    expect(ok.timeline.every((t, i) => i === 0 || t >= ok.timeline[i - 1])).toBe(true);
    const failed = await (await get('/api/v1/samples?error=http&region=weur')).json<{
      samples: Array<{ target: string; region: string }>;
    }>();
    expect(failed.samples).toHaveLength(2);
    expect(failed.samples.every((s) => s.target === 'ref-broken' && s.region === 'weur')).toBe(true);
  });

  it('samples export as CSV', async () => {
    const r = await get('/api/v1/samples?format=csv&target=ref-chat');
    expect(r.headers.get('content-type')).toContain('text/csv');
    const lines = (await r.text()).trim().split('\r\n');
    expect(lines[0]).toBe(['id', ...SAMPLE_COLUMNS].join(','));
    expect(lines).toHaveLength(1 + 6);
  });

  it('percentiles by region and target, with sample counts, error rates and intervals', async () => {
    const body = await (await get('/api/v1/percentiles?metric=ttft_ms')).json<{
      metric: string;
      groups: Array<Record<string, number | string | null>>;
    }>();
    expect(body.metric).toBe('ttft_ms');
    expect(body.groups).toHaveLength(9);
    const chat = body.groups.find((g) => g.region === 'weur' && g.target === 'ref-chat')!;
    expect(chat).toMatchObject({ n: 2, samples: 2, errors: 0, error_rate: 0, p50_ci_low: null });
    expect(chat.p50 as number).toBeGreaterThan(0);
    const broken = body.groups.find((g) => g.target === 'ref-broken')!;
    expect(broken).toMatchObject({ n: 0, samples: 2, errors: 2, error_rate: 1, p50: null });
    const byTarget = await (await get('/api/v1/percentiles?metric=tpot_ms&by=target&target=ref-chat,ref-messages')).json<{
      groups: Array<{ target: string; n: number; samples: number }>;
    }>();
    expect(byTarget.groups.map((g) => [g.target, g.samples])).toEqual([
      ['ref-chat', 6],
      ['ref-messages', 6],
    ]);
    // TPOT is null for a probe whose 1 ms-apart answer reads fell within one clock tick, so n may be below samples.
    for (const g of byTarget.groups) expect(g.n).toBeLessThanOrEqual(g.samples);
    const csv = await (await get('/api/v1/percentiles?by=region&format=csv')).text();
    expect(csv.split('\r\n')[0]).toBe(
      'region,n,samples,errors,error_rate,p50,p50_ci_low,p50_ci_high,p90,p90_ci_low,p90_ci_high,p95,p95_ci_low,p95_ci_high,p99,p99_ci_low,p99_ci_high',
    );
  });

  it('never pools the split across sources: its parts come per split_source, which can be filtered', async () => {
    const body = await (await get('/api/v1/percentiles?metric=network_ms')).json<{
      by: string[];
      groups: Array<Record<string, number | string | null>>;
    }>();
    expect(body.by).toEqual(['region', 'target', 'split_source']);
    const chat = body.groups.filter((g) => g.region === 'weur' && g.target === 'ref-chat');
    expect(chat.map((g) => g.split_source)).toEqual(['server-timing.total']);
    expect(chat[0].n).toBe(2);
    // The always-failing target has no split: its group says so with a null source.
    expect(body.groups.find((g) => g.target === 'ref-broken')).toMatchObject({ split_source: null, n: 0 });
    const rttOnly = await (await get('/api/v1/samples?limit=1000&split_source=rtt')).json<{ samples: unknown[] }>();
    expect(rttOnly.samples).toHaveLength(0);
    const none = await (await get('/api/v1/samples?limit=1000&split_source=none')).json<{
      samples: Array<{ split_source: string | null; target: string }>;
    }>();
    expect(none.samples.length).toBeGreaterThan(0);
    expect(none.samples.every((x) => x.split_source === null)).toBe(true);
    const ttft = await (await get('/api/v1/percentiles?metric=ttft_ms&by=split_source')).json<{
      groups: Array<{ split_source: string | null }>;
    }>();
    expect(ttft.groups.map((g) => g.split_source).sort()).toEqual([null, 'server-timing.total'].sort());
  });

  it('keeps figures of other method versions apart', async () => {
    await env.DB.prepare('UPDATE samples SET method_version = 99 WHERE id = (SELECT MAX(id) FROM samples)').run();
    const current = await (await get('/api/v1/samples?limit=1000')).json<{ samples: unknown[] }>();
    const other = await (await get('/api/v1/samples?limit=1000&method_version=99')).json<{ samples: Array<{ method_version: number }> }>();
    expect(current.samples).toHaveLength(17);
    expect(other.samples.map((s) => s.method_version)).toEqual([99]);
    await env.DB.prepare('UPDATE samples SET method_version = ? WHERE method_version = 99').bind(METHOD_VERSION).run();
  });

  it('answers CORS for GET', async () => {
    const r = await get('/api/v1/health', { headers: { origin: 'https://example.org' } });
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
  });

  const bad: Array<[string, string]> = [
    ['/api/v1/samples?window=3x', 'window must look like 30m, 6h or 7d'],
    ['/api/v1/samples?from=yesterday', 'from must be an ISO 8601 time'],
    ['/api/v1/samples?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', 'from must be before to'],
    ['/api/v1/samples?window=400d', 'at most 366 days'],
    ['/api/v1/samples?region=mars', 'unknown region "mars"; known: weur, enam, apac'],
    ['/api/v1/samples?limit=0', 'limit must be a whole number from 1 to 1000'],
    ['/api/v1/samples?error=oops', 'error must be one of'],
    ['/api/v1/samples?colour=red', 'unknown parameter "colour"'],
    ['/api/v1/percentiles?metric=speed', 'metric must be one of'],
    ['/api/v1/percentiles?by=model', 'unknown by "model"'],
    ['/api/v1/percentiles?source=rollups&window=7d&by=served_by', 'by=served_by needs source=raw'],
    ['/api/v1/samples?split_source=no%20such', 'split_source must be source names'],
    ['/api/v1/regions?window=1h&from=2026-01-01', 'either window or from'],
    ['/api/v1/samples?from=1&to=2', 'to must be an ISO 8601 time'],
    ['/api/v1/samples?format=xml', 'format must be one of json, csv'],
    ['/api/v1/samples?window=1h&window=2h', 'parameter "window" is given more than once'],
    ['/api/v1/percentiles?method_version=0', 'method_version must be a whole number from 1'],
  ];
  for (const [path, message] of bad) {
    it(`400 for ${path}`, async () => {
      const r = await get(path);
      expect(r.status).toBe(400);
      expect(await r.json()).toMatchObject({ error: { code: 'bad_request', message: expect.stringContaining(message) } });
    });
  }

  it('unknown routes are a JSON 404', async () => {
    const r = await get('/api/v2/samples');
    expect(r.status).toBe(404);
    expect(await r.json()).toMatchObject({ error: { code: 'not_found' } });
  });
});

describe('POST /api/v1/ticks (admin)', () => {
  const post = (body: unknown, token?: string) =>
    get('/api/v1/ticks', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });

  it('needs the bearer token', async () => {
    expect((await post({})).status).toBe(401);
    expect((await post({}, 'wrong-token')).status).toBe(401);
    expect((await post({}, 'test-admin-token-and-more')).status).toBe(401);
  });

  it('runs the tick of now, on the grid, and a retried POST queues nothing twice', async () => {
    const r = await post({}, 'test-admin-token');
    expect(r.status).toBe(202);
    const report = await r.json<{ tick_id: number; regions: Array<{ region: string; queued: number }> }>();
    expect(report.tick_id % FIVE_MIN).toBe(0);
    expect(report.tick_id).toBeLessThanOrEqual(Date.now());
    expect(report.regions.map((x) => x.queued).sort()).toEqual([3, 3, 4]);
    const again = await (await post({}, 'test-admin-token')).json<{ tick_id: number; regions: Array<{ queued: number }> }>();
    // Unless the clock crossed onto the next tick between the two POSTs, the second is the same tick: nothing is queued
    // again, but for ref-no-key in weur once it has run (its secret is missing, so it stores no sample, and a retry
    // queues it again to be skipped again, as late-ticks.test.ts says; the tick's shuffled order may run it first).
    if (again.tick_id === report.tick_id) {
      const weur = again.regions.findIndex((x) => (x as { region?: string }).region === 'weur');
      again.regions.forEach((x, i) => {
        expect(x.queued).toBe(i === weur ? Math.min(x.queued, 1) : 0);
      });
    }
    await drain(config.regions.map((r) => r.code));
  });

  it('refuses a backfill of an hour raw retention has already deleted from', async () => {
    const mark = firstTick - 48 * FIVE_MIN;
    await env.DB.prepare(
      "INSERT INTO retention_marks (kind, before_ms) VALUES ('samples', ?) ON CONFLICT (kind) DO UPDATE SET before_ms = excluded.before_ms",
    )
      .bind(mark)
      .run();
    try {
      const r = await post({ tick_id: mark - 24 * FIVE_MIN, backfill: true }, 'test-admin-token');
      expect(r.status).toBe(400);
      expect(await r.json()).toMatchObject({ error: { code: 'beyond_retention' } });
    } finally {
      await env.DB.prepare("DELETE FROM retention_marks WHERE kind = 'samples'").run();
    }
  });

  it('backfills a past tick, flagged as such, and refuses an unflagged one', async () => {
    const past = firstTick - 12 * FIVE_MIN;
    expect((await post({ tick_id: past }, 'test-admin-token')).status).toBe(400);
    expect((await post({ tick_id: past, backfill: true }, 'test-admin-token')).status).toBe(202);
    await drain(config.regions.map((r) => r.code));
    const rows = (
      await env.DB.prepare('SELECT backfill, started_at FROM samples WHERE tick_id = ?')
        .bind(past)
        .all<{ backfill: number; started_at: number }>()
    ).results;
    expect(rows).toHaveLength(9);
    for (const r of rows) {
      expect(r.backfill).toBe(1);
      expect(r.started_at).toBeGreaterThan(past + 12 * FIVE_MIN - 60_000); // really measured now
    }
    const withoutBackfill = await (await get(`/api/v1/samples?include_backfill=false&from=${past}&to=${past + 1}`)).json<{
      samples: unknown[];
    }>();
    expect(withoutBackfill.samples).toHaveLength(0);
  });
});

describe('secrets', () => {
  it('no API response carried the key', () => {
    expect(bodies.length).toBeGreaterThan(20);
    for (const body of bodies) expect(body).not.toContain(env.REFERENCE_KEY);
  });
});
