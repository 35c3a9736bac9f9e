/**
 * The reference endpoint is safe to leave deployed: without a token it serves no one unless told to
 * (REFERENCE_OPEN), and every response has a cap on its duration and its bytes, whatever the request's
 * parameters ask for. Each instance here is a real workerd, over loopback HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker, type RunningWorker } from '../../scripts/worker-runtime.ts';

let unguarded: RunningWorker;
let capped: RunningWorker;
const MAX_RESPONSE_BYTES = 200_000;

beforeAll(async () => {
  unguarded = await startWorker({ config: 'workers/reference/wrangler.toml' });
  capped = await startWorker({
    config: 'workers/reference/wrangler.toml',
    bindings: { REFERENCE_OPEN: 'true', MAX_STREAM_MS: '1500', MAX_RESPONSE_BYTES: String(MAX_RESPONSE_BYTES) },
  });
}, 120_000);

afterAll(async () => {
  await unguarded?.stop();
  await capped?.stop();
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
});
