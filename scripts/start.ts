/**
 * `npm start`: the whole observatory on this machine, on embedded defaults (no account, no key).
 * The reference endpoint and the probing Workers in workerd with a local D1; each region reaches the
 * reference through a delay proxy standing in for its distance (simulatedRttMs in the config), so the
 * split shows network time differing by region while server time does not. A short backfill of past
 * ticks (really measured now, flagged as backfill) fills the reports: first a baseline (recent
 * hours and days back, rolled up), then the last 45 minutes at the schedule's step, during which the
 * reference endpoint degrades the farthest region on schedule (slower, then failing), so the status
 * rules open an incident, escalate and resolve it, and its notifications reach a local sink that
 * prints them. Then one concurrency run (1, 4, 8, 16 simultaneous streams per opted-in target), and a
 * tick on the schedule. The site is built and served, and rebuilt after every
 * tick. Ctrl-C stops everything.
 */
import { parseArgs } from 'node:util';
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { config } from '../observatory.config.ts';
import { probesPerTick, tickMinutesOf } from '../shared/config/capacity.ts';
import { startLocalObservatory, waitForRollups, waitForStatus } from './local-observatory.ts';
import { startDelayProxy, type DelayProxy } from './delay-proxy.ts';
import { serveStatic } from './static-server.ts';
import { assertPortFree } from './processes.ts';
import { intOption, usageError } from './options.ts';
import { buildSite } from './site-build.ts';
import { startNotifySink } from './notify-sink.ts';
import { randomBytes } from 'node:crypto';

const USAGE = 'usage: npm start -- [--port 8787] [--reference-port 8788] [--site-port 4321] [--backfill 12] [--history-days 90] [--persist-to .wrangler/demo]';
const BACKFILL_SPACING_MS = 30 * 60_000;
/** Days back of the older backfill ticks that fill the long-window views (those within --history-days). */
const HISTORY_DAYS = [2, 4, 7, 12, 20, 35, 55, 85];
const DAY_MS = 86_400_000;
const SAMPLE_WAIT_MS = 10 * 60_000;
const HOUR_MS = 3_600_000;
/** The incident phase: this many ticks at the schedule's step, ending one step before now. */
const INCIDENT_TICKS = 9;
/** Of those, the ticks (0-based) at which the degraded region is slower, then failing. */
const SLOW_TICKS = [2, 4];
const FAIL_TICKS = [4, 7];
/** Server time the degraded region's probes get on top, while it is slower. */
const SLOW_MS = 2_500;
/** Longest the demo waits for its concurrency run. */
const BURST_WAIT_MS = 180_000;

function fail(message: string): never {
  console.error(`start: ${message}`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({ options: { port: { type: 'string' }, 'reference-port': { type: 'string' }, 'site-port': { type: 'string' }, backfill: { type: 'string' }, 'history-days': { type: 'string' }, 'persist-to': { type: 'string' } } }));
} catch (e) {
  usageError('start', (e as Error).message, USAGE);
}
const int = (name: string, value: string | undefined, fallback: number, min: number, max: number) => intOption('start', USAGE, name, value, fallback, min, max);
const apiPort = int('port', values.port, 8787, 1, 65535);
const referencePort = int('reference-port', values['reference-port'], 8788, 1, 65535);
const sitePort = int('site-port', values['site-port'], 4321, 1, 65535);
const backfill = int('backfill', values.backfill, 12, 0, 200);
const historyDays = int('history-days', values['history-days'], 90, 0, config.rollupRetentionDays);
const persistTo = resolve(values['persist-to'] ?? '.wrangler/demo');
const tickMs = (tickMinutesOf(config.schedule) ?? 5) * 60_000;
const say = (line: string) => console.log(`• ${line}`);

await assertPortFree(sitePort, '--site-port').catch((e) => fail(e.message));
const proxies: DelayProxy[] = [];
const start = Date.now();
const grid = Math.floor(start / tickMs) * tickMs;
const incidentTicks = Array.from({ length: INCIDENT_TICKS }, (_, k) => grid - (INCIDENT_TICKS - k) * tickMs);
const degraded = config.regions.at(-1)!.code;
const at = (k: number) => new Date(incidentTicks[0] + k * tickMs).toISOString();
const scheduledFaults = `region=${degraded}; from=${at(SLOW_TICKS[0])}; to=${at(SLOW_TICKS[1])}; slow_ms=${SLOW_MS}, region=${degraded}; from=${at(FAIL_TICKS[0])}; to=${at(FAIL_TICKS[1])}; fault=http-503`;
const signingKey = randomBytes(16).toString('hex');
const sink = await startNotifySink(signingKey, (line) => console.log(`  [sink] ${line}`));
let local;
try {
  local = await startLocalObservatory({
    apiPort,
    referencePort,
    persistTo,
    referenceBindings: { SCHEDULED_FAULTS: scheduledFaults },
    log: (line) => { if (/error|✘/i.test(line)) console.log(`  [wrangler] ${line}`); },
    progress: say,
    vars: async (referenceUrl) => {
      const urls: Record<string, string> = {};
      for (const region of config.regions) {
        if (region.simulatedRttMs === undefined) continue;
        const proxy = await startDelayProxy(new URL(referenceUrl), region.simulatedRttMs);
        proxies.push(proxy);
        urls[region.code] = proxy.url;
        say(`region ${region.code}: reaches the reference endpoint through a proxy adding ${region.simulatedRttMs} ms round trip`);
      }
      return { REGION_REFERENCE_URLS: JSON.stringify(urls), SIMULATED_REGIONS: '1', DEMO_WEBHOOK_URL: sink.url, DEMO_WEBHOOK_SIGNING_KEY: signingKey };
    },
  });
} catch (e) {
  for (const p of proxies) await p.close();
  await sink.close();
  fail((e as Error).message);
}
const api = local.apiUrl;
const admin = { authorization: `Bearer ${local.adminToken}`, 'content-type': 'application/json' };
const perTick = probesPerTick(config);

async function sampleCount(): Promise<number> {
  const health = await fetch(`${api}/api/v1/targets?window=${historyDays + 2}d`).then((r) => r.json() as Promise<{ targets: Array<{ samples: number }> }>);
  return health.targets.reduce((n, t) => n + t.samples, 0);
}

async function waitForSamples(expected: number): Promise<number> {
  const deadline = Date.now() + SAMPLE_WAIT_MS;
  let n = await sampleCount();
  let shown = -1;
  while (n < expected && Date.now() < deadline) {
    if (n !== shown) say(`measured ${n}/${expected} samples`);
    shown = n;
    await new Promise((r) => setTimeout(r, 2_000));
    n = await sampleCount();
  }
  return n;
}

const clock = (t: number) => `${new Date(t).toISOString().slice(11, 16)} UTC`;
async function post(tick: number | null): Promise<void> {
  const r = await fetch(`${api}/api/v1/ticks`, { method: 'POST', headers: admin, body: tick === null ? '{}' : JSON.stringify({ tick_id: tick, backfill: true }) });
  if (r.status !== 202) fail(`tick ${tick === null ? 'now' : new Date(tick).toISOString()} refused: ${await r.text()}`);
}

// 1. The baseline: recent ticks every 30 min in hours that have ended before the incident phase, and days back.
const before = await sampleCount();
const baseline = [
  ...Array.from({ length: backfill }, (_, k) => Math.floor(incidentTicks[0] / HOUR_MS) * HOUR_MS - (k + 1) * BACKFILL_SPACING_MS),
  ...HISTORY_DAYS.filter((d) => d <= historyDays).map((d) => start - d * DAY_MS),
].sort((a, b) => a - b);
say(`a backfill of past ticks (measured now, flagged as backfill): ${backfill} every ${BACKFILL_SPACING_MS / 60_000} min, and ${baseline.length - backfill} spread over ${historyDays} days for the long-window views`);
for (const tick of baseline) await post(tick);
let have = await waitForSamples(before + baseline.length * perTick);
try {
  const rolled = await waitForRollups(api, baseline, perTick);
  say(`rolled up: ${rolled.hourly} probes in hourly rows, ${rolled.daily} in daily rows (the current hour is rolled up once it ends)`);
} catch (e) {
  say(`rollups incomplete: ${(e as Error).message}; the long-window views may lag until the next tick`);
}

// 2. The last 45 minutes at the schedule's step, with the degraded region; then the tick of now.
say(`the last ${INCIDENT_TICKS * tickMs / 60_000} min at the schedule's step: region ${degraded} is ${SLOW_MS / 1000} s slower (server time) for ticks ${clock(incidentTicks[SLOW_TICKS[0]])}–${clock(incidentTicks[SLOW_TICKS[1] - 1])}, then fails (HTTP 503) for ${clock(incidentTicks[FAIL_TICKS[0]])}–${clock(incidentTicks[FAIL_TICKS[1] - 1])}: the status rules should open an incident, escalate and resolve it`);
for (const tick of incidentTicks) await post(tick);
await post(null);
have = await waitForSamples(have + (incidentTicks.length + 1) * perTick);
say(`${have} samples stored`);
await waitForStatusReport(grid);
await concurrencyRun();

/**
 * 3. One concurrency run now (they run hourly on their own cron): each region starts 1, 4, 8 and 16
 * simultaneous streams to each target that opted in; the batching model's queue and decode slow down
 * as the streams rise.
 */
async function concurrencyRun(): Promise<void> {
  if (!config.bursts) return;
  const pairs = config.regions.length * config.targets.filter((t) => t.bursts).length;
  const levels = config.bursts.levels ?? [1];
  say(`a concurrency run: each region starts ${levels.join(', ')} simultaneous streams to ${config.targets.filter((t) => t.bursts).map((t) => t.id).join(', ')}`);
  const started = await fetch(`${api}/api/v1/bursts`, { method: 'POST', headers: admin });
  if (!started.ok) return say(`concurrency run not started: ${started.status} ${(await started.text()).slice(0, 200)}`);
  type Report = { region: string; target: string; levels: Array<{ level: number; ttft_p50: number | null; server_growth_ms: number | null; decode_tps_p50: number | null; start_spread_ms_max: number | null; rate_limited: number }> };
  let reports: Report[] = [];
  const deadline = Date.now() + BURST_WAIT_MS;
  const done = (r: Report) => r.levels.length === levels.length || r.levels.some((l) => l.rate_limited > 0);
  while (Date.now() < deadline) {
    reports = ((await (await fetch(`${api}/api/v1/bursts?runs=1`)).json()) as { reports: Report[] }).reports;
    if (reports.length >= pairs && reports.every(done)) break;
    await new Promise((r) => setTimeout(r, 2_000));
  }
  if (!(reports.length >= pairs && reports.every(done))) say('concurrency run not finished yet; the site shows it once it is (the next rebuild)');
  for (const r of reports.filter((x) => x.region === config.regions[0].code)) {
    const last = r.levels.at(-1)!;
    const first = r.levels[0];
    say(`  ${r.region} ${r.target}: ${first.level} → ${last.level} streams, TTFT p50 ${first.ttft_p50?.toFixed(0)} → ${last.ttft_p50?.toFixed(0)} ms (server +${last.server_growth_ms?.toFixed(0)} ms), decode ${first.decode_tps_p50?.toFixed(0)} → ${last.decode_tps_p50?.toFixed(0)} tok/s per stream, starts within ${last.start_spread_ms_max?.toFixed(0)} ms`);
  }
}

/** Until every region has evaluated the tick of now and the keeper has delivered what it owes (bounded). */
async function waitForStatusReport(tick: number): Promise<void> {
  if (!(await waitForStatus(api, tick))) {
    say('status evaluation or notifications still pending after 300 s; the status page may lag until the next tick');
    return;
  }
  const incidents = (await (await fetch(`${api}/api/v1/incidents?window=1d`)).json()) as { incidents: Array<{ status: string }> };
  say(`status evaluated: ${incidents.incidents.length} incident(s) in the last day (${incidents.incidents.filter((i) => i.status === 'open').length} open), ${sink.received} notification(s) received by the local sink`);
}

const builds = join(persistTo, 'site');
let generation = 0;
async function rebuild(): Promise<string> {
  const out = join(builds, String(++generation));
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  await buildSite(out, { apiUrl: api });
  rmSync(join(builds, String(generation - 2)), { recursive: true, force: true });
  return out;
}
say('building the site');
const site = await serveStatic(await rebuild(), sitePort);
console.log(`\nreport site:  ${site.url}/`);
console.log(`read API:     ${api}/api/v1/percentiles?metric=ttft_ms&by=region,target`);
console.log(`status:       ${api}/api/v1/status  ·  incidents: ${api}/api/v1/incidents  ·  notifications go to ${sink.url} (printed above as [sink])`);
console.log(`simulated round trips: ${config.regions.map((r) => `${r.code} ${r.simulatedRttMs ?? 0} ms`).join(', ')} (server time is the same everywhere)`);
console.log(`data:         kept in ${persistTo} (a second npm start adds to it; delete that folder, or use --persist-to, to start fresh)`);
console.log(`Ctrl-C stops everything.\n`);

let timer: NodeJS.Timeout | undefined;
const scheduleNext = () => {
  const wait = tickMs - (Date.now() % tickMs) + 1_000;
  say(`next tick at ${new Date(Date.now() + wait).toISOString().slice(11, 19)} UTC (schedule ${config.schedule}), then the site is rebuilt`);
  timer = setTimeout(async () => {
    try {
      const count = await sampleCount();
      await fetch(`${api}/__scheduled?cron=${encodeURIComponent(config.schedule)}`);
      await waitForSamples(count + perTick);
      site.setRoot(await rebuild());
      say(`tick done, site rebuilt (${await sampleCount()} samples)`);
    } catch (e) {
      console.error(`start: tick failed: ${(e as Error).message}`);
    }
    scheduleNext();
  }, wait);
};
scheduleNext();

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  clearTimeout(timer);
  console.log('\nstopping…');
  await site.close();
  await local.stop();
  for (const p of proxies) await p.close();
  await sink.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
