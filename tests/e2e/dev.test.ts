/**
 * `npm run dev` as a user runs it: real wrangler dev, real local D1, the reference endpoint over
 * loopback HTTP. A tick fired through /__scheduled fills every region × target, visible in the API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runScript, type ScriptProcess } from '../helpers/script-process.ts';
import { config } from '../../observatory.config.ts';
import { probesPerTick } from '../../shared/config/schedule.ts';
import { expectFromView, viewQueries } from '../helpers/view-queries.ts';
import { HOUR_MS } from '../../shared/time.ts';

let dev: ScriptProcess;
let api: string;
let output = '';
const state = mkdtempSync(join(tmpdir(), 'observatory-dev-'));

beforeAll(async () => {
  // Any free ports, bound by the runtime (no port handed over that another process could take first).
  dev = runScript('scripts/dev.ts', ['--port', '0', '--reference-port', '0', '--persist-to', state]);
  api = (await dev.until(/observatory API:\s+(http:\/\/127\.0\.0\.1:\d+)\/api\/v1\/health/, 120_000))[1];
  await dev.until(/Ctrl-C stops everything/, 10_000);
  output = dev.output();
}, 600_000);

afterAll(async () => {
  await dev?.stop();
  rmSync(state, { recursive: true, force: true });
});

describe('npm run dev', () => {
  it('prints where everything is', () => {
    expect(output).toContain(`observatory API:   ${api}/api/v1/health`);
    expect(output).toContain('/__scheduled');
  });

  it('keeps its secrets off every command line (they would show in ps), and the admin token works', async () => {
    const token = /admin token:\s+([0-9a-f]{32})/.exec(output)![1];
    const commandLines = readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .map((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        } catch {
          return ''; // a process that ended meanwhile
        }
      });
    expect(commandLines.some((c) => c.includes('wrangler') && c.includes('dev'))).toBe(true);
    expect(commandLines.filter((c) => c.includes(token))).toEqual([]);
    const denied = await fetch(`${api}/api/v1/ticks`, { method: 'POST', headers: { authorization: 'Bearer wrong' } });
    expect(denied.status).toBe(401);
  });

  it('fires a tick on /__scheduled and stores one sample per region × target', async () => {
    expect(await (await fetch(`${api}/__scheduled?cron=${encodeURIComponent(config.schedule)}`)).text()).toContain('Ran scheduled event');
    const expected = probesPerTick(config);
    let samples: Array<{ error: string | null; error_detail: string | null; region: string; target: string }> = [];
    for (let i = 0; i < 120 && samples.length < expected; i++) {
      await new Promise((r) => setTimeout(r, 500));
      samples = ((await (await fetch(`${api}/api/v1/samples?limit=1000`)).json()) as { samples: typeof samples }).samples;
    }
    expect(samples).toHaveLength(expected);
    // Each a success, or a failure a starved machine causes: on a 2-core machine running the whole suite beside busy
    // loops, one stream was held past its idle bound (a "stall"), and once one loopback request to the reference
    // endpoint failed outright ("network"). Any other error class (protocol, http, …) is a bug. A broken target or
    // region fails everywhere, so every target answers in some region, every region for some target, and most
    // probes succeed.
    const LOAD_FAILURES = ['stall', 'timeout_headers', 'timeout_first_token', 'network'];
    for (const s of samples)
      expect(s.error === null || LOAD_FAILURES.includes(s.error), `${s.region} ${s.target}: ${s.error} (${s.error_detail})`).toBe(true);
    const succeeded = samples.filter((s) => s.error === null);
    for (const key of ['target', 'region'] as const) {
      const answered = new Set(succeeded.map((s) => s[key]));
      expect(
        [...new Set(samples.map((s) => s[key]))].filter((k) => !answered.has(k)),
        `a ${key} with no answer`,
      ).toEqual([]);
    }
    expect(succeeded.length).toBeGreaterThan(expected / 2);
    const health = await (await fetch(`${api}/api/v1/health`)).json();
    expect(health).toMatchObject({ status: 'ok', db: 'ok' });
  }, 90_000);

  it('answers every public view route anonymously without D1, once a past hour is rolled up and its views built', async () => {
    const admin = { authorization: `Bearer ${/admin token:\s+([0-9a-f]{32})/.exec(output)![1]}`, 'content-type': 'application/json' };
    // A tick of the hour before the last whole one: its hour has ended, so the regions roll it up, then mark its views.
    const tickId = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - HOUR_MS;
    const posted = await fetch(`${api}/api/v1/ticks`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ tick_id: tickId, backfill: true }),
    });
    expect(posted.status, await posted.clone().text()).toBe(202);
    // The views are built by themselves (VIEW_BUILDS "auto"): a few seconds after the regions' rollups mark them.
    type Ages = Record<string, { built_at: string | null; error: string | null }>;
    let ages: Ages = {};
    for (let i = 0; i < 240; i++) {
      const health = (await (await fetch(`${api}/api/v1/health`, { headers: { ...admin, 'cache-control': 'no-cache' } })).json()) as {
        views: Ages;
      };
      ages = health.views;
      const percentiles = ages.percentiles?.built_at ? Date.parse(ages.percentiles.built_at) : 0;
      const rolled = await (
        await fetch(`${api}/api/v1/rollups?resolution=hour&from=${tickId}&to=${tickId + HOUR_MS}`, { headers: admin })
      ).json();
      if (percentiles > 0 && (rolled as { rows: unknown[] }).rows.length > 0 && percentiles > Date.now() - 60_000) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    for (const part of ['status', 'health', 'percentiles', 'catalog']) {
      expect(ages[part]?.built_at, part).toBeTruthy();
      expect(ages[part]?.error, part).toBeNull();
    }
    const get = (path: string, init?: RequestInit) => fetch(`${api}${path}`, init);
    const queries = viewQueries(
      config.regions.map((r) => r.code),
      config.targets.map((t) => t.id),
      config.promptVariants[0].id,
    );
    for (const path of queries) await expectFromView(get, path);
  }, 180_000);
});
