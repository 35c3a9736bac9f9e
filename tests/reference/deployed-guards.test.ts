/**
 * The reference endpoint is safe to leave deployed: without a token it serves no one unless told to
 * (REFERENCE_OPEN), and every response has a cap on its duration, its wait for headers and its bytes,
 * whatever the request's parameters ask for; its body cap takes the largest prompt the observatory sends,
 * and is the one the docs quote. Each instance here is a real workerd, over loopback HTTP.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { unstable_readConfig } from 'wrangler';
import { startWorker, type RunningWorker } from '../../scripts/worker-runtime.ts';
import { planSchedule } from '../../workers/reference/latency-model.ts';
import { resolveProfile } from '../../workers/reference/profiles.ts';
import { estimateTokens } from '../../workers/reference/request.ts';
import { clampHeaderWait, GATEWAY_TIMEOUT, headerDeadlineMs } from '../../workers/reference/response-caps.ts';
import { MAX_PROMPT_TOKENS } from '../../shared/config/validate.ts';
import { buildCachePrompt } from '../../shared/probe/prompt.ts';
import { protocolFor } from '../../shared/probe/protocols/index.ts';
import type { ApiId } from '../../shared/types.ts';

let unguarded: RunningWorker;
let capped: RunningWorker;
let holdCapped: RunningWorker;
const MAX_RESPONSE_BYTES = 200_000;
/** `capped` cuts a response at 1.5 s (and holds at most the deployed 120 s); `holdCapped` holds one at most 0.8 s. */
const MAX_STREAM_MS = 1_500;
const MAX_HOLD_MS = 800;
/** The reference's caps as deployed (workers/reference/wrangler.toml [vars]). */
const vars = unstable_readConfig({ config: 'workers/reference/wrangler.toml' }, { hideWarnings: true }).vars as Record<string, string>;
const DEPLOYED = { maxHoldMs: Number(vars.MAX_HOLD_MS), maxStreamMs: Number(vars.MAX_STREAM_MS) };
const MAX_BODY_BYTES = Number(vars.MAX_BODY_BYTES);

beforeAll(async () => {
  unguarded = await startWorker({ config: 'workers/reference/wrangler.toml' });
  capped = await startWorker({
    config: 'workers/reference/wrangler.toml',
    bindings: { REFERENCE_OPEN: 'true', MAX_STREAM_MS: String(MAX_STREAM_MS), MAX_RESPONSE_BYTES: String(MAX_RESPONSE_BYTES) },
  });
  holdCapped = await startWorker({
    config: 'workers/reference/wrangler.toml',
    bindings: { REFERENCE_OPEN: 'true', MAX_HOLD_MS: String(MAX_HOLD_MS) },
  });
}, 120_000);

afterAll(async () => {
  await unguarded?.stop();
  await capped?.stop();
  await holdCapped?.stop();
});

const chat = (maxTokens: number) => ({
  model: 'ref-fast-small',
  messages: [{ role: 'user', content: 'hi' }],
  max_tokens: maxTokens,
  stream: true,
});
const post = (base: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('a deployed reference endpoint', () => {
  it('without REFERENCE_TOKEN serves no one, and says how to set one or open it', async () => {
    const r = await post(unguarded.url, chat(4));
    expect(r.status).toBe(503);
    const text = await r.text();
    expect(text).toContain('REFERENCE_TOKEN');
    expect(text).toContain('REFERENCE_OPEN');
  });

  it('caps the bytes of one response, whatever it asks for', async () => {
    const r = await post(capped.url, chat(16), { 'x-ref-fault': 'huge', 'x-ref-params': 'huge_mb=64, decode_ms_per_token=0' });
    expect(r.status).toBe(200);
    const bytes = (await r.arrayBuffer()).byteLength;
    expect(bytes).toBeLessThanOrEqual(MAX_RESPONSE_BYTES);
    expect(bytes).toBeGreaterThan(MAX_RESPONSE_BYTES / 2);
  });

  it('caps the duration of one response: a stream planned for minutes ends early, without its end', async () => {
    // 2,048 tokens at 200 ms each would take about 7 minutes.
    const r = await post(capped.url, chat(2_048), { 'x-ref-params': 'decode_ms_per_token=200, prefill_base_ms=1, queue_base_ms=0' });
    const text = await r.text();
    expect(text).not.toContain('[DONE]');
    const tokens = (text.match(/"content":"/g) ?? []).length;
    expect(tokens).toBeGreaterThan(0);
    expect(tokens).toBeLessThan(100);
  }, 60_000);

  // The example: hold mode, 100 ms of prefill a token, a prompt just under the body cap (about 250,000 tokens).
  const SLOW_PREFILL = 'headers_at_once=0, prefill_ms_per_token=100';
  const hugePrompt = 'x'.repeat(MAX_BODY_BYTES - 1_000);

  it('plans no wait for headers past the caps: the 7-hour prefill is given up at MAX_HOLD_MS', () => {
    const planned = planSchedule(resolveProfile('ref-fast-small', SLOW_PREFILL), estimateTokens(hugePrompt), 16, 1).chunks[0].at;
    expect(planned / 3_600_000).toBeGreaterThan(6.9);
    expect(clampHeaderWait(planned, DEPLOYED)).toEqual({ waitMs: DEPLOYED.maxHoldMs, overCap: true });
    // A hold longer than the stream's cap is cut at the stream's; a plan within both waits as planned.
    expect(clampHeaderWait(planned, { maxHoldMs: 10_000, maxStreamMs: 2_000 })).toEqual({ waitMs: 2_000, overCap: true });
    expect(clampHeaderWait(300, DEPLOYED)).toEqual({ waitMs: 300, overCap: false });
    expect(headerDeadlineMs(DEPLOYED)).toBeLessThanOrEqual(DEPLOYED.maxStreamMs);
  });

  /** Posts and reads the whole answer; the time until it ended. */
  async function timed(
    base: string,
    body: unknown,
    headers: Record<string, string>,
  ): Promise<{ status: number; text: string; ms: number }> {
    const started = performance.now();
    const r = await post(base, body, headers);
    const text = await r.text();
    return { status: r.status, text, ms: performance.now() - started };
  }
  const hugeChat = { ...chat(16), messages: [{ role: 'user', content: hugePrompt }] };

  it('ends a hold-mode request whose prefill would take 7 hours at MAX_HOLD_MS, with a 504', async () => {
    const r = await timed(holdCapped.url, hugeChat, { 'x-ref-params': SLOW_PREFILL });
    expect(r.status).toBe(GATEWAY_TIMEOUT);
    expect(JSON.parse(r.text).error.message).toMatch(/the first token was planned \d+ ms after arrival, past MAX_HOLD_MS \(800 ms\)/);
    // Not before the cap (nothing arrives ahead of its plan), and nowhere near 7 hours (a bound a busy machine keeps).
    expect(r.ms).toBeGreaterThanOrEqual(MAX_HOLD_MS - 50);
    expect(r.ms).toBeLessThan(30_000);
  }, 60_000);

  it('ends it at MAX_STREAM_MS where that comes before MAX_HOLD_MS', async () => {
    const r = await timed(capped.url, hugeChat, { 'x-ref-params': SLOW_PREFILL });
    expect(r.status).toBe(GATEWAY_TIMEOUT);
    expect(JSON.parse(r.text).error.message).toContain('past MAX_STREAM_MS (1500 ms)');
    expect(r.ms).toBeLessThan(30_000);
  }, 60_000);

  it('ends a non-streamed response planned for hours at the caps, with a 504', async () => {
    // 2,048 tokens at 5 s each: about 3 hours before the whole body (and its headers) could leave.
    const r = await timed(holdCapped.url, { ...chat(2_048), stream: false }, { 'x-ref-params': 'decode_ms_per_token=5000' });
    expect(r.status).toBe(GATEWAY_TIMEOUT);
    expect(JSON.parse(r.text).error.message).toMatch(/the whole response was planned \d+ ms after arrival, past MAX_HOLD_MS/);
    expect(r.ms).toBeLessThan(30_000);
  }, 60_000);

  it('ends a stall at MAX_STREAM_MS, not MAX_HOLD_MS after it began', async () => {
    // The stall begins after 3 tokens, at about 1 s, and would hold 120 s (the deployed MAX_HOLD_MS): the stream's cap comes first.
    const r = await timed(capped.url, chat(64), { 'x-ref-fault': 'stall', 'x-ref-params': 'prefill_base_ms=1000, stall_ms=120000' });
    expect(r.status).toBe(200);
    expect(r.text).not.toContain('[DONE]');
    expect(r.ms).toBeLessThan(30_000);
  }, 60_000);
});

describe('the body cap, MAX_BODY_BYTES', () => {
  const APIS: ApiId[] = ['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini', 'bedrock-converse'];
  const largest = (api: ApiId) => {
    // The observatory's largest request: a prompt-cache pass (marked breakpoints add a little) at the largest prompt a variant may ask for.
    const prompt = buildCachePrompt(MAX_PROMPT_TOKENS, 'f'.repeat(32), 2);
    const target = { id: 't', api, url: 'http://127.0.0.1:1', model: 'ref-fast-small' };
    return protocolFor(api).buildRequest({ target, prompt: prompt.text, maxTokens: 64, cacheBreak: prompt.cacheBreak });
  };

  it('takes the largest request the observatory can send, in every format the reference speaks', async () => {
    for (const api of APIS) expect(String(largest(api).init.body).length, api).toBeLessThan(MAX_BODY_BYTES);
    // Sent for real: served, not refused.
    const built = largest('openai-chat');
    const r = await fetch(`${inject('referenceUrl')}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-ref-params': 'prefill_ms_per_token=0, decode_ms_per_token=0' },
      body: built.init.body,
    });
    expect(r.status).toBe(200);
    await r.body?.cancel();
  });

  it('is the figure docs/ARCHITECTURE.md quotes', () => {
    const docs = readFileSync(new URL('../../docs/ARCHITECTURE.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    expect(MAX_BODY_BYTES).toBe(1024 * 1024);
    // Booleans: the failure message would otherwise hold the whole page.
    expect(docs.includes('bodies over 1 MiB (`MAX_BODY_BYTES`)'), 'docs/ARCHITECTURE.md quotes the cap').toBe(true);
    expect(/bodies over 64 KiB/.test(docs), 'docs/ARCHITECTURE.md still says 64 KiB').toBe(false);
  });
});
