/**
 * The probe CLI, single-shot (`npm run probe -- … --n 1`, a fresh process each time, round trip on as
 * by default), against every recorded provider stream replayed on loopback by a server that knows
 * when it really sent the first token. Returns each recording's ttft_ms errors (ms, client − truth),
 * per CLI when several are compared: their runs alternate, so a drifting machine load hits all alike.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { apiIdOf, fixtureNames, loadFixture, type Fixture } from '../tests/helpers/fixtures.ts';
import { firstTokenEvent, recordedEvents, startReplayTruthServer } from '../tests/helpers/replay-truth-server.ts';
import type { Sample } from '../shared/types.ts';

/** This checkout's probe CLI. */
export const CLI = fileURLToPath(new URL('../cli/probe.ts', import.meta.url));

export interface RecordedTruth {
  name: string;
  api: string;
  /** Errors per CLI label, in run order: ttft_ms − the time the first token's write returned. */
  errors: Record<string, number[]>;
  /** ttft_ms − the time that write began, per CLI label: never negative unless the probe stamps too early. */
  afterWriteStart: Record<string, number[]>;
}

/** Recordings of a 200 stream with at least one token: what a first-token error can be measured on. */
export function timedRecordings(): Fixture[] {
  return fixtureNames()
    .map(loadFixture)
    .filter((f) => f.response.status === 200 && firstTokenEvent(f, recordedEvents(f)) !== -1);
}

function probeOnce(cli: string, url: string, f: Fixture): Promise<Sample> {
  const model = (f.request.body as { model?: string } | null)?.model ?? 'm';
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [cli, url, '--api', apiIdOf(f), '--model', model, '--n', '1', '--json'],
      { timeout: 60_000 },
      (_error, stdout, stderr) => {
        try {
          resolve(JSON.parse(stdout.trim().split('\n')[0]));
        } catch {
          reject(new Error(`probe of ${f.name} printed no sample: ${stderr.slice(0, 300)}`));
        }
      },
    ),
  );
}

export async function cliOnRecordings(
  runs: number,
  recordings = timedRecordings(),
  pacing = { prefillMs: 30, gapMs: 3 },
  clis: Record<string, string> = { cli: CLI },
): Promise<RecordedTruth[]> {
  const byKey = new Map(recordings.map((f) => [f.name.replace(/\.json$/, ''), f]));
  const server = await startReplayTruthServer((path) => {
    const key = path.split('/')[1];
    const fixture = byKey.get(key);
    return fixture ? { key, fixture } : null;
  }, pacing);
  const results: RecordedTruth[] = [];
  try {
    for (const [key, f] of byKey) {
      const recorded = new URL(f.request.url);
      const url = `${server.url}/${key}${recorded.pathname}${recorded.search}`;
      const errors: Record<string, number[]> = Object.fromEntries(Object.keys(clis).map((label) => [label, []]));
      const afterWriteStart: Record<string, number[]> = Object.fromEntries(Object.keys(clis).map((label) => [label, []]));
      for (let r = 0; r < runs; r++) {
        for (const [label, cli] of Object.entries(clis)) {
          const sample = await probeOnce(cli, url, f);
          const record = server.records.filter((x) => x.key === key).at(-1);
          if (!record?.firstTokenAt || sample.ttft_ms === null)
            throw new Error(`${key}: no first token measured (${sample.error}: ${sample.error_detail})`);
          errors[label].push(sample.ttft_ms - (record.firstTokenAt - sample.started_at));
          afterWriteStart[label].push(sample.ttft_ms - (record.firstTokenWriteStartAt! - sample.started_at));
        }
      }
      results.push({ name: key, api: apiIdOf(f), errors, afterWriteStart });
    }
  } finally {
    await server.close();
  }
  return results;
}
