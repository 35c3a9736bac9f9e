/**
 * Bedrock ConverseStream on the reference endpoint, with the official AWS SDK as the oracle: it
 * signs with SigV4 (or sends a Bedrock API key), decodes every event-stream message (lengths and
 * both CRCs checked) and maps exceptions to its typed errors. Next to it, AWS's own codec reads the
 * raw bytes, to check each message's headers and the order of events.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  BedrockRuntimeClient,
  ConverseStreamCommand,
  type ConverseStreamCommandInput,
  type ConverseStreamOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { EventStreamCodec, type Message } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { AwsClient } from 'aws4fetch';
import { startWorker, type RunningWorker } from '../../scripts/worker-runtime.ts';
import { answerText, reasoningText } from './wire-client.ts';

const url = inject('referenceUrl');
const lockedUrl = inject('lockedReferenceUrl');
/** The test-only credentials of workers/reference/wrangler.toml, and the locked instance's token. */
const ACCESS_KEY_ID = 'AKIAREFERENCETESTKEY';
const SECRET = 'reference-test-only-secret-not-an-aws-key';
const TOKEN = 'ref-test-token-123';
const INSTANT = 'queue_base_ms=0, prefill_base_ms=0, prefill_ms_per_token=0, decode_ms_per_token=0';

function sigv4Client(endpoint: string, secretAccessKey = SECRET, accessKeyId = ACCESS_KEY_ID) {
  return new BedrockRuntimeClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId, secretAccessKey },
    requestHandler: new NodeHttpHandler(),
    maxAttempts: 1,
  });
}

function bearerClient(endpoint: string, token: string) {
  return new BedrockRuntimeClient({
    endpoint,
    region: 'us-east-1',
    token: { token },
    authSchemePreference: ['httpBearerAuth'],
    requestHandler: new NodeHttpHandler(),
    maxAttempts: 1,
  });
}

const ask = (modelId: string, maxTokens: number, extra: Partial<ConverseStreamCommandInput> = {}): ConverseStreamCommandInput => ({
  modelId,
  messages: [{ role: 'user', content: [{ text: 'hello' }] }],
  inferenceConfig: { maxTokens },
  ...extra,
});

/** What the SDK made of one stream. */
interface Decoded {
  status: number;
  requestId: string | undefined;
  events: ConverseStreamOutput[];
  text: string;
  reasoning: string;
  signature: string | undefined;
  redacted: Uint8Array | undefined;
  /** ms from sending to the end of the stream, on the client. */
  wallMs: number;
}

/** Streams `input` through the SDK; `headers` (x-ref-…) are added before signing, so they are signed too. */
async function converse(
  client: BedrockRuntimeClient,
  input: ConverseStreamCommandInput,
  headers: Record<string, string> = {},
): Promise<Decoded> {
  const command = new ConverseStreamCommand(input);
  command.middlewareStack.add(
    (next) => async (args) => {
      Object.assign((args.request as { headers: Record<string, string> }).headers, headers);
      return next(args);
    },
    { step: 'build', name: 'referenceHeaders' },
  );
  const t0 = performance.now();
  const out = await client.send(command);
  const d: Decoded = {
    status: out.$metadata.httpStatusCode ?? 0,
    requestId: out.$metadata.requestId,
    events: [],
    text: '',
    reasoning: '',
    signature: undefined,
    redacted: undefined,
    wallMs: 0,
  };
  for await (const event of out.stream!) {
    d.events.push(event);
    const delta = event.contentBlockDelta?.delta;
    if (delta?.text !== undefined) d.text += delta.text;
    if (delta?.reasoningContent?.text !== undefined) d.reasoning += delta.reasoningContent.text;
    if (delta?.reasoningContent?.signature !== undefined) d.signature = delta.reasoningContent.signature;
    if (delta?.reasoningContent?.redactedContent !== undefined) d.redacted = delta.reasoningContent.redactedContent;
  }
  d.wallMs = performance.now() - t0;
  return d;
}

/** The SDK's error for a request (thrown by send or while streaming). */
async function failure(client: BedrockRuntimeClient, input: ConverseStreamCommandInput, headers: Record<string, string> = {}) {
  try {
    await converse(client, input, headers);
  } catch (e) {
    return e as Error & { $metadata?: { httpStatusCode?: number }; $fault?: string };
  }
  throw new Error('expected the request to fail');
}

const eventTypes = (d: Decoded) => d.events.map((e) => Object.keys(e).find((k) => k !== '$unknown'));

describe('ConverseStream through the AWS SDK (SigV4 with the test credentials)', () => {
  const client = sigv4Client(url);

  it('streams the answer: every event decoded, text, usage and metrics as sent', async () => {
    const d = await converse(client, ask('ref-fast-small', 20), { 'x-ref-params': INSTANT });
    expect(d.status).toBe(200);
    expect(d.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(d.text).toBe(answerText(20));
    expect(eventTypes(d)).toEqual(['messageStart', ...Array(20).fill('contentBlockDelta'), 'contentBlockStop', 'messageStop', 'metadata']);
    expect(d.events[0].messageStart).toEqual({ role: 'assistant' });
    expect(d.events.at(-2)!.messageStop).toEqual({ stopReason: 'max_tokens' });
    const { usage, metrics } = d.events.at(-1)!.metadata!;
    expect(usage!.outputTokens).toBe(20);
    expect(usage!.inputTokens).toBeGreaterThan(0);
    expect(usage!.totalTokens).toBe(usage!.inputTokens! + 20);
    expect(metrics!.latencyMs).toBeTypeOf('number');
  });

  // Headers held until the first token (the opening event rides with it), and four tokens a chunk.
  for (const model of ['ref-slow-large', 'ref-batching']) {
    it(`streams ${model} the same way`, async () => {
      const d = await converse(client, ask(model, 10), { 'x-ref-params': INSTANT });
      expect(d.text).toBe(answerText(10));
      expect(eventTypes(d)).toEqual([
        'messageStart',
        ...Array(d.events.length - 4).fill('contentBlockDelta'),
        'contentBlockStop',
        'messageStop',
        'metadata',
      ]);
    });
  }

  it('streams reasoning first (with its signature), then the answer in the next block', async () => {
    const d = await converse(client, ask('ref-reasoning', 60), { 'x-ref-params': INSTANT });
    expect(d.reasoning).toBe(reasoningText(48));
    expect(d.signature).toBeTruthy();
    expect(d.text).toBe(answerText(12));
    const stops = d.events.filter((e) => e.contentBlockStop).map((e) => e.contentBlockStop!.contentBlockIndex);
    expect(stops).toEqual([0, 1]);
    const firstText = d.events.find((e) => e.contentBlockDelta?.delta?.text !== undefined);
    expect(firstText!.contentBlockDelta!.contentBlockIndex).toBe(1);
    expect(d.events.at(-1)!.metadata!.usage!.outputTokens).toBe(60);
  });

  it('hidden reasoning arrives as one redactedContent block, counted in outputTokens', async () => {
    const d = await converse(client, ask('ref-hidden-reasoning', 310), { 'x-ref-params': INSTANT });
    expect(d.reasoning).toBe('');
    expect(d.redacted).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(d.redacted)).toContain('300 reasoning tokens');
    expect(d.events.filter((e) => e.contentBlockDelta?.delta?.reasoningContent)).toHaveLength(1);
    expect(d.text).toBe(answerText(10));
    expect(d.events.at(-1)!.metadata!.usage!.outputTokens).toBe(310);
  });

  it('honours a thinking budget in additionalModelRequestFields, and rejects a bad one as ValidationException', async () => {
    const d = await converse(
      client,
      ask('ref-reasoning', 1_100, { additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 1_024 } } }),
      { 'x-ref-params': `${INSTANT}, reasoning_tokens=2000` },
    );
    expect(d.reasoning).toBe(reasoningText(1_024));
    expect(d.text).toBe(answerText(1_100 - 1_024));
    const e = await failure(
      client,
      ask('ref-reasoning', 1_500, { additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 2_000 } } }),
    );
    expect([e.name, e.$metadata?.httpStatusCode]).toEqual(['ValidationException', 400]);
    expect(e.message).toContain('greater than thinking.budget_tokens');
  });

  it('metrics.latencyMs is the server time of the whole invocation: at least the planned schedule, at most what the client saw', async () => {
    // 20 tokens, 20 ms prefill and exactly 5 ms per token after the first: the last is due 115 ms after arrival.
    const params =
      'queue_base_ms=0, prefill_base_ms=20, prefill_ms_per_token=0, decode_ms_per_token=5, decode_jitter=0, kv_growth_per_1k=0';
    const d = await converse(client, ask('ref-fast-small', 20), { 'x-ref-params': params });
    const latencyMs = d.events.at(-1)!.metadata!.metrics!.latencyMs!;
    expect(Number.isInteger(latencyMs)).toBe(true);
    expect(latencyMs).toBeGreaterThanOrEqual(115 - 2); // the runtime's clock is coarse to about a millisecond
    expect(latencyMs).toBeLessThanOrEqual(d.wallMs + 1);
  });

  it('a wrong secret is 403 InvalidSignatureException, with AWS message', async () => {
    const e = await failure(sigv4Client(url, 'not-the-test-secret'), ask('ref-fast-small', 3));
    expect([e.name, e.$metadata?.httpStatusCode]).toEqual(['InvalidSignatureException', 403]);
    expect(e.message).toMatch(/^The request signature we calculated does not match the signature you provided/);
  });

  it('an unknown access key is 403 UnrecognizedClientException', async () => {
    const e = await failure(sigv4Client(url, SECRET, 'AKIAOTHERKEY00000000'), ask('ref-fast-small', 3));
    expect([e.name, e.$metadata?.httpStatusCode]).toEqual(['UnrecognizedClientException', 403]);
  });

  it('the error-event fault is an exception message in the stream: modelStreamErrorException, or the one x-ref-exception names', async () => {
    const params = { 'x-ref-params': INSTANT, 'x-ref-fault': 'error-event' };
    const e = await failure(client, ask('ref-fast-small', 10), params);
    expect(e.name).toBe('ModelStreamErrorException');
    expect(e.message).toContain('injected error');
    for (const [header, name] of [
      ['throttlingException', 'ThrottlingException'],
      ['serviceUnavailableException', 'ServiceUnavailableException'],
      ['internalServerException', 'InternalServerException'],
      ['validationException', 'ValidationException'],
    ]) {
      expect((await failure(client, ask('ref-fast-small', 10), { ...params, 'x-ref-exception': header })).name).toBe(name);
    }
    const unknown = await failure(client, ask('ref-fast-small', 10), { ...params, 'x-ref-exception': 'meteorException' });
    expect([unknown.name, unknown.$metadata?.httpStatusCode]).toEqual(['ValidationException', 400]);
  });

  const HTTP_FAULTS: Array<[string, string, number]> = [
    ['http-429', 'ThrottlingException', 429],
    ['http-500', 'InternalServerException', 500],
    ['http-503', 'ServiceUnavailableException', 503],
  ];
  for (const [fault, name, status] of HTTP_FAULTS) {
    it(`${fault} is an HTTP ${status} the SDK reads as ${name}`, async () => {
      const e = await failure(client, ask('ref-fast-small', 3), { 'x-ref-fault': fault });
      expect([e.name, e.$metadata?.httpStatusCode]).toEqual([name, status]);
      expect(e.message).toContain('injected fault');
    });
  }

  it('bad input is a 400 ValidationException', async () => {
    const e = await failure(client, { modelId: 'ref-fast-small', messages: [] });
    expect([e.name, e.$metadata?.httpStatusCode]).toEqual(['ValidationException', 400]);
    expect(e.message).toContain('messages');
  });
});

describe('Bedrock API keys and SigV4 on a token-locked endpoint', () => {
  it('the Bedrock API key (Bearer) streams through the SDK', async () => {
    const d = await converse(bearerClient(lockedUrl, TOKEN), ask('ref-fast-small', 5), { 'x-ref-params': INSTANT });
    expect(d.text).toBe(answerText(5));
  });

  it('a wrong key, or none, is a 403', async () => {
    const wrong = await failure(bearerClient(lockedUrl, 'wrong-key'), ask('ref-fast-small', 3));
    expect([wrong.$metadata?.httpStatusCode, wrong.message]).toEqual([
      403,
      'Authentication failed: Please make sure your API Key is valid.',
    ]);
    const r = await fetch(`${lockedUrl}/model/ref-fast-small/converse-stream`, { method: 'POST', body: JSON.stringify(ask('x', 1)) });
    expect([r.status, r.headers.get('x-amzn-errortype'), await r.json()]).toEqual([
      403,
      'MissingAuthenticationTokenException',
      { message: 'Missing Authentication Token' },
    ]);
  });

  it('SigV4 is still verified there, but the public test credentials open no locked endpoint', async () => {
    const bad = await failure(sigv4Client(lockedUrl, 'not-the-test-secret'), ask('ref-fast-small', 3));
    expect(bad.name).toBe('InvalidSignatureException');
    const good = await failure(sigv4Client(lockedUrl), ask('ref-fast-small', 3));
    expect([good.name, good.$metadata?.httpStatusCode]).toEqual(['AccessDeniedException', 403]);
    expect(good.message).toContain('Authorization: Bearer');
  });
});

describe('SigV4 checked by hand (aws4fetch signs, as a Worker would)', () => {
  const aws = new AwsClient({ accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET, service: 'bedrock', region: 'eu-west-1', retries: 0 });
  const target = `${url}/model/ref-fast-small/converse-stream`;
  const body = JSON.stringify(ask('ignored', 2));

  it('a request signed without x-amz-content-sha256 is verified over its body', async () => {
    const signed = await aws.sign(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-ref-params': INSTANT },
      body,
    });
    expect(signed.headers.has('x-amz-content-sha256')).toBe(false);
    const r = await fetch(signed);
    expect(r.status).toBe(200);
    await r.arrayBuffer();
  });

  it('a body changed after signing, a false payload hash, or an old x-amz-date is refused', async () => {
    const signed = await aws.sign(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const tampered = await fetch(target, { method: 'POST', headers: signed.headers, body: body.replace('"maxTokens":2', '"maxTokens":3') });
    expect([tampered.status, tampered.headers.get('x-amzn-errortype')]).toEqual([403, 'InvalidSignatureException']);

    const lying = await aws.sign(target, { method: 'POST', headers: { 'x-amz-content-sha256': '0'.repeat(64) }, body });
    const r = await fetch(lying);
    expect([r.status, r.headers.get('x-amzn-errortype')]).toEqual([403, 'InvalidSignatureException']);
    expect(((await r.json()) as { message: string }).message).toContain('x-amz-content-sha256');

    const old = await aws.sign(target, { method: 'POST', body, aws: { datetime: '20200101T000000Z' } });
    const expired = await fetch(old);
    expect([expired.status, expired.headers.get('x-amzn-errortype')]).toEqual([403, 'InvalidSignatureException']);
    expect(((await expired.json()) as { message: string }).message).toMatch(/^Signature expired: 20200101T000000Z is now earlier than/);
  });

  it('a credential scoped to another service is refused', async () => {
    const s3 = new AwsClient({ accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET, service: 's3', region: 'us-east-1', retries: 0 });
    const r = await fetch(await s3.sign(target, { method: 'POST', body }));
    expect([r.status, r.headers.get('x-amzn-errortype')]).toEqual([403, 'InvalidSignatureException']);
  });
});

/** Splits a byte stream into event-stream messages and decodes each with AWS's codec (which checks both CRCs). */
function decodeAll(bytes: Uint8Array): Message[] {
  const codec = new EventStreamCodec(toUtf8, fromUtf8);
  const messages: Message[] = [];
  for (let offset = 0; offset < bytes.byteLength; ) {
    const total = new DataView(bytes.buffer, bytes.byteOffset + offset).getUint32(0);
    messages.push(codec.decode(bytes.subarray(offset, offset + total)));
    offset += total;
  }
  return messages;
}

const headerValues = (m: Message) => Object.fromEntries(Object.entries(m.headers).map(([k, v]) => [k, v.value]));
const payload = (m: Message) => JSON.parse(new TextDecoder().decode(m.body));

async function raw(headers: Record<string, string>, maxTokens: number, model = 'ref-fast-small') {
  const r = await fetch(`${url}/model/${model}/converse-stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(ask(model, maxTokens)),
  });
  return { response: r, bytes: new Uint8Array(await r.arrayBuffer()) };
}

describe('the raw event stream, read with AWS codec', () => {
  it('every message: string headers :event-type, :content-type application/json, :message-type event; AWS response headers', async () => {
    const { response, bytes } = await raw({ 'x-ref-params': INSTANT }, 4, 'ref-reasoning');
    expect(response.headers.get('content-type')).toBe('application/vnd.amazon.eventstream');
    expect(response.headers.get('x-amzn-requestid')).toMatch(/^[0-9a-f-]{36}$/);
    const messages = decodeAll(bytes);
    for (const m of messages) {
      expect(Object.values(m.headers).every((h) => h.type === 'string')).toBe(true);
      expect(headerValues(m)).toMatchObject({ ':content-type': 'application/json', ':message-type': 'event' });
    }
    expect(messages.map((m) => headerValues(m)[':event-type'])).toEqual([
      'messageStart',
      ...Array(4).fill('contentBlockDelta'), // reasoning
      'contentBlockDelta', // its signature
      'contentBlockStop',
      'messageStop',
      'metadata',
    ]);
    // Bedrock pads each event with letters (`p`) so a frame's size does not tell its token.
    expect(messages.every((m) => typeof payload(m).p === 'string')).toBe(true);
  });

  it('the error-event fault: an exception message with :exception-type and {"message"}, and nothing after it', async () => {
    const { bytes } = await raw({ 'x-ref-params': INSTANT, 'x-ref-fault': 'error-event', 'x-ref-exception': 'throttlingException' }, 10);
    const messages = decodeAll(bytes);
    const last = messages.at(-1)!;
    expect(headerValues(last)).toEqual({
      ':exception-type': 'throttlingException',
      ':content-type': 'application/json',
      ':message-type': 'exception',
    });
    expect(payload(last)).toEqual({ message: 'reference endpoint: injected error' });
    expect(messages.filter((m) => headerValues(m)[':message-type'] === 'exception')).toHaveLength(1);
  });

  it('the malformed fault: a well-framed message whose JSON is broken', async () => {
    const { bytes } = await raw({ 'x-ref-params': INSTANT, 'x-ref-fault': 'malformed' }, 6);
    const broken = decodeAll(bytes).filter((m) => {
      try {
        payload(m);
        return false;
      } catch {
        return true;
      }
    });
    expect(broken).toHaveLength(1);
  });

  it('the wrong-content-type fault: a whole Converse response as JSON', async () => {
    const { response, bytes } = await raw({ 'x-ref-params': INSTANT, 'x-ref-fault': 'wrong-content-type' }, 5);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = JSON.parse(new TextDecoder().decode(bytes));
    expect(body).toMatchObject({
      output: { message: { role: 'assistant', content: [{ text: answerText(5) }] } },
      stopReason: 'max_tokens',
      usage: { outputTokens: 5 },
      metrics: { latencyMs: expect.any(Number) },
    });
  });

  it('an HTTP error: {"message"} with x-amzn-errortype', async () => {
    const { response, bytes } = await raw({ 'x-ref-fault': 'http-429' }, 3);
    expect([response.status, response.headers.get('x-amzn-errortype')]).toEqual([429, 'ThrottlingException']);
    expect(response.headers.get('x-amzn-requestid')).toMatch(/^[0-9a-f-]{36}$/);
    expect(Object.keys(JSON.parse(new TextDecoder().decode(bytes)))).toEqual(['message']);
  });
});

describe('an open endpoint without test credentials', () => {
  let bare: RunningWorker;
  beforeAll(async () => {
    bare = await startWorker({
      config: 'workers/reference/wrangler.toml',
      bindings: { REFERENCE_OPEN: 'true', REFERENCE_AWS_ACCESS_KEY_ID: '', REFERENCE_AWS_SECRET_ACCESS_KEY: '' },
    });
  }, 120_000);
  afterAll(() => bare?.stop());

  it('serves SigV4 it cannot check, and requests without credentials, as every route there', async () => {
    const signed = await converse(sigv4Client(bare.url, 'any-secret'), ask('ref-fast-small', 3), { 'x-ref-params': INSTANT });
    expect(signed.text).toBe(answerText(3));
    const r = await fetch(`${bare.url}/model/ref-fast-small/converse-stream`, {
      method: 'POST',
      headers: { 'x-ref-params': INSTANT },
      body: JSON.stringify(ask('x', 3)),
    });
    expect(r.status).toBe(200);
    expect(decodeAll(new Uint8Array(await r.arrayBuffer())).length).toBeGreaterThan(0);
  });
});
