/**
 * A project script run as a user runs it (`node scripts/….ts`), in its own process group so that
 * everything it starts (wrangler, workerd) is stopped with it, also when a test fails; its output
 * is kept, and waits on it are bounded and fail loudly, with the output.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface ScriptProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the first match of `pattern` in the output; throws if the script exits or `timeoutMs` passes first. */
  until(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
  /** Sends `signal` to the whole process group and waits until the script has exited (SIGKILL after 10 s). */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** `cwd`: the checkout to run it in (default this one), e.g. a copy with its own config (project-copy.ts). */
export function runScript(script: string, args: string[], cwd?: string): ScriptProcess {
  const child = spawn(process.execPath, [script, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // the group is gone already
    }
  };
  return {
    child,
    output: () => output,
    async until(pattern, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = pattern.exec(output);
        if (m) return m;
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`${script} exited (${child.exitCode ?? child.signalCode}) before printing ${pattern}:\n${output}`);
        if (Date.now() > deadline) throw new Error(`${script} printed no ${pattern} within ${timeoutMs / 1000} s:\n${output}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) {
        signalGroup(signal);
        const kill = setTimeout(() => signalGroup('SIGKILL'), 10_000);
        await exited;
        clearTimeout(kill);
      }
      // Whatever it started and left behind in its group.
      signalGroup('SIGKILL');
    },
  };
}
