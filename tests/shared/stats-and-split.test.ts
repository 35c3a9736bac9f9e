import { describe, expect, it } from 'vitest';
import { percentile } from '../../shared/stats/percentile.ts';
import { splitTtft } from '../../shared/ttft-split.ts';

describe('percentile (linear interpolation, numpy default)', () => {
  // Reference values from numpy.percentile(x, q) with the default method.
  const x = [15, 20, 35, 40, 50];
  const cases: Array<[number, number]> = [[0, 15], [0.25, 20], [0.4, 29], [0.5, 35], [0.9, 46], [0.99, 49.6], [1, 50]];
  for (const [q, want] of cases) it(`q=${q}`, () => expect(percentile(x, q)).toBeCloseTo(want, 10));
  it('handles one value and none', () => {
    expect(percentile([7], 0.99)).toBe(7);
    expect(percentile([], 0.5)).toBeNull();
  });
  it('does not depend on input order', () => expect(percentile([50, 15, 40, 20, 35], 0.4)).toBeCloseTo(29, 10));
});

describe('TTFT split', () => {
  const base = { ttftMs: 500, headersMs: 300, serverHeadersMs: null, serverHeadersSource: null, serverTtftMs: null, serverTtftSource: null, rttMs: null };
  it('uses header server time first: network = headers − server_headers', () => {
    expect(splitTtft({ ...base, serverHeadersMs: 260, serverHeadersSource: 'server-timing', rttMs: 12 }))
      .toEqual({ network_ms: 40, server_ms: 460, residual_ms: null, split_source: 'server-timing' });
  });
  it('falls back to the round trip', () => {
    expect(splitTtft({ ...base, rttMs: 35 })).toEqual({ network_ms: 35, server_ms: 465, residual_ms: null, split_source: 'rtt' });
  });
  it('keeps a signed residual when the body reports server TTFT too', () => {
    expect(splitTtft({ ...base, serverHeadersMs: 260, serverHeadersSource: 'openai-processing-ms', serverTtftMs: 480, serverTtftSource: 'metrics' }))
      .toEqual({ network_ms: 40, server_ms: 460, residual_ms: -20, split_source: 'openai-processing-ms' });
  });
  it('uses the body report alone when nothing else exists', () => {
    expect(splitTtft({ ...base, serverTtftMs: 450, serverTtftSource: 'x_groq.usage' }))
      .toEqual({ network_ms: 50, server_ms: 450, residual_ms: null, split_source: 'x_groq.usage' });
  });
  it('is null without any source, and without a first token', () => {
    expect(splitTtft(base)).toEqual({ network_ms: null, server_ms: null, residual_ms: null, split_source: null });
    expect(splitTtft({ ...base, ttftMs: null, rttMs: 5 }).network_ms).toBeNull();
  });
});
