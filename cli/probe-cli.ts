import { runProbe } from '../shared/probe/probe.ts';
import { measureRtt } from '../shared/probe/rtt.ts';
import type { FetchLike, Sample } from '../shared/types.ts';
import { parseCliArgs, UsageError, USAGE } from './probe-args.ts';
import { formatTable } from './probe-table.ts';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  fetch?: FetchLike;
  /** When the fetch handed over headers or a chunk (the node:http fetch knows; see ProbeOptions.arrivalOf). */
  arrivalOf?: (received: Response | Uint8Array) => number | undefined;
  /** The progress line may redraw in place. */
  interactive?: boolean;
}

/** Probes one target N times from this machine with the same core the Workers use. Returns the exit code. */
export async function runProbeCli(argv: string[], io: CliIo): Promise<number> {
  let config;
  try {
    config = parseCliArgs(argv, io.env);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr(`probe: ${e.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (config.help) {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  const wallClock = () => performance.timeOrigin + performance.now();
  let rttMs: number | null = null;
  let rttNote: string | null = null;
  if (config.rtt) {
    const rtt = await measureRtt({ target: config.target, fetch: io.fetch, timeoutMs: config.timeouts.headersMs });
    rttMs = rtt.rttMs;
    rttNote = rtt.note;
    if (!config.json) io.stderr(`round trip to ${rtt.url}: ${rttMs === null ? 'no answer' : `${rttMs.toFixed(1)} ms`}\n`);
  }
  const samples: Sample[] = [];
  for (let i = 0; i < config.n; i++) {
    const { sample } = await runProbe({
      target: config.target,
      prompt: config.prompt,
      timeouts: config.timeouts,
      fetch: io.fetch,
      arrivalOf: io.arrivalOf,
      wallClock,
      epochOf: (t) => performance.timeOrigin + t,
      warm: config.rtt || i > 0,
      rttMs,
      rttNote,
    });
    samples.push(sample);
    if (config.json) io.stdout(`${JSON.stringify(sample)}\n`);
    const status = sample.error ? sample.error : `ttft ${sample.ttft_ms?.toFixed(1)} ms`;
    const progress = `probe ${i + 1}/${config.n}: ${status}`;
    if (io.interactive) io.stderr(`\r${progress}\x1b[K`);
    else if (!config.json) io.stderr(`${progress}\n`);
  }
  if (io.interactive) io.stderr('\n');
  if (!config.json) io.stdout(`${formatTable(samples)}\n`);
  return samples.every((s) => s.error !== null) ? 1 : 0;
}
