/**
 * Every fault mode of the reference endpoint, and the probe core classifying each one correctly,
 * over real HTTP from workerd. Also its guard rails: caps, bad input, the optional token.
 */
import { describe, expect, inject, it } from 'vitest';
import { runProbe } from '../../shared/probe/probe.ts';
import type { ApiId, ErrorClass } from '../../shared/types.ts';

const url = inject('referenceUrl');
const lockedUrl = inject('lockedReferenceUrl');
const QUICK = 'decode_ms_per_token=1, prefill_base_ms=2, queue_base_ms=0';
const PATHS: Record<string, string> = {
  'openai-chat': '/v1/chat/completions',
  'openai-responses': '/v1/responses',
  'anthropic-messages': '/v1/messages',
  gemini: '/v1beta/models/{model}:streamGenerateContent?alt=sse',
};

function probe(api: ApiId, fault: string, params = '', timeouts = {}) {
  return runProbe({
    target: {
      id: 'ref',
      api,
      url: url + PATHS[api],
      model: 'ref-fast-small',
      headers: { 'x-ref-fault': fault, 'x-ref-params': [QUICK, params].filter(Boolean).join(', ') },
    },
    prompt: { id: 'p', promptTokens: 32, maxTokens: 12 },
    timeouts: { headersMs: 5_000, firstTokenMs: 5_000, idleMs: 5_000, totalMs: 20_000, ...timeouts },
  });
}

const CASES: Array<{ fault: string; error: ErrorClass; status?: number; detail?: string; params?: string; timeouts?: object }> = [
  { fault: 'http-429', error: 'rate_limited', status: 429, detail: 'retry-after 2' },
  { fault: 'http-500', error: 'http', status: 500 },
  { fault: 'http-503', error: 'http', status: 503 },
  { fault: 'http-529', error: 'overloaded', status: 529 },
  { fault: 'slow-headers', error: 'timeout_headers', params: 'slow_headers_ms=3000', timeouts: { headersMs: 300 } },
  { fault: 'stall', error: 'stall', params: 'stall_ms=5000', timeouts: { idleMs: 300 } },
  { fault: 'close-early', error: 'truncated', status: 200 },
  { fault: 'malformed', error: 'protocol', status: 200, detail: 'unparsable event' },
  { fault: 'error-event', error: 'stream_error', status: 200, detail: 'injected error' },
  { fault: 'wrong-content-type', error: 'protocol', status: 200, detail: 'application/json' },
  { fault: 'huge', error: 'protocol', status: 200, detail: 'larger than', params: 'huge_mb=20' },
];

describe('fault modes, classified by the probe core', () => {
  for (const api of Object.keys(PATHS) as ApiId[]) {
    for (const c of CASES) {
      it(`${api}: ${c.fault} → ${c.error}`, async () => {
        const { sample } = await probe(api, c.fault, c.params, c.timeouts);
        expect(sample.error).toBe(c.error);
        if (c.status) expect(sample.status).toBe(c.status);
        if (c.detail) expect(sample.error_detail).toContain(c.detail);
      });
    }
    it(`${api}: no fault → a clean sample`, async () => {
      const { sample } = await probe(api, '');
      // Split by a Server-Timing claim (the source may name the metric: server-timing.total).
      expect(sample).toMatchObject({
        error: null,
        status: 200,
        output_tokens: 12,
        tokens_exact: true,
        split_source: expect.stringMatching(/^server-timing/),
      });
    });
  }

  it('a fault can also be chosen by model suffix', async () => {
    const { sample } = await runProbe({
      target: { id: 'ref', api: 'openai-chat', url: url + PATHS['openai-chat'], model: 'ref-fast-small~http-529' },
      prompt: { id: 'p', promptTokens: 8, maxTokens: 4 },
    });
    expect(sample.error).toBe('overloaded');
  });
});

describe('guard rails', () => {
  const post = (path: string, body: unknown, headers: Record<string, string> = {}, base = url) =>
    fetch(base + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const chat = {
    model: 'ref-fast-small',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    stream_options: { include_usage: true },
  };

  it('caps max_tokens', async () => {
    const text = await (
      await post('/v1/chat/completions', { ...chat, max_tokens: 1_000_000 }, { 'x-ref-params': 'decode_ms_per_token=0' })
    ).text();
    expect(text).toContain('"completion_tokens":2048');
  });

  it('rejects a body over the size cap with 413, whatever content-length claims', async () => {
    const big = JSON.stringify({ ...chat, messages: [{ role: 'user', content: 'x'.repeat(1_100_000) }] });
    expect((await post('/v1/chat/completions', big)).status).toBe(413);
  });

  const bad: Array<[string, string, unknown, Record<string, string>, number, string]> = [
    ['invalid JSON', '/v1/chat/completions', '{"model":', {}, 400, 'JSON object'],
    ['missing model', '/v1/chat/completions', { messages: [{ role: 'user', content: 'x' }] }, {}, 400, 'model is required'],
    ['empty messages', '/v1/messages', { model: 'm', max_tokens: 5, messages: [] }, {}, 400, 'messages'],
    [
      'anthropic without max_tokens',
      '/v1/messages',
      { model: 'm', messages: [{ role: 'user', content: 'x' }] },
      {},
      400,
      'max_tokens is required',
    ],
    ['negative max_tokens', '/v1/chat/completions', { ...chat, max_tokens: -3 }, {}, 400, 'positive integer'],
    ['unknown fault', '/v1/chat/completions', chat, { 'x-ref-fault': 'meteor' }, 400, 'unknown fault "meteor"'],
    ['unknown parameter', '/v1/chat/completions', chat, { 'x-ref-params': 'speed=9' }, 400, 'unknown x-ref-params name "speed"'],
    ['out-of-range parameter', '/v1/chat/completions', chat, { 'x-ref-params': 'decode_ms_per_token=1e9' }, 400, 'from 0 to 5000'],
  ];
  for (const [name, path, body, headers, status, message] of bad) {
    it(`${name} → ${status} with a clear message`, async () => {
      const r = await post(path, body, headers);
      expect(r.status).toBe(status);
      const answer = (await r.json()) as { error: { message: string } };
      expect(answer.error.message).toContain(message);
    });
  }

  it('unknown routes are a JSON 404', async () => {
    const r = await fetch(`${url}/v2/nothing`);
    expect(r.status).toBe(404);
    expect(await r.json()).toMatchObject({ error: { type: 'not_found' } });
  });

  it('with a token configured, requests need it (Bearer, x-api-key or x-goog-api-key)', async () => {
    expect((await post('/v1/chat/completions', { ...chat, max_tokens: 2 }, {}, lockedUrl)).status).toBe(401);
    expect((await post('/v1/chat/completions', { ...chat, max_tokens: 2 }, { authorization: 'Bearer wrong' }, lockedUrl)).status).toBe(401);
    const accepted: Array<Record<string, string>> = [
      { authorization: 'Bearer ref-test-token-123' },
      { 'x-api-key': 'ref-test-token-123' },
      { 'x-goog-api-key': 'ref-test-token-123' },
    ];
    for (const h of accepted) {
      const r = await post('/v1/chat/completions', { ...chat, max_tokens: 2 }, h, lockedUrl);
      expect(r.status).toBe(200);
      await r.text();
    }
  });
});
