/**
 * Bedrock ConverseStream through the real probe, on a fake clock, with wire bytes made by AWS's own codec:
 * the request, tokens and first-token stamps, streamed and hidden reasoning, a tool call, usage, the stop
 * reason and Bedrock's latency, where the stream ends, every exception class, and broken framing. AWS's SDK
 * reads the same bytes as an independent oracle.
 */
import { Readable } from 'node:stream';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BedrockRuntimeClient, ConverseStreamCommand, type ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import { runProbe } from '../../../shared/probe/probe.ts';
import { protocolFor } from '../../../shared/probe/protocols/index.ts';
import type { ProbeTarget } from '../../../shared/types.ts';
import { FakeClock } from '../../helpers/scripted-fetch.ts';
import { awsError, awsEvent, awsException, bytesFetch, codec, concat, cut, type ByteStep } from '../../helpers/bedrock-stream.ts';

const ORIGIN = 'https://bedrock-runtime.us-east-1.amazonaws.com';
const MODEL = 'anthropic.claude-3-7-sonnet-20250219-v1:0';
const TARGET: ProbeTarget = { id: 'bedrock', api: 'bedrock-converse', url: ORIGIN, model: MODEL, apiKey: 'ABSKbedrock-api-key-1234567890' };
const bedrock = protocolFor('bedrock-converse');

/** ConverseStream's events as Bedrock sends them (`p` is Bedrock's padding field). */
const E = {
  start: () => awsEvent('messageStart', { role: 'assistant' }),
  text: (text: string, index = 1) => awsEvent('contentBlockDelta', { contentBlockIndex: index, delta: { text }, p: 'abcdefghij' }),
  reasoning: (text: string) => awsEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text } } }),
  signature: () => awsEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { signature: 'EqQBCkYIBxgCKkA' } } }),
  redacted: () => awsEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { redactedContent: 'AAECAwQFBgc=' } } }),
  blockStop: (index: number) => awsEvent('contentBlockStop', { contentBlockIndex: index }),
  toolStart: (name: string) =>
    awsEvent('contentBlockStart', { contentBlockIndex: 2, start: { toolUse: { toolUseId: 'tooluse_abc', name } } }),
  toolInput: (input: string) => awsEvent('contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input } } }),
  stop: (stopReason: string) => awsEvent('messageStop', { stopReason }),
  metadata: (outputTokens: number, latencyMs: number) =>
    awsEvent('metadata', {
      usage: { inputTokens: 12, outputTokens, totalTokens: 12 + outputTokens, cacheReadInputTokens: 0 },
      metrics: { latencyMs },
    }),
};

const HEADERS_AT = 50;

async function probe(steps: ByteStep[], o: { maxTokens?: number; contentType?: string } = {}) {
  const clock = new FakeClock();
  const { fetch, requests } = bytesFetch(steps, clock, { headersAt: HEADERS_AT, contentType: o.contentType });
  const { sample, text } = await runProbe({
    target: TARGET,
    prompt: { id: 'p', promptTokens: 10, maxTokens: o.maxTokens ?? 400 },
    fetch,
    now: clock.now,
    collectText: true,
    timeouts: { headersMs: 60_000, firstTokenMs: 60_000, idleMs: 60_000, totalMs: 120_000 },
  });
  return { sample, text: text!, requests };
}

/** A whole answer after streamed reasoning: 100 start, reasoning at 110 and 120, answer at 3120 and 3130, end at 3140/3150. */
const REASONED: ByteStep[] = [
  { at: 100, data: E.start() },
  { at: 110, data: E.reasoning('Let me ') },
  { at: 120, data: concat([E.reasoning('think.'), E.signature()]) },
  { at: 125, data: E.blockStop(0) },
  { at: 3_120, data: E.text('Hello') },
  { at: 3_130, data: E.text(' world') },
  { at: 3_140, data: concat([E.blockStop(1), E.stop('end_turn')]) },
  { at: 3_150, data: E.metadata(40, 2_900) },
];

describe('bedrock-converse: the request', () => {
  const build = (target: Partial<ProbeTarget>) => bedrock.buildRequest({ target: { ...TARGET, ...target }, prompt: 'Hi', maxTokens: 64 });

  it('POSTs ConverseStream at the model, the id URL-encoded, with the prompt and the output budget', () => {
    const { url, init } = build({});
    expect(url).toBe(`${ORIGIN}/model/anthropic.claude-3-7-sonnet-20250219-v1%3A0/converse-stream`);
    expect(init.method).toBe('POST');
    expect(JSON.parse(String(init.body))).toEqual({
      messages: [{ role: 'user', content: [{ text: 'Hi' }] }],
      inferenceConfig: { maxTokens: 64 },
    });
    const headers = new Headers(init.headers);
    expect(headers.get('authorization')).toBe(`Bearer ${TARGET.apiKey}`);
    expect(headers.get('content-type')).toBe('application/json');
    expect(new Headers(build({ apiKey: undefined }).init.headers).get('authorization')).toBeNull();
    // An inference profile's ARN: its slashes and colons stay inside the one path segment.
    expect(build({ model: 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude' }).url).toBe(
      `${ORIGIN}/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus.anthropic.claude/converse-stream`,
    );
  });

  it('keeps a full URL, fills a {model} placeholder, and merges extraBody (reasoning in additionalModelRequestFields)', () => {
    expect(build({ url: 'https://gw.example/bedrock/model/{model}/converse-stream', model: 'amazon.nova-pro-v1:0' }).url).toBe(
      'https://gw.example/bedrock/model/amazon.nova-pro-v1%3A0/converse-stream',
    );
    expect(build({ url: `${ORIGIN}/model/x/converse-stream` }).url).toBe(`${ORIGIN}/model/x/converse-stream`);
    const body = JSON.parse(
      String(
        build({
          extraBody: {
            inferenceConfig: { temperature: 0 },
            additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 1024 } },
          },
        }).init.body,
      ),
    );
    expect(body.inferenceConfig).toEqual({ maxTokens: 64, temperature: 0 });
    expect(body.additionalModelRequestFields).toEqual({ thinking: { type: 'enabled', budget_tokens: 1024 } });
  });

  it('measures the round trip on the same origin, without reaching a model', () => {
    expect(bedrock.rttUrl(build({}).url)).toBe(`${ORIGIN}/`);
    expect(bedrock.rttUrl('https://gw.example/bedrock/model/m/converse-stream')).toBe('https://gw.example/bedrock');
  });

  it("is the request AWS's SDK sends: the same path and body", async () => {
    let sent: { path: string; body: string } | undefined;
    const client = new BedrockRuntimeClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
      requestHandler: {
        async handle(request: { path: string; body: unknown }) {
          sent = { path: request.path, body: String(request.body) };
          throw new Error('stop here');
        },
      } as never,
    });
    await expect(
      client.send(
        new ConverseStreamCommand({
          modelId: MODEL,
          messages: [{ role: 'user', content: [{ text: 'Hi' }] }],
          inferenceConfig: { maxTokens: 64 },
        }),
      ),
    ).rejects.toThrow('stop here');
    const ours = build({});
    expect(new URL(ours.url).pathname).toBe(sent!.path);
    expect(JSON.parse(String(ours.init.body))).toEqual(JSON.parse(sent!.body));
  });
});

describe('bedrock-converse: a stream', () => {
  it('stamps reasoning and answer, reads usage, the stop reason and Bedrock latency (stored raw, not for the split)', async () => {
    const { sample, text } = await probe(REASONED);
    expect(sample).toMatchObject({
      error: null,
      headers_ms: HEADERS_AT,
      first_byte_ms: 100,
      ttft_ms: 110,
      ttfa_ms: 3_120,
      total_ms: 3_150,
      finish_reason: 'end_turn',
      output_tokens: 40,
      input_tokens: 12,
      tokens_exact: true,
      reasoning_tokens: null,
      reasoning_streamed: true,
      answer_tokens: 40,
      chunks: 4,
      timeline: [110, 120, 3_120, 3_130],
      server_timings: { 'bedrock.metrics.latencyMs': 2_900 },
      server_ttft_ms: null,
      server_headers_ms: null,
      split_source: null,
    });
    expect(text).toEqual({ answer: 'Hello world', reasoning: 'Let me think.', tool: '' });
    // Reasoning not counted in usage stays in the streamed span (MEASUREMENT.md): 40 tokens from 110 to 3130.
    expect(sample.tpot_ms).toBeCloseTo(3_020 / 39, 2);
  });

  it('hidden reasoning (redactedContent only): no token, not streamed; the first token is the first answer', async () => {
    const { sample, text } = await probe([
      { at: 100, data: E.start() },
      { at: 110, data: E.redacted() },
      { at: 120, data: concat([E.redacted(), E.signature()]) },
      { at: 3_120, data: E.text('Hi') },
      { at: 3_130, data: E.text('!') },
      { at: 3_140, data: concat([E.stop('end_turn'), E.metadata(300, 3_100)]) },
    ]);
    expect(sample).toMatchObject({ error: null, reasoning_streamed: false, ttft_ms: 3_120, ttfa_ms: 3_120, chunks: 2, output_tokens: 300 });
    expect(text.reasoning).toBe('');
  });

  it('a tool call is answer output from its name on; its input is collected', async () => {
    const { sample, text } = await probe([
      { at: 100, data: E.start() },
      { at: 200, data: E.toolStart('get_weather') },
      { at: 210, data: E.toolInput('{"city":') },
      { at: 220, data: E.toolInput('"Paris"}') },
      { at: 230, data: concat([E.blockStop(2), E.stop('tool_use'), E.metadata(20, 180)]) },
    ]);
    expect(sample).toMatchObject({ error: null, ttft_ms: 200, ttfa_ms: 200, chunks: 3, finish_reason: 'tool_use', total_ms: 230 });
    expect(text.tool).toBe('{"city":"Paris"}');
  });

  it('reads the same whole, one byte per read, or in odd pieces', async () => {
    const bytes = concat(REASONED.map((s) => s.data));
    const whole = await probe([{ at: 100, data: bytes }]);
    for (const sizes of [Array(bytes.length).fill(1), [3, 17, 250, 1, 1, 4096]]) {
      const { sample, text } = await probe(cut(bytes, sizes).map((data, i) => ({ at: 100 + i, data })));
      expect(text).toEqual(whole.text);
      expect(sample).toMatchObject({ error: null, output_tokens: 40, finish_reason: 'end_turn', reasoning_streamed: true });
      expect(sample.server_timings).toEqual(whole.sample.server_timings);
    }
  });
});

describe('bedrock-converse: where the stream ends', () => {
  it('closed right after messageStop: complete, without usage (the token events are counted)', async () => {
    const { sample } = await probe([
      { at: 100, data: E.text('a') },
      { at: 110, data: E.text('b') },
      { at: 120, data: E.stop('max_tokens') },
    ]);
    expect(sample).toMatchObject({
      error: null,
      finish_reason: 'max_tokens',
      total_ms: 120,
      output_tokens: 2,
      tokens_exact: false,
      server_timings: {},
    });
  });

  it('metadata ends the reading: nothing after it is read', async () => {
    const broken = E.text('never read');
    broken[broken.length - 1] ^= 1;
    const { sample, text } = await probe([...REASONED, { at: 9_000, data: broken }]);
    expect(sample).toMatchObject({ error: null, total_ms: 3_150, output_tokens: 40 });
    expect(text.answer).toBe('Hello world');
  });

  it('closed before messageStop: truncated', async () => {
    const { sample } = await probe([
      { at: 100, data: E.start() },
      { at: 110, data: E.text('a') },
    ]);
    expect(sample).toMatchObject({ error: 'truncated', ttft_ms: 110, total_ms: null });
  });

  it('the whole budget spent reasoning: no_answer', async () => {
    const { sample } = await probe(
      [
        { at: 100, data: E.reasoning('hmm') },
        { at: 110, data: concat([E.stop('max_tokens'), E.metadata(64, 100)]) },
      ],
      { maxTokens: 64 },
    );
    expect(sample).toMatchObject({ error: 'no_answer', ttft_ms: 100, ttfa_ms: null, total_ms: 110, output_tokens: 64 });
    expect(sample.error_detail).toContain('finish_reason max_tokens');
    expect(sample.error_detail).toContain('reasoning streamed');
  });
});

describe('bedrock-converse: exceptions inside the stream', () => {
  const CLASSES = [
    ['throttlingException', 'rate_limited'],
    ['serviceUnavailableException', 'overloaded'],
    ['internalServerException', 'stream_error'],
    ['modelStreamErrorException', 'stream_error'],
    ['validationException', 'stream_error'],
    ['modelTimeoutException', 'stream_error'],
    ['someFutureException', 'stream_error'],
  ] as const;
  for (const [type, errorClass] of CLASSES) {
    it(`${type}: ${errorClass}, its message in the detail, the figures before it kept`, async () => {
      const { sample } = await probe([
        { at: 100, data: E.start() },
        { at: 120, data: E.text('Hi') },
        { at: 200, data: awsException(type, 'Too many tokens, please wait.') },
        { at: 300, data: concat([E.text('late'), E.stop('end_turn')]) },
      ]);
      expect(sample).toMatchObject({ error: errorClass, error_detail: `${type}: Too many tokens, please wait.`, ttft_ms: 120, chunks: 1 });
      expect(sample.total_ms).toBeNull();
    });
  }

  it('an exception before any token keeps its class', async () => {
    const { sample } = await probe([{ at: 100, data: awsException('throttlingException', 'slow down') }]);
    expect(sample).toMatchObject({ error: 'rate_limited', ttft_ms: null });
  });

  it('an error message (:error-code, :error-message): stream_error with both', async () => {
    const { sample } = await probe([
      { at: 100, data: E.text('a') },
      { at: 110, data: awsError('InternalFailure', 'The request processing has failed') },
    ]);
    expect(sample).toMatchObject({ error: 'stream_error', error_detail: 'InternalFailure: The request processing has failed' });
  });
});

describe('bedrock-converse: broken framing is a protocol error, and nothing after it is read', () => {
  const flipped = (bytes: Uint8Array, at: number) => {
    const b = bytes.slice();
    b[at < 0 ? b.length + at : at] ^= 0x01;
    return b;
  };
  /** Fixes both CRCs after an edit, so only the edit is wrong. */
  const recrc = (b: Uint8Array) => {
    const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    view.setUint32(8, zlibCrc32(b.subarray(0, 8)));
    view.setUint32(b.length - 4, zlibCrc32(b.subarray(0, b.length - 4)));
    return b;
  };

  for (const [name, bad, detail] of [
    ['a prelude CRC', flipped(E.text('x'), 2), 'event-stream prelude CRC mismatch'],
    ['a message CRC', flipped(E.text('x'), -8), 'event-stream message CRC mismatch'],
  ] as const) {
    it(`${name}: the tokens after it, even in the same read, are not read`, async () => {
      const { sample, text } = await probe([
        { at: 100, data: E.text('a') },
        { at: 110, data: concat([bad, E.text('b')]) },
        { at: 120, data: concat([E.text('c'), E.stop('end_turn')]) },
      ]);
      expect(sample).toMatchObject({ error: 'protocol', error_detail: detail, chunks: 1, total_ms: null });
      expect(text.answer).toBe('a');
    });
  }

  it('a stream that closes inside a message or its prelude', async () => {
    for (const [keep, detail] of [
      [30, /^stream ended inside an event-stream message \(30 of \d+ bytes\)$/],
      [7, /^stream ended inside an event-stream prelude \(7 of 12 bytes\)$/],
    ] as const) {
      const { sample } = await probe([
        { at: 100, data: E.text('a') },
        { at: 110, data: concat([E.stop('end_turn'), E.text('x').subarray(0, keep)]) },
      ]);
      expect(sample.error).toBe('protocol');
      expect(sample.error_detail).toMatch(detail);
    }
  });

  it('an oversized message, before its bytes arrive', async () => {
    const prelude = new Uint8Array(12);
    const view = new DataView(prelude.buffer);
    view.setUint32(0, 64 * 1024 * 1024);
    view.setUint32(8, zlibCrc32(prelude.subarray(0, 8)));
    const { sample } = await probe([
      { at: 100, data: E.text('a') },
      { at: 110, data: prelude },
    ]);
    expect(sample).toMatchObject({ error: 'protocol', error_detail: 'an event-stream message of 67108864 bytes over the 1152 KiB cap' });
  });

  it('an unknown header type', async () => {
    const bytes = E.text('a');
    // The first header's type byte: after its name's length (1 byte) and the name ":event-type" (11).
    bytes[12 + 1 + 11] = 42;
    expect((await probe([{ at: 100, data: recrc(bytes) }])).sample).toMatchObject({
      error: 'protocol',
      error_detail: 'unknown event-stream header type 42 (header ":event-type")',
    });
  });

  it('an unparsable payload, a message of no known kind, a wrong content type', async () => {
    const cutJson = codec.encode({
      headers: { ':event-type': { type: 'string', value: 'contentBlockDelta' }, ':message-type': { type: 'string', value: 'event' } },
      body: new TextEncoder().encode('{"delta":'),
    });
    expect((await probe([{ at: 100, data: cutJson }])).sample).toMatchObject({
      error: 'protocol',
      error_detail: 'unparsable event: {"delta":',
    });
    const gossip = codec.encode({ headers: { ':message-type': { type: 'string', value: 'gossip' } }, body: new Uint8Array(0) });
    expect((await probe([{ at: 100, data: gossip }])).sample).toMatchObject({
      error: 'protocol',
      error_detail: 'unknown event-stream :message-type "gossip"',
    });
    const sse = await probe([{ at: 100, data: E.text('a') }], { contentType: 'text/event-stream' });
    expect(sse.sample.error).toBe('protocol');
    expect(sse.sample.error_detail).toContain('unexpected content-type');
  });
});

describe("AWS's SDK reads the same bytes the same way", () => {
  /** The SDK's reading of a ConverseStream body: text, reasoning, tool input, stop reason, usage, latency, or its error. */
  async function sdkRead(bytes: Uint8Array) {
    const client = new BedrockRuntimeClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
      requestHandler: {
        async handle() {
          const body = Readable.from(cut(bytes, [37, 5, 301]).map((r) => Buffer.from(r)));
          return { response: { statusCode: 200, headers: { 'content-type': 'application/vnd.amazon.eventstream' }, body } };
        },
      } as never,
    });
    const out = await client.send(new ConverseStreamCommand({ modelId: MODEL, messages: [{ role: 'user', content: [{ text: 'x' }] }] }));
    const read = { answer: '', reasoning: '', tool: '', stop: '', output: -1, latency: -1, error: '' };
    try {
      for await (const e of out.stream as AsyncIterable<ConverseStreamOutput>) {
        const d = e.contentBlockDelta?.delta;
        read.answer += d?.text ?? '';
        read.reasoning += d?.reasoningContent?.text ?? '';
        read.tool += d?.toolUse?.input ?? '';
        if (e.messageStop) read.stop = e.messageStop.stopReason ?? '';
        if (e.metadata) {
          read.output = e.metadata.usage?.outputTokens ?? -1;
          read.latency = e.metadata.metrics?.latencyMs ?? -1;
        }
      }
    } catch (e) {
      read.error = `${(e as Error).name}: ${(e as Error).message}`;
    }
    return read;
  }

  it('a reasoned answer and a tool call', async () => {
    const steps = [
      ...REASONED.slice(0, -2),
      { at: 3_135, data: concat([E.toolStart('get_weather'), E.toolInput('{"city":"Paris"}')]) },
      ...REASONED.slice(-2),
    ];
    const sdk = await sdkRead(concat(steps.map((s) => s.data)));
    const { sample, text } = await probe(steps);
    expect(text).toEqual({ answer: sdk.answer, reasoning: sdk.reasoning, tool: sdk.tool });
    expect(sdk.answer).toBe('Hello world');
    expect(sample.finish_reason).toBe(sdk.stop);
    expect(sample.output_tokens).toBe(sdk.output);
    expect(sample.server_timings['bedrock.metrics.latencyMs']).toBe(sdk.latency);
  });

  it('every exception: the same type and message', async () => {
    for (const type of [
      'throttlingException',
      'serviceUnavailableException',
      'internalServerException',
      'modelStreamErrorException',
      'validationException',
    ]) {
      const bytes = concat([E.text('Hi'), awsException(type, 'It failed.')]);
      const sdk = await sdkRead(bytes);
      const { sample } = await probe([{ at: 100, data: bytes }]);
      // The SDK names the error class in PascalCase; the wire (and the probe) in camelCase.
      expect(sample.error_detail!.toLowerCase()).toBe(sdk.error.toLowerCase());
    }
  });
});
