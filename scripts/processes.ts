/** Child processes for the local scripts: wrangler runs, waits for a port, and clean shutdown. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** Environment for wrangler: non-interactive, no telemetry, no lookups of Cloudflare's hosts. */
export const WRANGLER_ENV = {
  ...process.env,
  CI: 'true',
  WRANGLER_SEND_METRICS: 'false',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  NO_COLOR: '1',
};

/** The wrangler CLI of this repository, run with the same Node as this script. */
export function wranglerArgs(args: string[]): [string, string[]] {
  return [process.execPath, [new URL('../node_modules/wrangler/bin/wrangler.js', import.meta.url).pathname, ...args]];
}

/** Runs wrangler to completion (`env`: variables set on top of WRANGLER_ENV); rejects with its output when it fails. */
export function runWrangler(args: string[], env: Record<string, string> = {}): Promise<string> {
  const [cmd, argv] = wranglerArgs(args);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { env: { ...WRANGLER_ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`wrangler ${args.join(' ')} failed (exit ${code}):\n${out}`)),
    );
  });
}

/**
 * Stops the process group `pgid` once its parent is gone, however it ended (SIGKILL included, where no
 * exit handler runs): it waits on a pipe from the parent, which the kernel closes when the parent dies.
 * Detached itself, so a signal to the parent's group does not take it along first.
 */
const WATCHDOG = `
const pgid = Number(process.argv[1]);
const kill = (signal) => { try { process.kill(-pgid, signal); } catch {} };
process.stdin.on('close', () => { kill('SIGTERM'); setTimeout(() => { kill('SIGKILL'); process.exit(0); }, 5000); });
process.stdin.resume();`;

/** Starts a long-running wrangler (dev) in a process group of its own (`env` as for runWrangler); its output goes to `log`. */
export function startWrangler(args: string[], log: (line: string) => void, env: Record<string, string> = {}): ChildProcess {
  const [cmd, argv] = wranglerArgs(args);
  const child = spawn(cmd, argv, { env: { ...WRANGLER_ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const forward = (chunk: Buffer) =>
    chunk
      .toString()
      .split('\n')
      .filter((l) => l.trim())
      .forEach(log);
  child.stdout?.on('data', forward);
  child.stderr?.on('data', forward);
  // However this process ends, take wrangler and its workerd along: on exit (Miniflare's own signal handlers may
  // end it first), and, should it be killed outright, through the watchdog.
  const killGroup = () => {
    try {
      if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  process.once('exit', killGroup);
  const watchdog =
    child.pid === undefined
      ? null
      : spawn(process.execPath, ['-e', WATCHDOG, String(child.pid)], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
  watchdog?.unref();
  (watchdog?.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  child.once('exit', () => {
    process.off('exit', killGroup);
    watchdog?.kill('SIGKILL');
  });
  return child;
}

/** Stops a detached child and everything it started (workerd). */
export function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.pid === undefined) return resolve();
    child.once('exit', () => resolve());
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      resolve();
    }
    setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, 5_000).unref();
  });
}

/** Longest one try of waitForHttp waits for its answer (a refused connection, while starting, fails at once). */
const ATTEMPT_MS = 20_000;

/** Polls a URL on loopback until it answers (any status, or one `accept` takes), or throws after `timeoutMs`. */
export async function waitForHttp(
  url: string,
  timeoutMs: number,
  accept: (r: Response) => Promise<boolean> | boolean = () => true,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      // Each try bounded by what is left, not by a short fixed bound: a busy machine's first answer (the health
      // document reads D1 and every region's object) can take longer than 2 s on every try, and never come.
      const r = await fetch(url, { signal: AbortSignal.timeout(Math.max(1_000, Math.min(ATTEMPT_MS, deadline - Date.now()))) });
      if (await accept(r)) return;
      last = `answered ${r.status}, not as expected`;
    } catch (e) {
      last = (e as Error).message;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms (last: ${last})`);
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Throws a clear error when something already listens on 127.0.0.1:port. */
export function assertPortFree(port: number, option: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', () => reject(new Error(`port ${port} on 127.0.0.1 is already in use; choose another with ${option}`)));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
  });
}
