/**
 * `npm start`: the whole observatory on this machine, on embedded defaults (no account, no key).
 * The reference endpoint and the probing Workers in workerd with a local D1; each region reaches the
 * reference through a delay proxy standing in for its distance (simulatedRttMs in the config), so the
 * split shows network time differing by region while server time does not.
 *
 * Serve first, then fill in. Past ticks are backfilled (really measured now, flagged as backfill), in
 * phases, and the site is rebuilt as each lands:
 * 1. the first report: the newest few backfill ticks of ended hours, rolled up, and the site served;
 * 2. the backfill: the other recent ticks and a few days back for the long-window views; the ended days
 *    are then archived as Parquet into the local R2, served beside the site at /archive/;
 * 3. the regional incident: the last 45 minutes at the schedule's step, during which the reference
 *    endpoint degrades the farthest region on schedule (slower, then failing), so the status rules
 *    open an incident, escalate and resolve it, and its notifications reach a local sink that prints
 *    them; then the tick of now;
 * 4. one concurrency run (1, 4, 8, 16 simultaneous streams per opted-in target).
 * Until a part has landed the pages say what is being measured and when it should be ready. Then a
 * tick on the schedule, and a rebuild after each. Ctrl-C stops everything.
 */
import { parseArgs } from 'node:util';
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { config } from '../observatory.config.ts';
import { probesPerTick, tickMinutesOf } from '../shared/config/schedule.ts';
import { buildViews, startLocalObservatory, waitForRollups, waitForStatus, type LocalObservatory } from './local-observatory.ts';
import { startDelayProxy, type DelayProxy } from './delay-proxy.ts';
import { serveStatic, type StaticServer } from './static-server.ts';
import { assertPortFree } from './processes.ts';
import { intOption, usageError } from './options.ts';
import { buildSite } from './site-build.ts';
import { startNotifySink } from './notify-sink.ts';
import { Progress, duration } from './progress.ts';
import type { PendingPart } from '../site/src/data/types.ts';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../shared/time.ts';
import { LOCAL_PORTS } from '../shared/net/local-ports.ts';

const USAGE = `usage: npm start -- [--port ${LOCAL_PORTS.api}] [--reference-port ${LOCAL_PORTS.reference}] [--site-port ${LOCAL_PORTS.site}] (0: any free port) [--backfill 8] [--history-days 90] [--persist-to .wrangler/demo]`;
const BACKFILL_SPACING_MS = 30 * MINUTE_MS;
/** The first report: this many of the newest backfill ticks (in ended hours), so every pair has a few samples. */
const FIRST_TICKS = 3;
/** Days back of the older backfill ticks that fill the long-window views (those within --history-days): two in each view. */
const HISTORY_DAYS = [2, 5, 12, 22, 45, 80];
/** Longest the demo waits for one phase's samples. */
const SAMPLE_WAIT_MS = 10 * MINUTE_MS;
/** The incident phase: this many ticks at the schedule's step, ending one step before now. */
const INCIDENT_TICKS = 9;
/** Of those, the ticks (0-based) at which the degraded region is slower, then failing. */
const SLOW_TICKS = [2, 4];
const FAIL_TICKS = [4, 7];
/** Server time the degraded region's probes get on top, while it is slower. */
const SLOW_MS = 2_500;
/** Longest the demo waits for its concurrency run, and what it expects one to take before it has measured one. */
const BURST_WAIT_MS = 180_000;
const BURST_ESTIMATE_MS = 20_000;

const progress = new Progress();
const say = (line: string) => progress.say(`• ${line}`);
function fail(message: string): never {
  progress.interrupt();
  console.error(`start: ${message}`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      port: { type: 'string' },
      'reference-port': { type: 'string' },
      'site-port': { type: 'string' },
      backfill: { type: 'string' },
      'history-days': { type: 'string' },
      'persist-to': { type: 'string' },
    },
  }));
} catch (e) {
  usageError('start', (e as Error).message, USAGE);
}
const int = (name: string, value: string | undefined, fallback: number, min: number, max: number) =>
  intOption('start', USAGE, name, value, fallback, min, max);
const apiPort = int('port', values.port, LOCAL_PORTS.api, 0, 65535);
const referencePort = int('reference-port', values['reference-port'], LOCAL_PORTS.reference, 0, 65535);
const sitePort = int('site-port', values['site-port'], LOCAL_PORTS.site, 0, 65535);
const backfill = int('backfill', values.backfill, 8, 0, 200);
const historyDays = int('history-days', values['history-days'], 90, 0, config.rollupRetentionDays);
const persistTo = resolve(values['persist-to'] ?? '.wrangler/demo');
const tickMs = (tickMinutesOf(config.schedule) ?? 5) * MINUTE_MS;

if (sitePort !== 0) await assertPortFree(sitePort, '--site-port').catch((e) => fail(e.message));
const proxies: DelayProxy[] = [];
const start = Date.now();
const grid = Math.floor(start / tickMs) * tickMs;
const incidentTicks = Array.from({ length: INCIDENT_TICKS }, (_, k) => grid - (INCIDENT_TICKS - k) * tickMs);
const degraded = config.regions.at(-1)!.code;
const at = (k: number) => new Date(incidentTicks[0] + k * tickMs).toISOString();
const scheduledFaults = `region=${degraded}; from=${at(SLOW_TICKS[0])}; to=${at(SLOW_TICKS[1])}; slow_ms=${SLOW_MS}, region=${degraded}; from=${at(FAIL_TICKS[0])}; to=${at(FAIL_TICKS[1])}; fault=http-503`;
// A Standard Webhooks key (whsec_ and base64), as a receiver of yours would hold it.
const signingKey = `whsec_${randomBytes(24).toString('base64')}`;
const sink = await startNotifySink(signingKey, (line) => progress.say(`  [sink] ${line}`));
let local: LocalObservatory;
try {
  local = await startLocalObservatory({
    apiPort,
    referencePort,
    persistTo,
    command: 'npm start',
    referenceBindings: { SCHEDULED_FAULTS: scheduledFaults },
    log: (line) => {
      if (/error|✘/i.test(line)) progress.say(`  [wrangler] ${line}`);
    },
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
      return {
        REGION_REFERENCE_URLS: JSON.stringify(urls),
        SIMULATED_REGIONS: '1',
        DEMO_WEBHOOK_URL: sink.url,
        DEMO_WEBHOOK_SIGNING_KEY: signingKey,
      };
    },
  });
} catch (e) {
  for (const p of proxies) await p.close();
  await sink.close();
  fail((e as Error).message);
}
let timer: NodeJS.Timeout | undefined;
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  clearTimeout(timer);
  progress.interrupt();
  console.log('stopping…');
  await site?.close();
  await local.stop();
  for (const p of proxies) await p.close();
  await sink.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

const api = local.apiUrl;
const admin = { authorization: `Bearer ${local.adminToken}`, 'content-type': 'application/json' };
const perTick = probesPerTick(config);

async function sampleCount(): Promise<number> {
  // Over the whole history: more than an anonymous reader may ask for, so with the read token.
  const r = await fetch(`${api}/api/v1/targets?window=${historyDays + 2}d`, {
    headers: { authorization: `Bearer ${local.readToken}`, 'cache-control': 'no-cache' },
  });
  if (!r.ok) throw new Error(`GET /api/v1/targets answered ${r.status}: ${(await r.text()).slice(0, 200)}`);
  return ((await r.json()) as { targets: Array<{ samples: number }> }).targets.reduce((n, t) => n + t.samples, 0);
}

/** Queues a tick (null: the tick of now); returns how many probes the regions queued (none for what D1 already holds). */
async function post(tick: number | null): Promise<number> {
  const r = await fetch(`${api}/api/v1/ticks`, {
    method: 'POST',
    headers: admin,
    body: tick === null ? '{}' : JSON.stringify({ tick_id: tick, backfill: true }),
  });
  if (r.status === 400 && tick !== null) {
    // A database kept from earlier runs whose raw retention has passed this day: its history stays as rolled up.
    const refusal = (await r.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
    if (refusal.error?.code === 'beyond_retention') {
      say(`skipping the backfill of ${new Date(tick).toISOString()}: ${refusal.error.message}`);
      return 0;
    }
    fail(`tick ${new Date(tick).toISOString()} refused: ${JSON.stringify(refusal)}`);
  }
  if (r.status !== 202) fail(`tick ${tick === null ? 'now' : new Date(tick).toISOString()} refused: ${await r.text()}`);
  const report = (await r.json()) as { regions: Array<{ region: string; queued?: number; error?: string }> };
  for (const region of report.regions) if (region.error) say(`region ${region.region} could not be reached: ${region.error}`);
  return report.regions.reduce((n, region) => n + (region.queued ?? 0), 0);
}

/** Seconds per sample, as measured so far (for the pages' estimates of when a part lands). */
let msPerSample = 0;
/**
 * Queues ticks (null: the tick of now) and shows one progress line until their samples are stored.
 * Fails loudly, naming what it waited for, when they are not stored within SAMPLE_WAIT_MS.
 */
async function measure(label: string, ticks: Array<number | null>): Promise<void> {
  if (ticks.length === 0) return;
  const before = await sampleCount();
  const started = Date.now();
  // What the regions queued: a tick a persisted database already holds (a second npm start within the hour) is not measured again.
  let expected = 0;
  for (const tick of ticks) expected += await post(tick);
  try {
    const held = ticks.length * perTick - expected;
    await samplesStored(label, before, expected, held > 0 ? ` (the database held the other ${held})` : '');
  } catch (e) {
    fail((e as Error).message);
  }
  if (expected > 0) msPerSample = (Date.now() - started) / expected;
}

/** One progress line until `expected` samples more than `before` are stored; throws, naming what it waited for, after SAMPLE_WAIT_MS. */
async function samplesStored(label: string, before: number, expected: number, note = ''): Promise<void> {
  const phase = progress.phase(label, expected, 'samples');
  const deadline = Date.now() + SAMPLE_WAIT_MS;
  let n = 0;
  while (n < expected) {
    if (Date.now() > deadline)
      throw new Error(
        `${label}: ${n} of ${expected} samples stored after ${duration(SAMPLE_WAIT_MS)}; GET ${api}/api/v1/health says what each region is doing`,
      );
    await new Promise((r) => setTimeout(r, 500));
    n = Math.min(expected, (await sampleCount()) - before);
    phase.update(n);
  }
  phase.finish(`${expected} samples${note}`);
}

async function rollups(ticks: number[]): Promise<void> {
  try {
    const rolled = await waitForRollups(api, ticks, perTick, local.readToken);
    say(`rolled up: ${rolled.hourly} probes in hourly rows, ${rolled.daily} in daily rows (the current hour is rolled up once it ends)`);
  } catch (e) {
    say(`rollups incomplete: ${(e as Error).message}; the long-window views may lag until the next tick`);
  }
}

// The plan: what each phase measures, in the order they run.
const recent = Array.from({ length: backfill }, (_, k) => Math.floor(incidentTicks[0] / HOUR_MS) * HOUR_MS - (k + 1) * BACKFILL_SPACING_MS);
const firstTicks = recent.slice(0, FIRST_TICKS);
const history = HISTORY_DAYS.filter((d) => d <= historyDays).map((d) => start - d * DAY_MS);
const backfillTicks = [...recent.slice(FIRST_TICKS), ...history].sort((a, b) => a - b);
const clock = (t: number) => `${new Date(t).toISOString().slice(11, 16)} UTC`;
const parts: Array<{ id: PendingPart['id']; label: string; samples: number; extraMs?: number }> = [
  {
    id: 'backfill' as const,
    label: `the long-window history (${backfillTicks.length} more past ticks: the 24 h, 30 d and 90 d views)`,
    samples: backfillTicks.length * perTick,
  },
  {
    id: 'incident' as const,
    label: `the regional incident (the last ${(INCIDENT_TICKS * tickMs) / MINUTE_MS} min, region ${degraded} degraded) and the tick of now`,
    samples: (INCIDENT_TICKS + 1) * perTick,
  },
  ...(config.bursts
    ? [{ id: 'concurrency' as const, label: 'the concurrency run (1 to 16 simultaneous streams)', samples: 0, extraMs: BURST_ESTIMATE_MS }]
    : []),
].filter((p) => p.samples > 0 || p.extraMs);
/** The parts not yet landed, each with when it should, from the rate measured so far. */
function pending(landed: Set<string>): PendingPart[] {
  let t = Date.now();
  return parts
    .filter((p) => !landed.has(p.id))
    .map((p) => {
      t += p.samples * msPerSample + (p.extraMs ?? 0);
      return { id: p.id, label: p.label, ready_at: new Date(t).toISOString() };
    });
}

const builds = join(persistTo, 'site');
let generation = 0;
let site: StaticServer | null = null;
const landed = new Set<string>();
/** Builds the site into a new folder and serves it from there (the previous build stays whole until then). */
async function rebuild(): Promise<void> {
  const out = join(builds, String(++generation));
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  // The public views the build reads, built from what has just landed; the archive beside the site (its /archive/
  // passed to the API's, from the local R2), once the site has an address.
  await buildViews(api, local.adminToken);
  await buildSite(out, {
    apiUrl: api,
    readToken: local.readToken,
    pending: pending(landed),
    ...(site ? { archiveUrl: `${site.url}/archive` } : {}),
  });
  if (site) site.setRoot(out);
  else site = await serveStatic(out, sitePort, { prefix: '/archive/', to: api });
  rmSync(join(builds, String(generation - 2)), { recursive: true, force: true });
}

// 1. The first report.
say(
  `the first report: ${firstTicks.length} past tick(s) every ${BACKFILL_SPACING_MS / MINUTE_MS} min (measured now, flagged as backfill; each region runs ${config.concurrency} probes at a time)`,
);
await measure('first report', firstTicks);
await rollups(firstTicks);
await rebuild();
console.log(`\nreport site:  ${site!.url}/   (first report after ${duration(Date.now() - start)}; the rest lands in the next few minutes)`);
console.log(`read API:     ${api}/api/v1/percentiles?metric=ttft_ms&by=region,target`);
console.log(`read token:   ${local.readToken}  (raw samples over more than a day: "Authorization: Bearer …")`);
console.log(
  `status:       ${api}/api/v1/status  ·  incidents: ${api}/api/v1/incidents  ·  notifications go to ${sink.url} (printed as [sink])`,
);
console.log(
  `simulated round trips: ${config.regions.map((r) => `${r.code} ${r.simulatedRttMs ?? 0} ms`).join(', ')} (server time is the same everywhere)`,
);
console.log(`data:         kept in ${persistTo} (a second npm start adds to it; delete that folder, or use --persist-to, to start fresh)`);
console.log(`Ctrl-C stops everything.\n`);

// 2. The backfill: the other recent ticks and the long-window history.
say(
  `the backfill: ${recent.length - firstTicks.length} more every ${BACKFILL_SPACING_MS / MINUTE_MS} min, and ${history.length} spread over ${historyDays} days for the long-window views`,
);
await measure('backfill', backfillTicks);
await rollups(backfillTicks);
await archivePastDays();
landed.add('backfill');
await rebuild();
say('site rebuilt with the backfill');

// 3. The regional incident: the last 45 minutes at the schedule's step, then the tick of now.
say(
  `the regional incident: the last ${(INCIDENT_TICKS * tickMs) / MINUTE_MS} min at the schedule's step: region ${degraded} is ${SLOW_MS / 1000} s slower (server time) for ticks ${clock(incidentTicks[SLOW_TICKS[0]])}–${clock(incidentTicks[SLOW_TICKS[1] - 1])}, then fails (HTTP 503) for ${clock(incidentTicks[FAIL_TICKS[0]])}–${clock(incidentTicks[FAIL_TICKS[1] - 1])}: the status rules should open an incident, escalate and resolve it`,
);
await measure('regional incident', [...incidentTicks, null]);
say(`${await sampleCount()} samples stored`);
await waitForStatusReport(grid);
landed.add('incident');
await rebuild();
say('site rebuilt with the incident');

// 4. One concurrency run.
await concurrencyRun();
landed.add('concurrency');
await rebuild();
say(`demo complete after ${duration(Date.now() - start)}: site rebuilt with every part`);

/**
 * The backfilled past days, written to the local R2 as Parquet now (deployed, retention's run does it at
 * midnight UTC), and where to read them: the site's /archive/, with a DuckDB query over them.
 */
async function archivePastDays(): Promise<void> {
  type Report = { files_confirmed: number; pending: number; failed: string[] };
  let report: Report | null = null;
  // Each call writes at most a week of files per region; a larger backlog takes another.
  for (let call = 0; call < 5 && (report === null || report.pending > 0); call++) {
    const r = await fetch(`${api}/api/v1/archive`, { method: 'POST', headers: admin });
    if (!r.ok) return say(`archive not written: ${r.status} ${(await r.text()).slice(0, 200)}`);
    report = (await r.json()) as Report;
    if (report.failed.length > 0) return say(`archive: regions ${report.failed.join(', ')} failed; GET ${api}/api/v1/health says why`);
  }
  const listed = await fetch(`${api}/archive/manifest.json`);
  if (!listed.ok) return say(`archive: no manifest to read (${listed.status}); GET ${api}/api/v1/health says why`);
  const manifest = (await listed.json()) as {
    files: Array<{ key: string; table: string; day: string; rows: number; bytes: number }>;
  };
  const samples = manifest.files.filter((f) => f.table === 'samples');
  const days = [...new Set(samples.map((f) => f.day))].sort();
  const bytes = manifest.files.reduce((n, f) => n + f.bytes, 0);
  const base = `${site ? site.url : api}/archive`;
  say(
    `archived the ended days as Parquet: ${manifest.files.length} files, ${manifest.files.reduce((n, f) => n + f.rows, 0)} rows, ${(bytes / 1024).toFixed(0)} KiB (raw samples of ${days.length} days, ${days[0] ?? '–'} to ${days.at(-1) ?? '–'}); listed in ${base}/manifest.json`,
  );
  const newest = samples.filter((f) => f.day === days.at(-1));
  if (newest.length > 0)
    say(
      `  in DuckDB: SELECT region, target, count(*) AS n, median(ttft_ms) FROM read_parquet([${newest.map((f) => `'${base}/${f.key}'`).join(', ')}], hive_partitioning = true) GROUP BY ALL;`,
    );
}

/**
 * One concurrency run now (they run hourly on their own cron): each region starts 1, 4, 8 and 16
 * simultaneous streams to each target that opted in; the batching model's queue and decode slow down
 * as the streams rise.
 */
async function concurrencyRun(): Promise<void> {
  if (!config.bursts) return;
  const pairs = config.regions.length * config.targets.filter((t) => t.bursts).length;
  const levels = config.bursts.levels ?? [1];
  say(
    `a concurrency run: each region starts ${levels.join(', ')} simultaneous streams to ${config.targets
      .filter((t) => t.bursts)
      .map((t) => t.id)
      .join(', ')}`,
  );
  const started = await fetch(`${api}/api/v1/bursts`, { method: 'POST', headers: admin });
  if (!started.ok) return say(`concurrency run not started: ${started.status} ${(await started.text()).slice(0, 200)}`);
  type Report = {
    region: string;
    target: string;
    levels: Array<{
      level: number;
      ttft_p50: number | null;
      server_growth_ms: number | null;
      decode_tps_p50: number | null;
      start_spread_ms_max: number | null;
      rate_limited: number;
    }>;
  };
  let reports: Report[] = [];
  const phase = progress.phase('concurrency run', pairs * levels.length, 'levels');
  const deadline = Date.now() + BURST_WAIT_MS;
  const done = (r: Report) => r.levels.length === levels.length || r.levels.some((l) => l.rate_limited > 0);
  while (Date.now() < deadline) {
    reports = ((await (await fetch(`${api}/api/v1/bursts?runs=1`)).json()) as { reports: Report[] }).reports;
    phase.update(reports.reduce((n, r) => n + (done(r) ? levels.length : r.levels.length), 0));
    if (reports.length >= pairs && reports.every(done)) break;
    await new Promise((r) => setTimeout(r, 1_000));
  }
  const finished = reports.length >= pairs && reports.every(done);
  phase.finish(
    finished ? `every level of ${pairs} region × target pairs` : 'not finished yet; the site shows it once it is (the next rebuild)',
  );
  for (const r of reports.filter((x) => x.region === config.regions[0].code)) {
    const last = r.levels.at(-1)!;
    const first = r.levels[0];
    say(
      `  ${r.region} ${r.target}: ${first.level} → ${last.level} streams, TTFT p50 ${first.ttft_p50?.toFixed(0)} → ${last.ttft_p50?.toFixed(0)} ms (server +${last.server_growth_ms?.toFixed(0)} ms), decode ${first.decode_tps_p50?.toFixed(0)} → ${last.decode_tps_p50?.toFixed(0)} tok/s per stream, starts within ${last.start_spread_ms_max?.toFixed(0)} ms`,
    );
  }
}

/** Until every region has evaluated the tick of now and the keeper has delivered what it owes (bounded). */
async function waitForStatusReport(tick: number): Promise<void> {
  if (!(await waitForStatus(api, local.readToken, tick))) {
    say('status evaluation or notifications still pending after 300 s; the status page may lag until the next tick');
    return;
  }
  const incidents = (await (await fetch(`${api}/api/v1/incidents?window=1d`)).json()) as { incidents: Array<{ status: string }> };
  say(
    `status evaluated: ${incidents.incidents.length} incident(s) in the last day (${incidents.incidents.filter((i) => i.status === 'open').length} open), ${sink.received} notification(s) received by the local sink`,
  );
}

const scheduleNext = () => {
  const wait = tickMs - (Date.now() % tickMs) + 1_000;
  say(
    `next tick at ${new Date(Date.now() + wait).toISOString().slice(11, 19)} UTC (schedule ${config.schedule}), then the site is rebuilt`,
  );
  timer = setTimeout(async () => {
    try {
      const count = await sampleCount();
      await fetch(`${api}/__scheduled?cron=${encodeURIComponent(config.schedule)}`);
      await samplesStored('tick', count, perTick);
      await rebuild();
      say(`tick done, site rebuilt (${await sampleCount()} samples)`);
    } catch (e) {
      progress.interrupt();
      console.error(`start: tick failed: ${(e as Error).message}`);
    }
    scheduleNext();
  }, wait);
};
scheduleNext();
