/**
 * `npm run bench:truth`: how close the probe CLI comes to the truth on loopback. A server records
 * when it really sent each first token and reports its time before headers in Server-Timing; a delay
 * proxy adds a known round trip. Prints the median ttft_ms error and the network_ms / server_ms shift,
 * for headers sent at once and held until the first token (what tests/shared/cli-truth.timing.test.ts asserts).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median } from '../shared/stats/percentile.ts';
import { startTruthServer } from '../tests/helpers/truth-server.ts';
import { startDelayProxy } from '../scripts/delay-proxy.ts';
import type { Sample } from '../shared/types.ts';

const N = 15;
const ADDED_RTT_MS = 40;
const CLI = fileURLToPath(new URL('../cli/probe.ts', import.meta.url));

function probe(url: string, mode: string): Promise<Sample[]> {
  return new Promise((resolve, reject) => execFile(process.execPath, [CLI, `${url}/v1/chat/completions`, '--api', 'openai-chat', '--model', 'truth', '--n', String(N), '--json', '--header', `x-mode: ${mode}`],
    (error, stdout) => (error ? reject(error) : resolve(stdout.trim().split('\n').map((l) => JSON.parse(l))))));
}

const server = await startTruthServer({ prefillMs: 60, tokens: 12, tokenGapMs: 8 });
const proxy = await startDelayProxy(new URL(server.url), ADDED_RTT_MS);
console.log(`${N} probes per case, prefill 60 ms, added round trip ${ADDED_RTT_MS} ms, node ${process.version}`);
for (const mode of ['immediate', 'hold']) {
  const before = server.firstTokenAt.length;
  const direct = await probe(server.url, mode);
  const truth = server.firstTokenAt.slice(before);
  const errors = direct.map((s, i) => s.ttft_ms! - (truth[i] - s.started_at));
  const delayed = await probe(proxy.url, mode);
  const m = (xs: Sample[], f: (s: Sample) => number | null) => median(xs.map((s) => f(s)!))!;
  console.log(`headers ${mode === 'hold' ? 'held until the first token' : 'sent at once'}:`
    + ` ttft_ms − truth median ${median(errors)!.toFixed(2)} ms (max ${Math.max(...errors).toFixed(2)});`
    + ` network_ms +${(m(delayed, (s) => s.network_ms) - m(direct, (s) => s.network_ms)).toFixed(1)} ms,`
    + ` server_ms ${(m(delayed, (s) => s.server_ms) - m(direct, (s) => s.server_ms)).toFixed(1)} ms through the proxy`);
}
await proxy.close();
await server.close();
