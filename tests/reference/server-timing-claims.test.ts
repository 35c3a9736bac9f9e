/**
 * The shape of the reference endpoint's Server-Timing: additive parts (queue, prefill, app) nested
 * in a `total` that is exactly their sum and the largest metric (a client taking the largest single
 * metric gets the whole), never more than the client waited for the headers; and the
 * `bad-server-timing` fault, whose claim is impossible. (How close the honest claim is to the real
 * time is checked alone, in timing-claims.timing.test.ts.)
 */
import { describe, expect, inject, it } from 'vitest';
import { APIS, answerText, observe, serverTimingMetrics, type Observed } from './wire-client.ts';

const url = inject('referenceUrl');
const PARTS = ['queue', 'prefill', 'app'];
const CLAIMED_MS = 5_000;
const hundredths = (ms: number) => Math.round(ms * 100);

function expectTotalOfParts(o: Observed, parts: string[]): void {
  const metrics = serverTimingMetrics(o.headers.get('server-timing'));
  expect([...metrics.keys()]).toEqual(['total', ...parts]);
  const total = metrics.get('total')!;
  const sum = parts.reduce((s, p) => s + hundredths(metrics.get(p)!), 0);
  expect(hundredths(total)).toBe(sum);
  expect(total).toBe(Math.max(...metrics.values()));
  expect(total).toBeLessThanOrEqual(o.headersMs);
}

describe.each(APIS)('%s: Server-Timing', (api) => {
  it('headers at once: the parts and their total', async () => {
    const o = await observe(url, api, { model: 'ref-fast-small', maxTokens: 4, params: 'decode_ms_per_token=0' });
    expectTotalOfParts(o, PARTS);
  });

  it('headers held for queue and prefill: the parts and their total, which holds them', async () => {
    const o = await observe(url, api, {
      model: 'ref-slow-large',
      maxTokens: 4,
      params: 'queue_base_ms=20, prefill_base_ms=40, prefill_ms_per_token=0, decode_ms_per_token=0, vendor_timing=1',
    });
    expectTotalOfParts(o, PARTS);
    const metrics = serverTimingMetrics(o.headers.get('server-timing'));
    expect(metrics.get('total')!).toBeGreaterThanOrEqual(60 - 1);
    expect(Number(o.headers.get('openai-processing-ms'))).toBe(Math.floor(metrics.get('total')!));
  });

  it('an HTTP error fault: handling time and its total', async () => {
    const o = await observe(url, api, { model: 'ref-fast-small', maxTokens: 4, fault: 'http-503' });
    expect(o.status).toBe(503);
    expectTotalOfParts(o, ['app']);
  });

  it('bad-server-timing: claims far more server time before the headers than passed, and streams on', async () => {
    const o = await observe(url, api, {
      model: 'ref-fast-small',
      maxTokens: 4,
      params: 'decode_ms_per_token=0, vendor_timing=1',
      fault: 'bad-server-timing',
    });
    const metrics = serverTimingMetrics(o.headers.get('server-timing'));
    expect(Object.fromEntries(metrics)).toEqual({ total: CLAIMED_MS });
    expect(o.headers.get('openai-processing-ms')).toBe(String(CLAIMED_MS));
    expect(o.headersMs).toBeLessThan(CLAIMED_MS);
    expect(o.answer).toBe(answerText(4));
  });
});

it('bad-server-timing: the claim is set by bad_server_timing_ms, also on a held response', async () => {
  const o = await observe(url, 'openai-chat', {
    model: 'ref-slow-large~bad-server-timing',
    maxTokens: 2,
    params: 'bad_server_timing_ms=9000, queue_base_ms=0, prefill_base_ms=10, decode_ms_per_token=0',
  });
  expect(serverTimingMetrics(o.headers.get('server-timing')).get('total')).toBe(9_000);
  expect(o.headersMs).toBeLessThan(9_000);
});
