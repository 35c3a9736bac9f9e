/**
 * The prompt-cache probe against the reference endpoint's prefix cache, in every wire format that reports a
 * cache: the probe's two passes (one nonce, the second seconds later), built by the measurement core and read
 * back by its parsers. The endpoint caches automatically where the vendor does (OpenAI, Gemini) and only up
 * to a marked breakpoint where the vendor asks for one (Anthropic's cache_control, Bedrock's cachePoint).
 */
import { describe, expect, inject, it } from 'vitest';
import { runProbe } from '../../shared/probe/probe.ts';
import { randomNonce } from '../../shared/probe/prompt.ts';
import type { ApiId, ProbeTarget, Sample } from '../../shared/types.ts';

const url = inject('referenceUrl');
const INSTANT = 'queue_base_ms=0, prefill_base_ms=0, decode_ms_per_token=0, prefill_ms_per_token=0.05';
const PROMPT = { id: 'cache', promptTokens: 2_048, maxTokens: 4 };

const TARGETS: Array<{ api: ApiId; path: string; extra?: Partial<ProbeTarget> }> = [
  { api: 'openai-chat', path: '/v1/chat/completions' },
  { api: 'openai-responses', path: '/v1/responses' },
  { api: 'anthropic-messages', path: '/v1/messages' },
  { api: 'gemini', path: '/v1beta/models/{model}:streamGenerateContent?alt=sse' },
  {
    api: 'bedrock-converse',
    path: '/model/{model}/converse-stream',
    extra: {
      auth: {
        type: 'aws-sigv4',
        region: 'us-east-1',
        accessKeyId: 'AKIAREFERENCETESTKEY',
        secretAccessKey: 'reference-test-only-secret-not-an-aws-key',
      },
    },
  },
];

function target(api: ApiId, path: string, region: string, extra: Partial<ProbeTarget> = {}): ProbeTarget {
  return {
    id: `cache-${api}`,
    api,
    url: url + path,
    model: 'ref-slow-large',
    headers: { 'x-ref-params': INSTANT, 'x-ref-region': region },
    ...extra,
  };
}

async function pass(t: ProbeTarget, nonce: string, n: 1 | 2 | undefined, prompt = PROMPT): Promise<Sample> {
  const { sample } = await runProbe({ target: t, prompt, nonce, cachePass: n });
  expect(sample.error, sample.error_detail ?? '').toBeNull();
  return sample;
}

describe('the reference endpoint prompt cache', () => {
  for (const { api, path, extra } of TARGETS)
    it(`${api}: the second pass reads the prefix the first wrote, in whole blocks, and says so`, async () => {
      const t = target(api, path, `r-${api}`, extra);
      const nonce = randomNonce();
      const first = await pass(t, nonce, 1);
      const second = await pass(t, nonce, 2);
      expect(first.cached_tokens).toBe(0);
      expect(second.cached_tokens).toBeGreaterThanOrEqual(1_024);
      expect(second.cached_tokens! % 128).toBe(0);
      // A fresh nonce is a fresh prefix: nothing to read.
      expect((await pass(t, randomNonce(), 2)).cached_tokens).toBe(0);
    });

  it('caches an Anthropic or Bedrock prompt only up to a marked breakpoint: an ordinary probe marks none', async () => {
    for (const { api, path, extra } of TARGETS.filter((x) => x.api === 'anthropic-messages' || x.api === 'bedrock-converse')) {
      const t = target(api, path, `plain-${api}`, extra);
      const nonce = randomNonce();
      await pass(t, nonce, undefined);
      expect((await pass(t, nonce, undefined)).cached_tokens, api).toBe(0);
    }
  });

  it('caches an OpenAI prompt by itself: the same ordinary prompt twice is read from the cache the second time', async () => {
    const t = target('openai-chat', '/v1/chat/completions', 'plain-openai');
    const nonce = randomNonce();
    expect((await pass(t, nonce, undefined)).cached_tokens).toBe(0);
    expect((await pass(t, nonce, undefined)).cached_tokens).toBeGreaterThanOrEqual(1_024);
  });

  it('keeps regions apart, and caches nothing under its smallest prefix', async () => {
    const nonce = randomNonce();
    await pass(target('openai-chat', '/v1/chat/completions', 'here'), nonce, 1);
    expect((await pass(target('openai-chat', '/v1/chat/completions', 'elsewhere'), nonce, 2)).cached_tokens).toBe(0);
    const short = { id: 'short', promptTokens: 600, maxTokens: 4 };
    const t = target('openai-chat', '/v1/chat/completions', 'short');
    const n2 = randomNonce();
    await pass(t, n2, 1, short);
    expect((await pass(t, n2, 2, short)).cached_tokens).toBe(0);
  });

  it('prefills a cached token at a tenth of the cost: the second pass saves most of a slow prefill', async () => {
    // 1 ms a token: the first pass's prefill is about 1.8 s of the endpoint's estimate, the second's under 0.4 s.
    const t = target('anthropic-messages', '/v1/messages', 'slow-prefill');
    t.headers = { ...t.headers, 'x-ref-params': 'queue_base_ms=0, prefill_base_ms=0, decode_ms_per_token=0, prefill_ms_per_token=1' };
    const nonce = randomNonce();
    const first = await pass(t, nonce, 1);
    const second = await pass(t, nonce, 2);
    expect(first.ttft_ms! - second.ttft_ms!).toBeGreaterThan(800);
  });
});
