/** The probe CLI as a user runs it: argument errors exit 2 with a clear message; tables and JSON lines. */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startTruthServer, type TruthServer } from '../helpers/truth-server.ts';

const CLI = fileURLToPath(new URL('../../cli/probe.ts', import.meta.url));

function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

let server: TruthServer;
beforeAll(async () => {
  server = await startTruthServer({ prefillMs: 60, tokens: 12, tokenGapMs: 8 });
});
afterAll(async () => {
  await server.close();
});

describe('CLI arguments', () => {
  const cases: Array<[string[], string]> = [
    [[], 'missing <url>'],
    [['not a url', '--api', 'openai-chat', '--model', 'm'], 'not a URL'],
    [['ftp://x', '--api', 'openai-chat', '--model', 'm'], 'must be http or https'],
    [['http://127.0.0.1:9', '--model', 'm'], 'missing --api'],
    [['http://127.0.0.1:9', '--api', 'openai-chatt', '--model', 'm'], 'unknown --api "openai-chatt"'],
    [['http://127.0.0.1:9', '--api', 'gemini'], 'missing --model'],
    [['http://127.0.0.1:9', '--api', 'gemini', '--model', 'm', '--n', '0'], '--n must be a whole number from 1 to 100000'],
    [
      ['http://127.0.0.1:9', '--api', 'gemini', '--model', 'm', '--n', '99999999999999999999'],
      '--n must be a whole number from 1 to 100000',
    ],
    [
      ['http://127.0.0.1:9', '--api', 'gemini', '--model', 'm', '--idle-timeout-ms', '9999999999'],
      '--idle-timeout-ms must be a whole number from 1 to 3600000',
    ],
    [['http://127.0.0.1:9', '--api', 'gemini', '--model', 'm', '--header', 'nocolon'], "--header must look like 'name: value'"],
    [['http://127.0.0.1:9', '--api', 'gemini', '--model', 'm', '--api-key-env', 'SURELY_UNSET_VAR_123'], 'SURELY_UNSET_VAR_123'],
    [['http://127.0.0.1:9', '--api', 'gemini', '--model', 'm', '--bogus'], "Unknown option '--bogus'"],
    [['http://127.0.0.1:9', '--api', 'gemini', '--model', 'm', '--body', '[1]'], '--body must be a JSON object'],
    [['http://127.0.0.1:9', '--api', 'gemini', '--model', 'm', '--body', '{oops'], '--body must be a JSON object'],
    [
      ['http://127.0.0.1:9', '--api', 'openai-chat', '--model', 'm', '--max-tokens-param', 'max_new_tokens'],
      '--max-tokens-param must be one of max_tokens, max_completion_tokens',
    ],
    [
      ['http://127.0.0.1:9', '--api', 'gemini', '--model', 'm', '--max-tokens-param', 'max_completion_tokens'],
      '--max-tokens-param applies to --api openai-chat only',
    ],
    [['http://127.0.0.1:9', '--api', 'openai-chat', '--model', 'm', '--api-key-header', 'api-key'], '--api-key-header needs the key'],
    [['http://127.0.0.1:9', '--api', 'openai-chat', '--model', 'm', '--aws-sigv4'], 'it needs --api bedrock-converse'],
    [
      ['http://127.0.0.1:9', '--api', 'bedrock-converse', '--model', 'm', '--aws-sigv4'],
      'needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
    ],
    [['http://127.0.0.1:9', '--api', 'gemini', '--model', 'm', '--aws-region', 'us-east-1'], '--aws-region goes with --aws-sigv4'],
    [['http://127.0.0.1:9', '--api', 'gemini', '--model', 'm', '--service-account-env', 'SURELY_UNSET_SA_123'], 'SURELY_UNSET_SA_123'],
  ];
  for (const [args, message] of cases) {
    it(`rejects ${JSON.stringify(args)} with exit 2`, async () => {
      const { code, stderr, stdout } = await runCli(args);
      expect(code).toBe(2);
      expect(stderr).toContain(message);
      expect(stdout).toBe('');
    });
  }

  it('probes a reasoning model as docs/REASONING-AND-WORKLOADS.md says: a reasoning effort in --body, max_completion_tokens', async () => {
    const reference = inject('referenceUrl');
    const { code, stdout } = await runCli([
      `${reference}/v1/chat/completions`,
      '--api',
      'openai-chat',
      '--model',
      'ref-hidden-reasoning',
      '--json',
      '--no-rtt',
      '--body',
      '{"reasoning_effort":"minimal"}',
      '--max-tokens-param',
      'max_completion_tokens',
      '--max-tokens',
      '40',
      '--header',
      'x-ref-params: decode_ms_per_token=2',
    ]);
    expect(code).toBe(0);
    // Minimal effort: 30 of the model's 300 reasoning tokens, hidden, then 10 answer tokens.
    expect(JSON.parse(stdout)).toMatchObject({
      error: null,
      output_tokens: 40,
      reasoning_tokens: 30,
      answer_tokens: 10,
      reasoning_streamed: false,
    });
    const exhausted = await runCli([
      `${reference}/v1/chat/completions`,
      '--api',
      'openai-chat',
      '--model',
      'ref-hidden-reasoning',
      '--json',
      '--no-rtt',
      '--max-tokens',
      '40',
      '--header',
      'x-ref-params: decode_ms_per_token=1',
    ]);
    expect(exhausted.code).toBe(1);
    expect(JSON.parse(exhausted.stdout)).toMatchObject({ error: 'no_answer', reasoning_tokens: 40, finish_reason: 'length' });
  });

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
