/**
 * The whole observatory on this machine: the reference endpoint (workerd), local D1 with migrations
 * applied, and `wrangler dev` running the scheduler, the regional Durable Objects and the API.
 * Used by `npm run dev` and `npm start`.
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { startWorker, type RunningWorker } from './worker-runtime.ts';
import { assertPortFree, runWrangler, startWrangler, stopProcess, waitForHttp } from './processes.ts';

export interface LocalOptions {
  apiPort: number;
  referencePort: number;
  persistTo: string;
  /** Extra `--var NAME:value` for the observatory Worker, once the reference endpoint's URL is known. */
  vars?: (referenceUrl: string) => Promise<Record<string, string>>;
  /** Extra bindings of the reference endpoint (its SCHEDULED_FAULTS in the demo). */
  referenceBindings?: Record<string, string>;
  /** Where wrangler's own output goes. */
  log: (line: string) => void;
  progress: (line: string) => void;
}

export interface LocalObservatory {
  apiUrl: string;
  referenceUrl: string;
  adminToken: string;
  stop(): Promise<void>;
}

const STARTUP_TIMEOUT_MS = 90_000;
const RECENT_LINES = 20;

export async function startLocalObservatory(o: LocalOptions): Promise<LocalObservatory> {
  const persistTo = resolve(o.persistTo);
  let reference: RunningWorker | null = null;
  let dev: ChildProcess | null = null;
  const recent: string[] = [];
  const stop = async () => {
    if (dev) await stopProcess(dev);
    if (reference) await reference.stop();
  };
  try {
    await assertPortFree(o.apiPort, '--port');
    await assertPortFree(o.referencePort, '--reference-port');
    o.progress(`starting the reference LLM endpoint on 127.0.0.1:${o.referencePort}`);
    reference = await startWorker({ config: 'workers/reference/wrangler.toml', port: o.referencePort, bindings: o.referenceBindings });
    o.progress(`applying D1 migrations to the local database in ${persistTo}`);
    await runWrangler(['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', persistTo]);
    const adminToken = randomBytes(16).toString('hex');
    const vars: Record<string, string> = { REFERENCE_URL: reference.url, ADMIN_TOKEN: adminToken, ...(await o.vars?.(reference.url)) };
    o.progress(`starting the scheduler, regional Durable Objects and API on 127.0.0.1:${o.apiPort}`);
    dev = startWrangler([
      'dev', '--ip', '127.0.0.1', '--port', String(o.apiPort), '--persist-to', persistTo, '--test-scheduled',
      '--show-interactive-dev-session=false', '--log-level', 'warn',
      ...Object.entries(vars).flatMap(([k, v]) => ['--var', `${k}:${v}`]),
    ], (line) => {
      recent.push(line);
      if (recent.length > RECENT_LINES) recent.shift();
      o.log(line);
    });
    const apiUrl = `http://127.0.0.1:${o.apiPort}`;
    const died = new Promise<never>((_, reject) => dev!.once('exit', (code) => reject(new Error(`wrangler dev stopped (exit ${code}) before the API answered:\n${recent.join('\n')}`))));
    await Promise.race([waitForHttp(`${apiUrl}/api/v1/health`, STARTUP_TIMEOUT_MS), died]);
    return { apiUrl, referenceUrl: reference.url, adminToken, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/**
 * Waits until the rollups hold every probe of the given ticks that lie in ended hours (hourly rows)
 * and ended days (daily rows): each region's object writes them once its jobs are done. Returns the
 * probes found, hourly and daily; throws after `timeoutMs`.
 */
export async function waitForRollups(apiUrl: string, ticks: number[], probesPerTick: number, timeoutMs = 120_000): Promise<{ hourly: number; daily: number }> {
  const now = Date.now();
  const hour = Math.floor(now / 3_600_000) * 3_600_000;
  const day = Math.floor(now / 86_400_000) * 86_400_000;
  const from = Math.min(...ticks);
  const want = { hourly: ticks.filter((t) => t < hour).length * probesPerTick, daily: ticks.filter((t) => t < day).length * probesPerTick };
  const probes = async (resolution: 'hour' | 'day', to: number): Promise<number> => {
    if (to <= from) return 0;
    const r = await fetch(`${apiUrl}/api/v1/rollups?resolution=${resolution}&from=${from - 86_400_000}&to=${to}`);
    if (!r.ok) throw new Error(`rollups answered ${r.status}: ${await r.text()}`);
    return ((await r.json()) as { rows: Array<{ probes: number }> }).rows.reduce((n, x) => n + x.probes, 0);
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = { hourly: await probes('hour', hour), daily: await probes('day', day) };
    if (got.hourly >= want.hourly && got.daily >= want.daily) return got;
    if (Date.now() > deadline) throw new Error(`rollups hold ${got.hourly}/${want.hourly} probes in hourly rows and ${got.daily}/${want.daily} in daily rows after ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * Waits until every region has evaluated `tick` by the status rules, and the status keeper has
 * written its incidents to D1 and delivered what it owes. Returns false after `timeoutMs`.
 */
export async function waitForStatus(apiUrl: string, tick: number, timeoutMs = 300_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = (await (await fetch(`${apiUrl}/api/v1/status`)).json()) as { targets: Array<{ regions: Array<{ last_evaluated: string | null }> }> };
    const health = (await (await fetch(`${apiUrl}/api/v1/health`)).json()) as { notifications: { pending: number }; incidents_unwritten: number };
    const evaluated = status.targets.every((t) => t.regions.every((r) => r.last_evaluated !== null && Date.parse(r.last_evaluated) >= tick));
    if (evaluated && health.notifications.pending === 0 && health.incidents_unwritten === 0) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 1_000));
  }
}
