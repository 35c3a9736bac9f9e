/**
 * The CLI against a loopback server whose true send times are known, for a server that sends headers
 * at once and for one that holds them until the first token. The bounds are the ones a definition
 * error breaks and a busy machine does not: ttft_ms never before the token was sent, and within half
 * a token gap after it (stamping the wrong token is a whole gap off, stamping the headers a whole
 * prefill); network_ms recovering a round trip added by a delay proxy within half of it (a sign error
 * is twice it off). The tight figures are `npm run bench:truth`'s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median } from '../../shared/stats/percentile.ts';
import type { Sample } from '../../shared/types.ts';
import { startTruthServer, type TruthServer } from '../helpers/truth-server.ts';
import { startDelayProxy, type DelayProxy } from '../../scripts/delay-proxy.ts';

const CLI = fileURLToPath(new URL('../../cli/probe.ts', import.meta.url));
const N = 7;
const ADDED_RTT_MS = 40;
const TOKEN_GAP_MS = 40;
const TOKENS = 6;
/** Processes share the system clock; allow for its rounding between them. */
const CLOCK_SLACK_MS = 1;

function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

async function probeJson(url: string, mode: string): Promise<Sample[]> {
  const { code, stdout, stderr } = await runCli([
    `${url}/v1/chat/completions`,
    '--api',
    'openai-chat',
    '--model',
    'truth',
    '--n',
    String(N),
    '--json',
    '--header',
    `x-mode: ${mode}`,
  ]);
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

let server: TruthServer;
let proxy: DelayProxy;
beforeAll(async () => {
  server = await startTruthServer({ prefillMs: 60, tokens: TOKENS, tokenGapMs: TOKEN_GAP_MS });
  proxy = await startDelayProxy(new URL(server.url), ADDED_RTT_MS);
});
afterAll(async () => {
  await proxy.close();
  await server.close();
});

for (const mode of ['immediate', 'hold']) {
  describe(`server that sends headers ${mode === 'hold' ? 'with the first token' : 'at once'}`, () => {
    it('ttft_ms stamps the first token: never before it was sent, within half a token gap after', async () => {
      const before = server.firstTokenAt.length;
      const samples = await probeJson(server.url, mode);
      const truth = server.firstTokenAt.slice(before);
      const writeStart = server.firstTokenWriteStartAt.slice(before);
      expect(truth).toHaveLength(N);
      for (const s of samples)
        expect(s).toMatchObject({
          error: null,
          output_tokens: TOKENS,
          tokens_exact: true,
          split_source: 'server-timing.prefill',
          split_note: null,
          warm: true,
        });
      const errors = samples.map((s, i) => s.ttft_ms! - (truth[i] - s.started_at));
      // Never before the server began to write the token (its stamp after the write can lag on a busy machine).
      for (const [i, s] of samples.entries()) expect(s.ttft_ms! - (writeStart[i] - s.started_at)).toBeGreaterThan(-CLOCK_SLACK_MS);
      expect(median(errors)!).toBeLessThan(TOKEN_GAP_MS / 2);
      // The sample's own arithmetic holds: ttft = network + server, neither negative.
      for (const s of samples) {
        expect(s.network_ms! + s.server_ms!).toBeCloseTo(s.ttft_ms!, 1);
        expect(s.network_ms!).toBeGreaterThanOrEqual(0);
        expect(s.server_ms!).toBeGreaterThanOrEqual(0);
      }
    });

    it('network_ms recovers a round trip added by a delay proxy, and server_ms stays where it was', async () => {
      const direct = await probeJson(server.url, mode);
      const delayed = await probeJson(proxy.url, mode);
      const added = median(delayed.map((s) => s.network_ms!))! - median(direct.map((s) => s.network_ms!))!;
      expect(Math.abs(added - ADDED_RTT_MS)).toBeLessThan(ADDED_RTT_MS / 2);
      const serverShift = median(delayed.map((s) => s.server_ms!))! - median(direct.map((s) => s.server_ms!))!;
      expect(Math.abs(serverShift)).toBeLessThan(ADDED_RTT_MS / 2);
    });
  });
}
