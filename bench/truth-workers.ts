/**
 * The Workers path against wire truth: `wrangler dev` (workerd, local D1, the regional Durable
 * Objects) probing the demo configuration's targets, each region's reference URL pointed at a
 * loopback server that replays a real recorded stream of the target's wire format and knows when it
 * sent the first token. Returns each sample's ttft_ms error (ms, client − truth) and whether it was
 * its regional object's first probe.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { config } from '../observatory.config.ts';
import { probesPerTick } from '../shared/config/schedule.ts';
import { startLocalObservatory } from '../scripts/local-observatory.ts';
import { loadFixture } from '../tests/helpers/fixtures.ts';
import { startReplayTruthServer, type ReplayRecord } from '../tests/helpers/replay-truth-server.ts';
import type { StoredSample } from '../workers/observatory/db/sample-row.ts';

/**
 * The recording replayed for each wire format the demo's targets speak, by request path; the
 * Messages API's with its headers held until the first token, as the demo's slow model does (the
 * first answer then arrives in one read with message_start and content_block_start).
 */
const RECORDING_BY_PATH: Array<[RegExp, string, boolean]> = [
  [/^\/v1\/chat\/completions$/, 'openai-chat-completions-text-include-usage.json', false],
  // Azure's deployment URL speaks Chat Completions.
  [/^\/openai\/deployments\/[^/]+\/chat\/completions$/, 'openai-chat-completions-text-include-usage.json', false],
  [/^\/v1\/responses$/, 'openai-responses-text.json', false],
  [/^\/v1\/messages$/, 'anthropic-messages-text-ping.json', true],
  [/^\/v1beta\/models\/[^/]+:streamGenerateContent$/, 'google-gemini-generate-content-text.json', false],
];
/**
 * Wire formats with no real recording to replay: no public recording of a Bedrock ConverseStream exists (its
 * cassettes keep the binary frames only as bytes; tests/fixtures/provider-streams/README.md). Their targets are
 * probed (and fail against the replay server) but not matched; the e2e demo checks them against the reference.
 */
export const UNRECORDED_APIS: readonly string[] = ['bedrock-converse'];
/** The configuration's targets that are matched against wire truth. */
export const recordedTargets = () => config.targets.filter((t) => !UNRECORDED_APIS.includes(t.api));
const TICK_SPACING_MS = 300_000;
const WAIT_STEP_MS = 500;
const WAIT_LIMIT_MS = 180_000;

export interface WorkersTruth {
  region: string;
  target: string;
  /** The regional object's first probe since it started. */
  first: boolean;
  error: number;
}

export async function workersOnRecordings(
  ticks: number,
  log: (line: string) => void = () => {},
  pace = { prefillMs: 30, gapMs: 3 },
): Promise<WorkersTruth[]> {
  const recordings = RECORDING_BY_PATH.map(([pattern, name, holdHeaders]) => [pattern, loadFixture(name), holdHeaders] as const);
  const server = await startReplayTruthServer((path) => {
    const [, region, ...rest] = path.split('/');
    const apiPath = `/${rest.join('/')}`;
    const found = recordings.find(([pattern]) => pattern.test(apiPath));
    return found ? { key: `${region}|${apiPath}`, fixture: found[1], holdHeaders: found[2] } : null;
  }, pace);
  const work = mkdtempSync(join(tmpdir(), 'truth-workers-'));
  const urls = Object.fromEntries(config.regions.map((r) => [r.code, `${server.url}/${r.code}`]));
  const local = await startLocalObservatory({
    apiPort: 0,
    referencePort: 0,
    persistTo: join(work, 'state'),
    vars: async () => ({ REGION_REFERENCE_URLS: JSON.stringify(urls) }),
    log: () => {},
    progress: log,
  });
  try {
    const admin = { authorization: `Bearer ${local.adminToken}`, 'content-type': 'application/json' };
    const perTick = probesPerTick(config);
    const start = Math.floor(Date.now() / TICK_SPACING_MS) * TICK_SPACING_MS;
    let samples: StoredSample[] = [];
    for (let k = 1; k <= ticks; k++) {
      const r = await fetch(`${local.apiUrl}/api/v1/ticks`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ tick_id: start - k * TICK_SPACING_MS, backfill: true }),
      });
      if (r.status !== 202) throw new Error(`tick refused: ${await r.text()}`);
      for (let waited = 0; ; waited += WAIT_STEP_MS) {
        samples = ((await (await fetch(`${local.apiUrl}/api/v1/samples?limit=1000&window=1d`)).json()) as { samples: StoredSample[] })
          .samples;
        if (samples.length >= k * perTick) break;
        if (waited > WAIT_LIMIT_MS) throw new Error(`only ${samples.length} of ${k * perTick} samples after ${WAIT_LIMIT_MS / 1000} s`);
        await new Promise((res) => setTimeout(res, WAIT_STEP_MS));
      }
      log(`tick ${k}/${ticks}: ${samples.length} samples`);
    }
    const pathOf = (id: string) => {
      const t = config.targets.find((x) => x.id === id)!;
      return new URL(t.url.replace('{REFERENCE_URL}', 'http://x').replace('{model}', encodeURIComponent(t.model))).pathname;
    };
    const modelOf = (id: string) => config.targets.find((x) => x.id === id)!.model;
    return matchTruth(samples, server.records, pathOf, modelOf);
  } finally {
    await local.stop();
    await server.close();
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Each sample's error against the request it made: same region, path and model (a region probes
 * several targets at once, some on one path), the first unused arrival after its t0.
 */
function matchTruth(
  samples: StoredSample[],
  records: ReplayRecord[],
  pathOf: (target: string) => string,
  modelOf: (target: string) => string,
): WorkersTruth[] {
  const used = new Set<ReplayRecord>();
  const firstStart = new Map<string, number>();
  for (const s of samples) firstStart.set(s.region, Math.min(firstStart.get(s.region) ?? Infinity, s.started_at));
  const out: WorkersTruth[] = [];
  const recorded = new Set(recordedTargets().map((t) => t.id));
  for (const s of [...samples].sort((a, b) => a.started_at - b.started_at)) {
    if (!recorded.has(s.target)) continue;
    if (s.ttft_ms === null) throw new Error(`${s.region}/${s.target}: no first token (${s.error}: ${s.error_detail})`);
    const key = `${s.region}|${pathOf(s.target)}`;
    // workerd's clock has 1 ms resolution: an arrival may read up to 1 ms before t0.
    const model = modelOf(s.target);
    const record = records
      .filter((r) => r.key === key && (r.model === null || r.model === model) && !used.has(r) && r.arrivedAt >= s.started_at - 1)
      .sort((a, b) => a.arrivedAt - b.arrivedAt)[0];
    if (!record?.firstTokenAt) throw new Error(`${key}: no request recorded for the sample started at ${s.started_at}`);
    used.add(record);
    out.push({
      region: s.region,
      target: s.target,
      first: s.started_at === firstStart.get(s.region),
      error: s.ttft_ms - (record.firstTokenAt - s.started_at),
    });
  }
  return out;
}
