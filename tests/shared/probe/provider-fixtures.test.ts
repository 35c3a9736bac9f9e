/**
 * Every recorded provider exchange in tests/fixtures/provider-streams is read correctly: answer,
 * reasoning and tool text, usage, end marker or error, and the server timings it carries. The
 * expected values were read off the raw recordings by hand; the official SDKs check the text.
 */
import { describe, expect, it } from 'vitest';
import { runProbe } from '../../../shared/probe/probe.ts';
import type { ErrorClass } from '../../../shared/types.ts';
import { apiIdOf, fixtureNames, loadFixture, replayFetch, splitBody, steppingClock, type Fixture } from '../../helpers/fixtures.ts';

/** Longer than any recorded server-timing claim (6.6 s), so every recorded claim is plausible. */
const HEADERS_AFTER_MS = 10_000;

interface Expected {
  error?: ErrorClass;
  detail?: string;
  finish?: string | null;
  out?: number | null;
  exact?: boolean;
  input?: number | null;
  answer?: string;
  answerLength?: number;
  reasoningLength?: number;
  toolLength?: number;
  serverHeadersMs?: number | null;
  timings?: Record<string, number>;
  serverTtftMs?: number | null;
  serverTtftSource?: string | null;
  split?: string | null;
  /** Answer (or tool call) starts after reasoning. */
  answerAfterReasoning?: boolean;
  upstreamColo?: string | null;
  /** Reasoning tokens the provider reported in usage (null: none reported). */
  reasoning?: number | null;
}

const EXPECTED: Record<string, Expected> = {
  'anthropic-messages-error-400-invalid-request.json': {
    error: 'http',
    detail: 'HTTP 400 invalid_request_error: messages.0: Input does not match the expected shape.',
  },
  'anthropic-messages-text-ping.json': {
    finish: 'end_turn',
    out: 10,
    input: 17,
    answer: '- Captain\n- Scoop',
    serverHeadersMs: 943,
    split: 'x-envoy-upstream-service-time',
    upstreamColo: 'SJC',
  },
  'anthropic-messages-text-then-tool-use.json': {
    finish: 'tool_use',
    out: 85,
    input: 351,
    answerLength: 140,
    toolLength: 25,
    serverHeadersMs: 690,
  },
  'anthropic-messages-thinking-tool-use.json': {
    finish: 'tool_use',
    out: 92,
    input: 598,
    answerLength: 0,
    reasoningLength: 180,
    toolLength: 0,
    answerAfterReasoning: true,
    split: null,
  },
  'anthropic-messages-thinking.json': {
    finish: 'end_turn',
    out: 84,
    reasoning: null,
    input: 46,
    answer: '- Captain\n- Scoop',
    reasoningLength: 218,
    answerAfterReasoning: true,
    serverHeadersMs: 889,
  },
  'bedrock-responses-mantle-function-call.json': { finish: 'completed', out: 14, input: 88, answerLength: 0, toolLength: 2 },
  'cerebras-chat-completions-time-info-no-done.json': {
    finish: 'length',
    out: 20,
    input: 46,
    answerLength: 100,
    serverTtftMs: 2.42,
    serverTtftSource: 'time_info',
    split: 'time_info',
  },
  'cohere-chat-v1-stream-json.json': { finish: 'COMPLETE', out: 116, input: 69, answerLength: 414, serverHeadersMs: 79 },
  'cohere-chat-v2-text.json': { finish: 'COMPLETE', out: 110, input: 69, answerLength: 383, serverHeadersMs: 70 },
  'cohere-chat-v2-tool-calls.json': {
    finish: 'TOOL_CALL',
    out: 83,
    input: 968,
    reasoningLength: 56,
    toolLength: 54,
    answerAfterReasoning: true,
    serverHeadersMs: 270,
  },
  'deepseek-chat-completions-reasoning-content.json': {
    finish: 'stop',
    out: 47,
    reasoning: 34,
    input: 17,
    answerLength: 32,
    reasoningLength: 105,
    answerAfterReasoning: true,
    split: null,
  },
  'fireworks-chat-completions-text.json': {
    finish: 'length',
    out: 20,
    input: 46,
    answerLength: 128,
    serverHeadersMs: 163,
    timings: { 'server-timing.total': 163, 'x-envoy-upstream-service-time': 31 },
    serverTtftMs: 28,
    serverTtftSource: 'fireworks-server-time-to-first-token',
    split: 'server-timing.total',
    upstreamColo: 'IAD',
  },
  'google-gemini-generate-content-error-400-on-stream-endpoint.json': {
    error: 'http',
    detail: 'HTTP 400 INVALID_ARGUMENT: API key not valid. Please pass a valid API key.',
    serverHeadersMs: 32,
  },
  'google-gemini-generate-content-error-429-resource-exhausted.json': { error: 'rate_limited', serverHeadersMs: 6576 },
  'google-gemini-generate-content-function-call-single-event.json': {
    finish: 'STOP',
    out: 8,
    input: 36,
    answerLength: 0,
    toolLength: 24,
    serverHeadersMs: 583,
    split: 'server-timing.gfet4t7',
    reasoning: null,
  },
  'google-gemini-generate-content-function-call-thought-signature.json': {
    finish: 'STOP',
    out: 212,
    reasoning: 202,
    input: 29,
    toolLength: 2,
    serverHeadersMs: 4148,
  },
  'google-gemini-generate-content-text.json': {
    finish: 'STOP',
    out: 8,
    input: 13,
    answer: 'The capital of France is Paris.\n',
    serverHeadersMs: 379,
  },
  'google-gemini-generate-content-thinking.json': {
    finish: 'STOP',
    out: 469 + 787,
    reasoning: 787,
    input: 34,
    answerLength: 1938,
    reasoningLength: 1575,
    answerAfterReasoning: true,
    serverHeadersMs: 2666,
  },
  'groq-chat-completions-reasoning-midstream-error.json': {
    error: 'stream_error',
    detail: 'tool_use_failed: Tool call validation failed',
    reasoningLength: 412,
    exact: false,
  },
  'groq-chat-completions-text-x-groq-usage.json': {
    finish: 'stop',
    out: 73,
    input: 18,
    answerLength: 277,
    serverTtftMs: 285.15,
    serverTtftSource: 'x_groq.usage',
    split: 'x_groq.usage',
    upstreamColo: 'MXP',
  },
  'huggingface-chat-completions-tgi.json': { finish: 'length', out: 20, exact: false, input: null, answerLength: 104 },
  'huggingface-tgi-error-422-validation.json': { error: 'http', detail: 'HTTP 422 validation: Input validation error' },
  'huggingface-tgi-generate-stream-details.json': { finish: 'length', out: 1, answer: ' ' },
  'mistral-chat-completions-magistral-thinking.json': {
    finish: 'stop',
    out: 232,
    reasoning: null,
    input: 10,
    answerLength: 607,
    reasoningLength: 421,
    answerAfterReasoning: true,
  },
  'mistral-chat-completions-text-kong-latency.json': {
    finish: 'stop',
    out: 80,
    input: 11,
    answerLength: 297,
    timings: { 'x-envoy-upstream-service-time': 61, 'x-kong-upstream-latency': 61 },
    serverHeadersMs: 61,
    upstreamColo: 'VIE',
  },
  'mistral-chat-completions-tool-call.json': {
    finish: 'tool_calls',
    out: 23,
    input: 96,
    toolLength: 25,
    serverHeadersMs: 58,
    split: 'x-kong-upstream-latency',
  },
  'novita-chat-completions-sla-metrics.json': {
    finish: 'stop',
    out: 2,
    input: 40,
    answer: 'Paris',
    serverTtftMs: 274,
    serverTtftSource: 'sla_metrics',
  },
  'ollama-chat-ndjson-text.json': {
    finish: 'stop',
    out: 50,
    input: 17,
    answerLength: 212,
    serverTtftMs: 315.19,
    serverTtftSource: 'ollama',
  },
  'ollama-chat-ndjson-thinking.json': {
    finish: 'stop',
    out: 889,
    reasoning: null,
    input: 21,
    answer: '1\n2\n3\n4\n5',
    reasoningLength: 3064,
    answerAfterReasoning: true,
    serverTtftMs: 202.15,
  },
  'openai-chat-completions-error-404-model-not-found.json': {
    error: 'http',
    detail: 'HTTP 404 model_not_found: The model `non-existent-model` does not exist',
    serverHeadersMs: 48,
  },
  'openai-chat-completions-gpt5-reasoning-moderation.json': {
    finish: 'stop',
    out: 11,
    reasoning: 0,
    input: 13,
    answer: 'Paris.',
    serverHeadersMs: 584,
  },
  'openai-chat-completions-text-include-usage.json': {
    finish: 'stop',
    out: 5,
    input: 12,
    answer: '"This is a test."',
    serverHeadersMs: 207,
    split: 'openai-processing-ms',
    upstreamColo: 'SIN',
  },
  'openai-chat-completions-text-obfuscation-envoy-time.json': {
    finish: 'stop',
    out: 4,
    input: 10,
    answer: 'Hello, world!',
    timings: { 'openai-processing-ms': 249, 'x-envoy-upstream-service-time': 406 },
    serverHeadersMs: 406,
    split: 'x-envoy-upstream-service-time',
    upstreamColo: null,
  },
  'openai-chat-completions-tool-calls-parallel.json': {
    finish: 'tool_calls',
    out: 51,
    input: 75,
    answerLength: 0,
    toolLength: 60,
    serverHeadersMs: 1399,
  },
  'openai-responses-reasoning-encrypted-function-call.json': {
    finish: 'completed',
    out: 469,
    reasoning: 448,
    input: 53,
    reasoningLength: 0,
    toolLength: 15,
    serverHeadersMs: 255,
  },
  'openai-responses-reasoning-summary.json': {
    finish: 'completed',
    out: 518,
    reasoning: 448,
    input: 36,
    answerLength: 91,
    reasoningLength: 761,
    answerAfterReasoning: true,
    serverHeadersMs: 307,
  },
  'openai-responses-text.json': { finish: 'completed', out: 6, input: 22, answer: 'This is a test.', serverHeadersMs: 38 },
  'openrouter-chat-completions-midstream-error.json': { error: 'stream_error', detail: '400: Token limit reached', reasoningLength: 42 },
  'openrouter-chat-completions-reasoning-processing-comments.json': {
    finish: 'stop',
    out: 36,
    reasoning: 13,
    input: 43,
    answer: '2 + 2 = 4',
    reasoningLength: 51,
    answerAfterReasoning: true,
  },
  'together-chat-completions-text.json': { finish: 'stop', out: 15, input: 41, answer: '1, 2, 3, 4, 5.' },
};

async function probeFixture(f: Fixture, readSize: number, headersAfterMs = HEADERS_AFTER_MS) {
  const clock = steppingClock();
  return runProbe({
    target: { id: 'fixture', api: apiIdOf(f), url: 'http://127.0.0.1:9/', model: 'm' },
    prompt: { id: 'p', promptTokens: 64, maxTokens: 32 },
    fetch: replayFetch(f, splitBody(f.response.body, readSize), clock, headersAfterMs),
    now: clock,
    collectText: true,
  });
}

describe('provider recordings', () => {
  it('every recording has an expectation', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(fixtureNames());
  });

  for (const name of fixtureNames()) {
    it(name, async () => {
      const f = loadFixture(name);
      const want = EXPECTED[name];
      const { sample, text } = await probeFixture(f, 97);
      expect(sample.error).toBe(want.error ?? null);
      if (want.detail) expect(sample.error_detail).toContain(want.detail);
      if (!want.error || want.error === 'stream_error') expect(text).toBeDefined();
      if (want.finish !== undefined) expect(sample.finish_reason).toBe(want.finish);
      if (want.out !== undefined) expect(sample.output_tokens).toBe(want.out);
      if (want.out !== undefined || want.exact !== undefined) expect(sample.tokens_exact).toBe(want.exact ?? true);
      if (want.input !== undefined) expect(sample.input_tokens).toBe(want.input);
      if (want.answer !== undefined) expect(text!.answer).toBe(want.answer);
      if (want.answerLength !== undefined) expect(text!.answer.length).toBe(want.answerLength);
      if (want.reasoningLength !== undefined) expect(text!.reasoning.length).toBe(want.reasoningLength);
      if (want.toolLength !== undefined) expect(text!.tool.length).toBe(want.toolLength);
      if (want.serverHeadersMs !== undefined) expect(sample.server_headers_ms).toBe(want.serverHeadersMs);
      if (want.timings) expect(sample.server_timings).toEqual(want.timings);
      if (want.serverTtftMs !== undefined) expect(sample.server_ttft_ms).toBeCloseTo(want.serverTtftMs!, 2);
      if (want.serverTtftSource !== undefined) expect(sample.server_ttft_source).toBe(want.serverTtftSource);
      if (want.split !== undefined) expect(sample.split_source).toBe(want.split);
      if (want.upstreamColo !== undefined) expect(sample.upstream_colo).toBe(want.upstreamColo);
      if (want.reasoning !== undefined) {
        expect(sample.reasoning_tokens).toBe(want.reasoning);
        expect(sample.answer_tokens).toBe(want.reasoning === null ? sample.output_tokens : sample.output_tokens! - want.reasoning);
      }
      if (want.reasoningLength !== undefined) expect(sample.reasoning_streamed).toBe(want.reasoningLength > 0);
      expect(sample.split_note).toBeNull();
      if (!want.error) {
        expect(sample.ttft_ms).not.toBeNull();
        expect(sample.total_ms).not.toBeNull();
        expect(sample.ttfa_ms === null || sample.ttfa_ms >= sample.ttft_ms!).toBe(true);
        expect(sample.headers_ms!).toBeLessThan(sample.ttft_ms!);
      }
      if (want.answerAfterReasoning) expect(sample.ttfa_ms === null || sample.ttfa_ms > sample.ttft_ms!).toBe(true);
      if (want.split && sample.ttft_ms !== null) {
        expect(sample.network_ms! + sample.server_ms!).toBeCloseTo(sample.ttft_ms, 1);
      }
    });
  }

  it('reads every recording the same whether it arrives whole, byte by byte, or in odd pieces', async () => {
    for (const name of fixtureNames()) {
      const f = loadFixture(name);
      const whole = await probeFixture(f, 0);
      const sizes = f.response.body.length < 40_000 ? [1, 7, 333] : [7, 333];
      for (const size of sizes) {
        const split = await probeFixture(f, size);
        expect({
          name,
          size,
          text: split.text,
          out: split.sample.output_tokens,
          error: split.sample.error,
          finish: split.sample.finish_reason,
        }).toEqual({
          name,
          size,
          text: whole.text,
          out: whole.sample.output_tokens,
          error: whole.sample.error,
          finish: whole.sample.finish_reason,
        });
      }
    }
  });
});

describe('recorded server claims against a client that saw less time', () => {
  it('sets every impossible recorded claim aside, says so, and never stores a negative or oversized part', async () => {
    let withClaims = 0;
    for (const name of fixtureNames()) {
      const f = loadFixture(name);
      // Headers "arrive" 1 ms after the request: every recorded claim of 2 ms or more is impossible here.
      const { sample } = await probeFixture(f, 97, 0);
      const claims = Object.entries(sample.server_timings).filter(([, ms]) => ms > (sample.headers_ms ?? 0) + 1);
      if (claims.length > 0) {
        withClaims++;
        for (const [source] of claims) expect(sample.split_note, name).toContain(`${source} `);
        expect(sample.split_source === null || !claims.some(([source]) => source === sample.split_source), name).toBe(true);
      }
      if (sample.server_headers_ms !== null) expect(sample.server_headers_ms).toBeLessThanOrEqual(sample.headers_ms!);
      for (const part of [sample.network_ms, sample.server_ms]) {
        if (part === null) continue;
        expect(part, name).toBeGreaterThanOrEqual(0);
        expect(part, name).toBeLessThanOrEqual(sample.ttft_ms!);
      }
    }
    expect(withClaims).toBeGreaterThanOrEqual(20);
  });
});

describe('fast paths agree with the full parse', () => {
  it('every recording gives the same sample and text with and without fast paths', async () => {
    for (const name of fixtureNames()) {
      const f = loadFixture(name);
      for (const collectText of [true, false]) {
        const run = (fastPath: boolean) =>
          runProbe({
            target: { id: 'fixture', api: apiIdOf(f), url: 'http://127.0.0.1:9/', model: 'm' },
            prompt: { id: 'p', promptTokens: 64, maxTokens: 32 },
            fetch: replayFetch(f, splitBody(f.response.body, 211)),
            now: steppingClock(),
            wallClock: () => 0,
            collectText,
            fastPath,
          });
        const [fast, full] = [await run(true), await run(false)];
        expect({ name, collectText, ...fast }).toEqual({ name, collectText, ...full });
      }
    }
  });
});
