/**
 * The whole observatory on this machine: the reference endpoint (workerd), local D1 with migrations
 * applied, and `wrangler dev` running the scheduler, the regional Durable Objects and the API.
 * Used by `npm run dev` and `npm start`.
 */
import { forEachPage, pageUrl, type Paged } from '../shared/api-pages.ts';
import { DAY_MS, HOUR_MS } from '../shared/time.ts';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { startWorker, type RunningWorker } from './worker-runtime.ts';
import { assertPortFree, freePort, runWrangler, startWrangler, stopProcess, waitForHttp } from './processes.ts';
import { LOCAL_WRANGLER_ENV, readLocalSecrets, writeLocalVars } from './local-vars.ts';

export interface LocalOptions {
  /** 0: any free port (a port another process takes first is tried again with another). */
  apiPort: number;
  /** 0: any free port, bound by the runtime itself. */
  referencePort: number;
  persistTo: string;
  /** Extra variables and secrets for the observatory Worker, once the reference endpoint's URL is known. */
  vars?: (referenceUrl: string) => Promise<Record<string, string>>;
  /** Extra bindings of the reference endpoint (its SCHEDULED_FAULTS in the demo). */
  referenceBindings?: Record<string, string>;
  /** Who sets the generated variables, in what the run prints about them ("npm run dev"; default "this run"). */
  command?: string;
  /** Where wrangler's own output goes. */
  log: (line: string) => void;
  progress: (line: string) => void;
}

export interface LocalObservatory {
  apiUrl: string;
  referenceUrl: string;
  adminToken: string;
  /** What the site build sends (READ_TOKEN): fresh reads, outside the public budget and cache. */
  readToken: string;
  stop(): Promise<void>;
}

const STARTUP_TIMEOUT_MS = 90_000;
const RECENT_LINES = 20;
/** Tries of a free API port that another process took between our look and wrangler's bind. */
const PORT_TRIES = 3;

export async function startLocalObservatory(o: LocalOptions): Promise<LocalObservatory> {
  const persistTo = resolve(o.persistTo);
  let reference: RunningWorker | null = null;
  let dev: ChildProcess | null = null;
  // The Worker's variables and secrets (the user's .dev.vars, the admin token, signing keys) go in a file only this
  // user can read, never on a command line, where `ps` shows them to everyone (local-vars.ts).
  const envFile = join(persistTo, 'observatory.env');
  const stop = async () => {
    if (dev) await stopProcess(dev);
    if (reference) await reference.stop();
    rmSync(envFile, { force: true });
  };
  try {
    if (o.apiPort !== 0) await assertPortFree(o.apiPort, '--port');
    if (o.referencePort !== 0) await assertPortFree(o.referencePort, '--reference-port');
    const secrets = readLocalSecrets();
    o.progress(
      secrets.files.length === 0
        ? 'no .dev.vars (local secrets): a target whose key it would hold is skipped, and /api/v1/health names the key'
        : `local secrets from ${secrets.files.join(' and ')}: ${Object.keys(secrets.values).join(', ') || 'none'}`,
    );
    if (process.env.CLOUDFLARE_ENV)
      o.progress(`CLOUDFLARE_ENV=${process.env.CLOUDFLARE_ENV} is not used: a local run is wrangler.toml's top level, with .dev.vars`);
    o.progress('starting the reference LLM endpoint');
    // On loopback, for this machine only: open, asked for explicitly.
    reference = await startWorker({
      config: 'workers/reference/wrangler.toml',
      port: o.referencePort,
      bindings: { REFERENCE_OPEN: 'true', ...o.referenceBindings },
    });
    o.progress(`reference LLM endpoint on ${reference.url}; applying D1 migrations to the local database in ${persistTo}`);
    await runWrangler(['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', persistTo], LOCAL_WRANGLER_ENV);
    const adminToken = randomBytes(16).toString('hex');
    const readToken = randomBytes(16).toString('hex');
    const vars: Record<string, string> = {
      REFERENCE_URL: reference.url,
      ADMIN_TOKEN: adminToken,
      READ_TOKEN: readToken,
      ...(await o.vars?.(reference.url)),
    };
    const replaced = writeLocalVars(envFile, secrets.values, vars);
    if (replaced.length > 0)
      o.progress(
        `${secrets.files.join(' and ')} also sets ${replaced.join(', ')}: ${o.command ?? 'this run'} sets these itself, and uses its own values`,
      );
    for (let attempt = 1; ; attempt++) {
      const port = o.apiPort === 0 ? await freePort() : o.apiPort;
      o.progress(`starting the scheduler, regional Durable Objects and API on 127.0.0.1:${port}`);
      try {
        dev = await startApi(port, persistTo, envFile, o.log);
        return { apiUrl: `http://127.0.0.1:${port}`, referenceUrl: reference.url, adminToken, readToken, stop };
      } catch (e) {
        // A port taken between wrangler's look and its bind: this one, or one of its own (inspector, direct sockets).
        if (o.apiPort !== 0 || attempt >= PORT_TRIES || !(e instanceof PortTakenError)) throw e;
        o.progress(`a port was taken before wrangler could bind it (${e.message.split('\n')[0]}); trying again`);
      }
    }
  } catch (e) {
    await stop();
    throw e;
  }
}

class PortTakenError extends Error {}

/** `wrangler dev` on the port, once its API answers; rejects with its last lines when it stops first. */
async function startApi(port: number, persistTo: string, envFile: string, log: (line: string) => void): Promise<ChildProcess> {
  const recent: string[] = [];
  let portTaken: string | null = null;
  const dev = startWrangler(
    [
      // The devtools port bound by the runtime itself: wrangler's own pick (from 9229 up) races another wrangler starting.
      'dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--inspector-port',
      '0',
      '--persist-to',
      persistTo,
      '--test-scheduled',
      '--show-interactive-dev-session=false',
      '--log-level',
      'warn',
      '--env-file',
      envFile,
    ],
    (line) => {
      recent.push(line);
      if (recent.length > RECENT_LINES) recent.shift();
      if (portTaken === null && /Address already in use/.test(line)) portTaken = line;
      log(line);
    },
    LOCAL_WRANGLER_ENV,
  );
  const died = new Promise<never>((_, reject) =>
    dev.once('exit', (code) => {
      const message = `wrangler dev stopped (exit ${code}) before the API answered:\n${recent.join('\n')}`;
      reject(portTaken === null ? new Error(message) : new PortTakenError(`${portTaken.trim()}\n${message}`));
    }),
  );
  died.catch(() => {}); // also when it is stopped later, on purpose
  // Ours, not whatever else may answer on that port: the observatory's health document.
  const ours = async (r: Response) => r.ok && 'schedule' in ((await r.json().catch(() => ({}))) as object);
  try {
    await Promise.race([waitForHttp(`http://127.0.0.1:${port}/api/v1/health`, STARTUP_TIMEOUT_MS, ours), died]);
  } catch (e) {
    await stopProcess(dev);
    throw e;
  }
  return dev;
}

/**
 * Waits until the rollups hold every probe of the given ticks that lie in ended hours (hourly rows)
 * and ended days (daily rows): each region's object writes them once its jobs are done. Returns the
 * probes found, hourly and daily; throws after `timeoutMs`.
 */
export async function waitForRollups(
  apiUrl: string,
  ticks: number[],
  probesPerTick: number,
  readToken: string,
  timeoutMs = 120_000,
): Promise<{ hourly: number; daily: number }> {
  const now = Date.now();
  const hour = Math.floor(now / HOUR_MS) * HOUR_MS;
  const day = Math.floor(now / DAY_MS) * DAY_MS;
  const from = Math.min(...ticks);
  const want = { hourly: ticks.filter((t) => t < hour).length * probesPerTick, daily: ticks.filter((t) => t < day).length * probesPerTick };
  const probes = async (resolution: 'hour' | 'day', to: number): Promise<number> => {
    if (to <= from) return 0;
    // The whole history: longer than an anonymous reader may ask for.
    let probes = 0;
    await forEachPage(
      async (cursor) => {
        const r = await fetch(
          pageUrl(`${apiUrl}/api/v1/rollups?resolution=${resolution}&histograms=base64&from=${from - DAY_MS}&to=${to}`, cursor),
          {
            headers: { authorization: `Bearer ${readToken}`, 'cache-control': 'no-cache' },
          },
        );
        if (!r.ok) throw new Error(`rollups answered ${r.status}: ${await r.text()}`);
        return (await r.json()) as { rows: Array<{ probes: number }> } & Paged;
      },
      (page) => {
        probes += page.rows.reduce((n, x) => n + x.probes, 0);
      },
    );
    return probes;
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = { hourly: await probes('hour', hour), daily: await probes('day', day) };
    if (got.hourly >= want.hourly && got.daily >= want.daily) return got;
    if (Date.now() > deadline)
      throw new Error(
        `rollups hold ${got.hourly}/${want.hourly} probes in hourly rows and ${got.daily}/${want.daily} in daily rows after ${timeoutMs / 1000} s`,
      );
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * Waits until every region has evaluated `tick` by the status rules, and the status keeper has
 * written its incidents to D1 and delivered what it owes. Returns false after `timeoutMs`.
 */
export async function waitForStatus(apiUrl: string, readToken: string, tick: number, timeoutMs = 300_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  // The live answers: the public views are built a little after each change (a token holder gets them too unless it
  // asks for a fresh answer).
  const headers = { authorization: `Bearer ${readToken}`, 'cache-control': 'no-cache' };
  for (;;) {
    const status = (await (await fetch(`${apiUrl}/api/v1/status`, { headers })).json()) as {
      targets: Array<{ regions: Array<{ last_evaluated: string | null }> }>;
    };
    const health = (await (await fetch(`${apiUrl}/api/v1/health`, { headers })).json()) as {
      notifications: { pending: number };
      incidents_unwritten: number;
    };
    const evaluated = status.targets.every((t) =>
      t.regions.every((r) => r.last_evaluated !== null && Date.parse(r.last_evaluated) >= tick),
    );
    if (evaluated && health.notifications.pending === 0 && health.incidents_unwritten === 0) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

/**
 * Builds every public view now (POST /api/v1/views): what a site build reads, so a build right after new data
 * shows it without waiting for the views to settle and build themselves.
 */
export async function buildViews(apiUrl: string, adminToken: string): Promise<void> {
  const r = await fetch(`${apiUrl}/api/v1/views`, { method: 'POST', headers: { authorization: `Bearer ${adminToken}` } });
  if (!r.ok) throw new Error(`POST /api/v1/views answered ${r.status}: ${(await r.text()).slice(0, 300)}`);
}
