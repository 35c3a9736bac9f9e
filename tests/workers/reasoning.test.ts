/**
 * The Workers path inside workerd, over real HTTP to the reference endpoint: a model whose reasoning
 * is counted in usage but never streamed gets the TPOT of its answer, a budget spent on thinking is
 * `no_answer`, and an impossible Server-Timing claim is set aside with a note, never a negative part.
 */
import { describe, expect, it } from 'vitest';
import { env } from 'cloudflare:workers';
import { runJob } from '../../workers/observatory/probe/probe-job.ts';
import type { TargetConfig } from '../../shared/config/types.ts';
import { config } from './test-config.ts';

/** 40 hidden reasoning tokens, then 20 answer tokens 8 ms apart (no jitter). */
const DECODE_MS = 8;
const HIDDEN = `reasoning_tokens=40, decode_ms_per_token=${DECODE_MS}, decode_jitter=0, queue_base_ms=0, prefill_base_ms=5`;
const PATHS = {
  'openai-chat': '/v1/chat/completions',
  'openai-responses': '/v1/responses',
  'anthropic-messages': '/v1/messages',
  gemini: '/v1beta/models/{model}:streamGenerateContent?alt=sse',
} as const;

async function probe(api: keyof typeof PATHS, model: string, headers: Record<string, string>, maxTokens: number) {
  const target: TargetConfig = {
    id: `t-${api}`,
    label: 'T',
    provider: 'Reference',
    api,
    url: `{REFERENCE_URL}${PATHS[api]}`,
    model,
    apiKeySecret: 'REFERENCE_KEY',
    headers,
  };
  return runJob(
    { tickId: 1, target: target.id, variant: 'v', backfill: false },
    config.regions[0],
    target,
    { id: 'v', label: 'V', promptTokens: 40, maxTokens },
    config,
    { referenceUrl: env.REFERENCE_URL, secrets: env as unknown as Record<string, unknown>, colo: null, simulated: false },
  );
}

describe('hidden reasoning in the Workers path', () => {
  for (const api of ['openai-chat', 'openai-responses', 'gemini'] as const) {
    it(`${api}: TPOT and decode speed describe the answer, not the hidden thinking`, async () => {
      const s = await probe(api, 'ref-hidden-reasoning', { 'x-ref-params': HIDDEN }, 60);
      expect(s).toMatchObject({ error: null, output_tokens: 60, reasoning_tokens: 40, answer_tokens: 20, reasoning_streamed: false });
      // TPOT is the answer's span over its 20 tokens, from the reads as they arrived (a busy machine may
      // read several tokens at once and shorten the span, so the span is taken from the sample's own
      // timeline): dividing by all 60 output tokens, the definition bug, gives a third of it.
      const span = s.timeline[s.timeline.length - 1] - s.timeline[0];
      if (s.timeline.length < 2) expect(s.tpot_ms).toBeNull();
      else {
        expect(Math.abs(s.tpot_ms! - span / 19)).toBeLessThanOrEqual(0.02 * (span / 19) + 0.01);
        expect(Math.abs(s.decode_tps! * s.tpot_ms! - 1000)).toBeLessThan(1);
      }
      // The thinking happened before the first token (nothing streamed): at least 40 × 8 ms after the headers.
      expect(s.ttft_ms).toBe(s.ttfa_ms);
      expect(s.ttft_ms! - s.headers_ms!).toBeGreaterThan(40 * DECODE_MS * 0.6);
    });
  }
});

describe('no_answer in the Workers path', () => {
  for (const api of Object.keys(PATHS) as Array<keyof typeof PATHS>) {
    it(`${api}: a budget spent on thinking is a failed sample that says why`, async () => {
      const s = await probe(
        api,
        'ref-reasoning',
        { 'x-ref-fault': 'no-answer', 'x-ref-params': 'decode_ms_per_token=1, prefill_base_ms=5' },
        16,
      );
      expect(s.error).toBe('no_answer');
      expect(s.ttfa_ms).toBeNull();
      expect(s.tpot_ms).toBeNull();
      expect(s.error_detail).toMatch(/^stream ended without an answer token: finish_reason \S+/);
    });
  }
});

describe('implausible server claims in the Workers path', () => {
  for (const api of Object.keys(PATHS) as Array<keyof typeof PATHS>) {
    it(`${api}: a Server-Timing claim longer than the time to headers is set aside`, async () => {
      const s = await probe(
        api,
        'ref-fast-small',
        { 'x-ref-fault': 'bad-server-timing', 'x-ref-params': 'decode_ms_per_token=1, prefill_base_ms=5' },
        8,
      );
      expect(s.error).toBeNull();
      expect(s.server_timings['server-timing.total']).toBe(5000);
      expect(s.split_note).toContain('server-timing.total 5000 ms > headers_ms');
      expect(s.server_headers_ms === null || s.server_headers_ms <= s.headers_ms!).toBe(true);
      for (const part of [s.network_ms, s.server_ms]) {
        if (part === null) continue;
        expect(part).toBeGreaterThanOrEqual(0);
        expect(part).toBeLessThanOrEqual(s.ttft_ms!);
      }
    });
  }
});
