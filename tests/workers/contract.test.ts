/**
 * The API holds to its contract (shared/api-contract): the app serves exactly the document's routes, and every
 * route's real answers — from the public views and from the live path, over a local D1 seeded by real ticks,
 * rollups and a concurrency run — and its error answers parse with the schema declared for their status, with no
 * field the schema does not declare.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { SELF } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import type { z } from '@hono/zod-openapi';
import { openApiDocument } from '../../shared/api-contract/document.ts';
import { API, type ApiRouteName } from '../../shared/api-contract/routes.ts';
import { app } from '../../workers/observatory/api/app.ts';
import { alarmsUntil, drain } from './drain.ts';
import { fireCron } from './fire-cron.ts';
import { config } from './test-config.ts';

const HOUR = 3_600_000;
const FIVE_MIN = 300_000;
const lastHour = Math.floor(Date.now() / HOUR) * HOUR;
const regions = config.regions.map((r) => r.code);
const BASE = 'https://observatory.test';
const admin = { authorization: `Bearer ${env.ADMIN_TOKEN}` };
/** The live path: a token holder asking for a fresh answer. */
const live = { authorization: `Bearer ${env.READ_TOKEN}`, 'cache-control': 'no-cache' };

const doc = openApiDocument();
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const operations = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
  METHODS.flatMap((method) => {
    const op = item?.[method];
    return op ? [{ method, path, name: op.operationId as ApiRouteName }] : [];
  }),
);
const reads = operations.filter((o) => o.method === 'get' && !o.path.includes('{'));

/** What a route declares for a status: its media types, each with its schema. */
function declared(name: ApiRouteName, status: number): Record<string, { schema?: z.ZodType }> | undefined {
  const responses = API[name].responses as Record<number, { content?: Record<string, { schema?: z.ZodType }> }>;
  return responses[status]?.content;
}

/**
 * The answer is of a media type its route declares for its status, and parses with that type's schema; a JSON
 * answer's parse drops no field (the schema declares every field it holds).
 */
async function holds(name: ApiRouteName, r: Response): Promise<unknown> {
  const content = declared(name, r.status);
  expect(content, `${name} answered ${r.status}, a status it does not declare`).toBeDefined();
  const type = (r.headers.get('content-type') ?? '').split(';')[0].trim();
  const schema = content![type]?.schema;
  expect(schema, `${name} ${r.status} answered ${type}, which it does not declare`).toBeDefined();
  const body = type === 'application/json' ? await r.json() : await r.text();
  const parsed = schema!.safeParse(body);
  expect(parsed.success, `${name} ${r.status}: ${parsed.error?.message}`).toBe(true);
  expect(parsed.data, `${name} ${r.status} holds fields its schema does not declare`).toEqual(body);
  return body;
}

beforeAll(async () => {
  // Ticks in the two hours before the last whole hour and one two days ago; a concurrency run; every hour rolled up.
  for (const t of [lastHour - 2 * HOUR + 10 * FIVE_MIN, lastHour - HOUR + FIVE_MIN, lastHour - 50 * HOUR]) await fireCron(t);
  await fireCron(lastHour - HOUR + 2 * 60_000, { cron: config.bursts!.schedule });
  await drain(regions);
  for (const region of regions) {
    const stub = env.REGION_PROBER.getByName(region);
    await alarmsUntil(region, async () => {
      const s = await stub.status();
      return s.pendingEvaluations === 0 && s.lastRollupError === null && s.pendingBursts === 0;
    });
  }
  const built = await SELF.fetch(`${BASE}/api/v1/views`, { method: 'POST', headers: admin });
  expect(built.status).toBe(200);
  await holds('views', built);
}, 180_000);

describe('the API contract', () => {
  it('is a document the app serves route for route', () => {
    const served = app.routes
      .filter((r) => r.method !== 'ALL' && r.method !== 'HEAD')
      .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}').replace('/archive/*', '/archive/{key}')}`);
    expect([...new Set(served)].sort()).toEqual(operations.map((o) => `${o.method.toUpperCase()} ${o.path}`).sort());
  });

  it('holds every read route’s answers, from the views and the live path', async () => {
    const seen: Record<string, unknown> = {};
    for (const { path, name } of reads) {
      for (const headers of [{}, live] as Array<Record<string, string>>) {
        let r = await SELF.fetch(BASE + path, { headers });
        if (r.status === 400) {
          // More than one request may do on the live path (the views hold it whole): refused as declared, then narrowed.
          expect(await holds(name, r)).toMatchObject({ error: { code: 'too_much_work' } });
          r = await SELF.fetch(`${BASE}${path}?region=${regions[0]}`, { headers });
        }
        expect(r.status, `${path}: ${await r.clone().text()}`).toBe(200);
        seen[name] = await holds(name, r);
      }
    }
    // Those that answer CSV too, as declared.
    for (const { path, name } of reads.filter((o) => declared(o.name, 200)?.['text/csv'])) {
      const r = await SELF.fetch(`${BASE}${path}?format=csv`, { headers: live });
      expect(r.status, path).toBe(200);
      expect(await holds(name, r)).toMatch(/^[^\n]+\n/);
    }
    // Seeded, so the lists checked are not empty ones.
    const count = (name: ApiRouteName, list: string) => ((seen[name] as Record<string, unknown[]>)[list] ?? []).length;
    expect(count('regions', 'regions')).toBe(regions.length);
    expect(count('samples', 'samples')).toBeGreaterThan(0);
    expect(count('timeline', 'series')).toBeGreaterThan(0);
    expect(count('bursts', 'reports')).toBeGreaterThan(0);
    expect(count('statusHistory', 'rows')).toBeGreaterThan(0);
  });

  it('holds every read route’s refusal of an unknown parameter, and the bound on anonymous reads', async () => {
    for (const { path, name } of reads) {
      if (!declared(name, 400)) continue;
      const r = await SELF.fetch(`${BASE}${path}?no_such_parameter=1`);
      expect(r.status, path).toBe(400);
      expect(await holds(name, r)).toMatchObject({ error: { code: 'bad_request', message: expect.stringContaining('no_such_parameter') } });
    }
    const beyond = await SELF.fetch(`${BASE}/api/v1/samples?window=3d`);
    expect(await holds('samples', beyond)).toMatchObject({ error: { code: 'token_required' } });
  });

  it('holds the admin routes’ refusals and the archive’s', async () => {
    for (const { method, path, name } of operations.filter((o) => o.method !== 'get')) {
      const url = BASE + path.replace('{id}', 'm-none');
      const r = await SELF.fetch(url, { method: method.toUpperCase() });
      expect(r.status, path).toBe(401);
      expect(await holds(name, r)).toMatchObject({ error: { code: 'unauthorized' } });
    }
    const bad = await SELF.fetch(`${BASE}/api/v1/maintenance`, { method: 'POST', headers: admin, body: '{"start": 1}' });
    expect(await holds('addMaintenance', bad)).toMatchObject({ error: { code: 'bad_request' } });
    const none = await SELF.fetch(`${BASE}/api/v1/maintenance/m-none`, { method: 'DELETE', headers: admin });
    expect(await holds('removeMaintenance', none)).toMatchObject({ error: { code: 'not_found' } });
    const file = await SELF.fetch(`${BASE}/archive/no-such-file`);
    expect(await holds('archiveFile', file)).toMatchObject({ error: { code: 'not_found' } });
  });

  it('serves its document anonymously, cacheable, without D1', async () => {
    const r = await SELF.fetch(`${BASE}/api/v1/openapi.json`);
    expect(r.status).toBe(200);
    expect(r.headers.get('x-d1-rows-read')).toBe('0');
    expect(r.headers.get('x-do-requests')).toBe('0');
    expect(r.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    expect(await r.json()).toEqual(JSON.parse(JSON.stringify(doc)));
    const again = await SELF.fetch(`${BASE}/api/v1/openapi.json`, { headers: { 'if-none-match': r.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });
});
