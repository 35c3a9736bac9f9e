/**
 * The reference endpoint's timing claims, checked on loopback by an independent client (plain
 * fetch, its own line reading; not the probe's parser): first content never arrives before the
 * declared server time, and Server-Timing is the time really spent before the headers. Bounds are what
 * a wrong claim breaks (leaving out the 30 ms queue or the 120 ms prefill), not what a busy machine does.
 * The declared time is the largest single Server-Timing metric (`total`, which the parts nest in),
 * as the measurement contract reads it: nested metrics are never summed.
 */
import { describe, expect, inject, it } from 'vitest';
import { median } from '../../shared/stats/percentile.ts';
import { serverTimingMetrics } from './wire-client.ts';

const url = inject('referenceUrl');
const ROUNDS = 9;

interface Observed {
  headersMs: number;
  firstContentMs: number;
  serverTimingMs: number;
  metrics: { queue_time_ms: number; time_to_first_token_ms: number } | null;
}

/** Sends one streaming chat request and times it with nothing but fetch and a text scan. */
async function observe(model: string, params: string): Promise<Observed> {
  const body = JSON.stringify({
    model,
    messages: [{ role: 'user', content: 'timing check' }],
    max_tokens: 8,
    stream: true,
    stream_options: { include_usage: true },
  });
  const t0 = performance.now();
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-ref-params': params },
    body,
  });
  const headersMs = performance.now() - t0;
  const serverTimingMs = Math.max(...serverTimingMetrics(response.headers.get('server-timing')).values());
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let firstContentMs = -1;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (firstContentMs < 0 && /"content":"[^"]/.test(text)) firstContentMs = performance.now() - t0;
  }
  const metricsLine = text.split('\n').find((l) => l.includes('"metrics"'));
  const metrics = metricsLine ? JSON.parse(metricsLine.slice('data: '.length)).metrics : null;
  return { headersMs, firstContentMs, serverTimingMs, metrics };
}

async function rounds(model: string, params: string): Promise<Observed[]> {
  const out: Observed[] = [];
  await observe(model, params); // warm the connection and the isolate
  for (let i = 0; i < ROUNDS; i++) out.push(await observe(model, params));
  return out;
}

/** Runs two request kinds in turn (A B A B …), so drifting machine load hits both alike. */
async function paired(a: [string, string], b: [string, string]): Promise<[Observed[], Observed[]]> {
  const as: Observed[] = [];
  const bs: Observed[] = [];
  await observe(...a);
  await observe(...b);
  for (let i = 0; i < ROUNDS; i++) {
    as.push(await observe(...a));
    bs.push(await observe(...b));
  }
  return [as, bs];
}

describe('timing claims on loopback', () => {
  it('holds headers for the real queue + prefill and says so in Server-Timing', async () => {
    // The same hold-mode response path with no time spent, and with 150 ms spent before the headers.
    const [idle, held] = await paired(
      ['ref-slow-large', 'queue_base_ms=0, prefill_base_ms=0, prefill_ms_per_token=0, decode_ms_per_token=2'],
      ['ref-slow-large', 'queue_base_ms=30, prefill_base_ms=120, prefill_ms_per_token=0, decode_ms_per_token=2'],
    );
    for (const o of held) {
      expect(o.serverTimingMs).toBeGreaterThanOrEqual(150 - 1);
      expect(o.headersMs).toBeGreaterThanOrEqual(o.serverTimingMs);
    }
    // What the client sees beyond the declared server time is the same loopback overhead either way.
    const idleOverhead = median(idle.map((o) => o.headersMs - o.serverTimingMs))!;
    const heldOverhead = median(held.map((o) => o.headersMs - o.serverTimingMs))!;
    // (A claim without the 30 ms queue would leave 30 ms more here.)
    expect(Math.abs(heldOverhead - idleOverhead)).toBeLessThan(15);
  });

  it('sends headers at once when the profile says so, declaring only the handling time', async () => {
    for (const o of await rounds('ref-fast-small', 'queue_base_ms=30, prefill_base_ms=120, decode_ms_per_token=2')) {
      expect(o.serverTimingMs).toBeLessThan(50);
      expect(o.headersMs).toBeLessThan(o.firstContentMs - 100);
    }
  });

  it('first content never arrives before the declared server time to first token', async () => {
    const held = await rounds('ref-slow-large', 'queue_base_ms=10, prefill_base_ms=60, decode_ms_per_token=2');
    const withMetrics = await rounds('ref-fast-small', 'queue_base_ms=10, prefill_base_ms=60, decode_ms_per_token=2, vendor_timing=1');
    for (const o of held) expect(o.firstContentMs).toBeGreaterThanOrEqual(o.serverTimingMs);
    for (const o of withMetrics) {
      const declared = o.metrics!.queue_time_ms + o.metrics!.time_to_first_token_ms;
      expect(declared).toBeGreaterThanOrEqual(70 - 1);
      expect(o.firstContentMs).toBeGreaterThanOrEqual(declared);
      // Not far below it either: leaving out the 60 ms prefill would be.
      expect(o.firstContentMs - declared).toBeLessThan(50);
    }
  });

  it('queueing grows with requests in flight', async () => {
    const body = (i: number) =>
      JSON.stringify({
        model: 'ref-batching',
        messages: [{ role: 'user', content: `q${i}` }],
        max_tokens: 4,
        stream: true,
        stream_options: { include_usage: true },
      });
    const texts = await Promise.all(
      [0, 1, 2, 3].map(async (i) => {
        const r = await fetch(`${url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'x-ref-params': 'decode_ms_per_token=20' },
          body: body(i),
        });
        return r.text();
      }),
    );
    const queues = texts
      .map(
        (t) =>
          JSON.parse(
            t
              .split('\n')
              .find((l) => l.includes('"metrics"'))!
              .slice(6),
          ).metrics.queue_time_ms,
      )
      .sort((a, b) => a - b);
    expect(queues[0]).toBeGreaterThanOrEqual(40);
    expect(queues[3]).toBeGreaterThanOrEqual(queues[0] + 3 * 25);
  });
});
