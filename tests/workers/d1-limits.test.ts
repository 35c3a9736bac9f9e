/**
 * D1 binds at most 100 parameters per statement. Every statement the observatory builds stays within
 * that at the largest inputs it can be given: lists of 100 values and more in every filter, a status
 * lookback of 288 ticks, 200 concurrency runs, and the read API's own largest parameter values.
 */
import { describe, expect, it } from 'vitest';
import { SELF } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { listSamples, metricAtRanks, metricGroupCounts, storedKeys, insertSamples } from '../../workers/observatory/db/samples.ts';
import { regionRollupsAtHours, rollupsCovering, rollupsIn, rollupTotals } from '../../workers/observatory/db/rollups.ts';
import { regionWindow } from '../../workers/observatory/db/status.ts';
import { burstSamplesIn } from '../../workers/observatory/db/bursts.ts';
import { config } from './test-config.ts';

const D1_MAX_BOUND_PARAMETERS = 100;

/** A D1 binding that records how many parameters each statement binds. */
function countingD1(inner: D1Database) {
  const bound: Array<{ sql: string; n: number }> = [];
  const wrap = (statement: D1PreparedStatement, sql: string): D1PreparedStatement =>
    new Proxy(statement, {
      get(target, prop) {
        if (prop === 'bind')
          return (...values: unknown[]) => {
            bound.push({ sql, n: values.length });
            return target.bind(...values);
          };
        const value = Reflect.get(target, prop);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  const db = new Proxy(inner, {
    get(target, prop) {
      if (prop === 'prepare') return (sql: string) => wrap(target.prepare(sql), sql);
      const value = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { db, bound };
}

const many = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const T0 = Date.UTC(2026, 0, 22, 0, 0);
const ticks = (n: number) => Array.from({ length: n }, (_, i) => T0 + i * 300_000);

describe("D1's 100 bound parameters", () => {
  it('no statement binds more, at the largest inputs each data function can get', async () => {
    const { db, bound } = countingD1(env.DB);
    const filter = {
      fromTick: T0,
      toTick: T0 + 86_400_000,
      regions: many('r', 150),
      targets: many('t', 150),
      variants: many('v', 150),
      splitSources: [...many('s', 150), 'none'],
      error: 'protocol',
      includeBackfill: false,
      methodVersion: 2,
    };
    await listSamples(db, filter, 1_000, 123);
    await metricGroupCounts(db, filter, 'ttft_ms', ['region', 'target', 'prompt_variant', 'split_source']);
    await metricAtRanks(db, filter, 'ttft_ms', ['region', 'target', 'prompt_variant', 'split_source'], [1, 5, 50, 95, 99]);
    await storedKeys(db, 'weur', ticks(500));
    await regionWindow(db, 'weur', ticks(288), 2);
    await regionRollupsAtHours(db, 'weur', ticks(200), 2);
    const rollupFilter = {
      fromHour: T0,
      toHour: T0 + 90 * 86_400_000,
      regions: many('r', 150),
      targets: many('t', 150),
      variants: many('v', 150),
      methodVersion: 2,
    };
    await rollupsIn(db, rollupFilter);
    await rollupsCovering(db, rollupFilter);
    await rollupTotals(db, { regions: many('r', 150), methodVersion: 2 });
    await burstSamplesIn(db, { fromTick: T0, toTick: T0 + 86_400_000, runs: ticks(200), regions: many('r', 150), targets: many('t', 150) });
    await insertSamples(db, []);
    const worst = bound.reduce((a, b) => (b.n > a.n ? b : a));
    expect(bound.length).toBeGreaterThanOrEqual(10);
    expect(worst.n, worst.sql).toBeLessThanOrEqual(D1_MAX_BOUND_PARAMETERS);
  });

  it('the read API answers the largest parameter values it accepts, never a 500', async () => {
    const regions = config.regions.map((r) => r.code).join(',');
    const targets = config.targets.map((t) => t.id).join(',');
    const repeated = Array.from({ length: 101 }, () => 'weur').join(',');
    const sources = many('s', 150).join(',');
    const urls = [
      '/api/v1/bursts?runs=200',
      `/api/v1/bursts?runs=200&region=${repeated}&target=${targets}`,
      `/api/v1/samples?region=${repeated}&window=366d&limit=1000`,
      `/api/v1/samples?region=${regions}&target=${targets}&split_source=${sources}&window=366d`,
      `/api/v1/percentiles?source=rollups&window=366d&by=region,target,prompt_variant,split_source&region=${repeated}`,
      `/api/v1/rollups?resolution=day&region=${repeated}&target=${targets}`,
      `/api/v1/timeline?from=${Date.now() - 366 * 86_400_000}&region=${repeated}&target=${targets}`,
      `/api/v1/timeline?window=90d&pooled=true&region=${repeated}&target=${targets}`,
    ];
    for (const url of urls) {
      const r = await SELF.fetch(`http://observatory${url}`);
      expect(r.status, `${url}: ${await r.clone().text()}`).toBeLessThan(500);
      await r.body?.cancel();
    }
  });
});

/** Every GET route with the parameters it takes. */
const ROUTES: Record<string, string[]> = {
  '/api/v1/health': [],
  '/api/v1/regions': ['window', 'from', 'to', 'format'],
  '/api/v1/targets': ['window', 'from', 'to', 'format'],
  '/api/v1/samples': [
    'window',
    'from',
    'to',
    'region',
    'target',
    'variant',
    'split_source',
    'include_backfill',
    'method_version',
    'format',
    'error',
    'limit',
    'cursor',
  ],
  '/api/v1/percentiles': [
    'window',
    'from',
    'to',
    'region',
    'target',
    'variant',
    'split_source',
    'include_backfill',
    'method_version',
    'format',
    'metric',
    'by',
    'source',
  ],
  '/api/v1/rollups': [
    'window',
    'from',
    'to',
    'region',
    'target',
    'variant',
    'method_version',
    'resolution',
    'histograms',
    'limit',
    'cursor',
    'format',
  ],
  '/api/v1/bursts': ['window', 'from', 'to', 'region', 'target', 'runs', 'streams', 'format'],
  '/api/v1/timeline': ['window', 'from', 'to', 'region', 'target', 'variant', 'pooled', 'format'],
  '/api/v1/compare': ['window', 'from', 'to', 'region', 'variant', 'target', 'figure', 'margin'],
  '/api/v1/paired-hours': ['window', 'from', 'to', 'region', 'variant', 'cursor'],
  '/api/v1/hour-profiles': ['window', 'from', 'to', 'region', 'target', 'variant', 'cursor'],
  '/api/v1/incidents': ['window', 'from', 'to', 'status', 'target', 'limit', 'points', 'format'],
  '/api/v1/vendor-incidents': ['window', 'from', 'to', 'target', 'limit'],
  '/api/v1/status': ['format'],
  '/metrics': [],
};
const BAD_VALUES = [
  '',
  ' ',
  'x',
  '-1',
  '0',
  '1.5',
  '1e999',
  '9999999999999999',
  '-9999999999999999',
  'NaN',
  '%00',
  '%ZZ',
  ',,,',
  '🙂',
  'a'.repeat(10_000),
  Array.from({ length: 101 }, () => 'weur').join(','),
  '2026-02-30',
  '99999-01-01',
  '1d,2d',
  'true,false',
];

describe('malformed and oversized query strings', () => {
  it('get a 2xx or a 4xx with a message on every GET route, never a 5xx', async () => {
    const failures: string[] = [];
    let sent = 0;
    for (const [route, params] of Object.entries(ROUTES)) {
      const queries = [
        ...params.flatMap((p) => BAD_VALUES.map((v) => `${p}=${encodeURIComponent(v).replace(/%25/g, '%')}`)),
        'unknown=1',
        ...params.map((p) => `${p}=1&${p}=2`),
      ];
      for (const query of queries) {
        const r = await SELF.fetch(`http://observatory${route}?${query}`);
        sent++;
        const body = await r.text();
        if (r.status >= 500) failures.push(`${route}?${query.slice(0, 80)} → ${r.status} ${body.slice(0, 120)}`);
        else if (r.status >= 400 && !/"message"|error/.test(body))
          failures.push(`${route}?${query.slice(0, 80)} → ${r.status} without a message`);
      }
    }
    expect(failures, `${failures.length} of ${sent}`).toEqual([]);
    // Out-of-range times are a 400 that says so (they used to overflow into a 500).
    const far = await SELF.fetch('http://observatory/api/v1/samples?to=9999999999999999');
    expect(far.status).toBe(400);
    expect(await far.text()).toContain('between 2000-01-01 and 2100-01-01');
    expect((await SELF.fetch('http://observatory/api/v1/health')).status).toBe(200);
  });
});
