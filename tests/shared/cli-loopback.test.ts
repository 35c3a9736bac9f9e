/**
 * The CLI against a loopback server whose true send times are known: ttft_ms within 2 ms of the
 * truth at the median, and network_ms recovering a round trip added by a delay proxy within 5 ms,
 * for a server that sends headers at once and for one that holds them until the first token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median } from '../../shared/percentile.ts';
import type { Sample } from '../../shared/types.ts';
import { startDelayProxy, startTruthServer, type DelayProxy, type TruthServer } from '../helpers/truth-server.ts';

const CLI = fileURLToPath(new URL('../../cli/probe.ts', import.meta.url));
const N = 9;
const ADDED_RTT_MS = 40;

function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

async function probeJson(url: string, mode: string): Promise<Sample[]> {
  const { code, stdout, stderr } = await runCli([`${url}/v1/chat/completions`, '--api', 'openai-chat', '--model', 'truth', '--n', String(N), '--json', '--header', `x-mode: ${mode}`]);
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return stdout.trim().split('\n').map((line) => JSON.parse(line));
}

let server: TruthServer;
let proxy: DelayProxy;
beforeAll(async () => {
  server = await startTruthServer({ prefillMs: 60, tokens: 12, tokenGapMs: 8 });
  proxy = await startDelayProxy(Number(new URL(server.url).port), ADDED_RTT_MS);
});
afterAll(async () => {
  await proxy.close();
  await server.close();
});

for (const mode of ['immediate', 'hold']) {
  describe(`server that sends headers ${mode === 'hold' ? 'with the first token' : 'at once'}`, () => {
    it('ttft_ms is within 2 ms of the true first-token send time at the median', async () => {
      const before = server.firstTokenAt.length;
      const samples = await probeJson(server.url, mode);
      const truth = server.firstTokenAt.slice(before);
      expect(truth).toHaveLength(N);
      for (const s of samples) expect(s).toMatchObject({ error: null, output_tokens: 12, tokens_exact: true, split_source: 'server-timing', warm: true });
      const errors = samples.map((s, i) => s.ttft_ms! - (truth[i] - s.started_at));
      expect(Math.abs(median(errors)!)).toBeLessThan(2);
      // The sample's own arithmetic holds: ttft = network + server.
      for (const s of samples) expect(s.network_ms! + s.server_ms!).toBeCloseTo(s.ttft_ms!, 1);
    });

    it('network_ms recovers a round trip added by a delay proxy within 5 ms', async () => {
      const direct = await probeJson(server.url, mode);
      const delayed = await probeJson(proxy.url, mode);
      const added = median(delayed.map((s) => s.network_ms!))! - median(direct.map((s) => s.network_ms!))!;
      expect(Math.abs(added - ADDED_RTT_MS)).toBeLessThan(5);
      // Server time does not move with the network.
      const serverShift = median(delayed.map((s) => s.server_ms!))! - median(direct.map((s) => s.server_ms!))!;
      expect(Math.abs(serverShift)).toBeLessThan(5);
    });
  });
}

describe('CLI arguments', () => {
  const cases: Array<[string[], string]> = [
    [[], 'missing <url>'],
    [['not a url', '--api', 'openai-chat', '--model', 'm'], 'not a URL'],
    [['ftp://x', '--api', 'openai-chat', '--model', 'm'], 'must be http or https'],
    [['http://127.0.0.1:9', '--model', 'm'], 'missing --api'],
    [['http://127.0.0.1:9', '--api', 'openai-chatt', '--model', 'm'], 'unknown --api "openai-chatt"'],
    [['http://127.0.0.1:9', '--api', 'gemini'], 'missing --model'],
    [['http://127.0.0.1:9', '--api', 'gemini', '--model', 'm', '--n', '0'], '--n must be a positive whole number'],
    [['http://127.0.0.1:9', '--api', 'gemini', '--model', 'm', '--header', 'nocolon'], "--header must look like 'name: value'"],
    [['http://127.0.0.1:9', '--api', 'gemini', '--model', 'm', '--api-key-env', 'SURELY_UNSET_VAR_123'], 'SURELY_UNSET_VAR_123'],
    [['http://127.0.0.1:9', '--api', 'gemini', '--model', 'm', '--bogus'], "Unknown option '--bogus'"],
  ];
  for (const [args, message] of cases) {
    it(`rejects ${JSON.stringify(args)} with exit 2`, async () => {
      const { code, stderr, stdout } = await runCli(args);
      expect(code).toBe(2);
      expect(stderr).toContain(message);
      expect(stdout).toBe('');
    });
  }

  it('prints a readable table without --json, and a failed probe is a sample, not a crash', async () => {
    const ok = await runCli([`${server.url}/v1/chat/completions`, '--api', 'openai-chat', '--model', 'truth', '--n', '2']);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/ttft\s+ttfa\s+network/);
    expect(ok.stdout).toContain('2 ok, 0 failed');
    expect(ok.stderr).toContain('probe 2/2: ttft');
    const refused = await runCli(['http://127.0.0.1:9/v1/messages', '--api', 'anthropic-messages', '--model', 'x', '--json', '--no-rtt']);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ error: 'network', ttft_ms: null, status: null });
  });
});
