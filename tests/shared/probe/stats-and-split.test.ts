import { describe, expect, it } from 'vitest';
import { percentile } from '../../../shared/stats/percentile.ts';
import { splitTtft } from '../../../shared/probe/ttft-split.ts';
import { measureRtt } from '../../../shared/probe/rtt.ts';
import { FakeClock, scriptedFetch } from '../../helpers/scripted-fetch.ts';

describe('percentile (linear interpolation, numpy default)', () => {
  // Reference values from numpy.percentile(x, q) with the default method.
  const x = [15, 20, 35, 40, 50];
  const cases: Array<[number, number]> = [
    [0, 15],
    [0.25, 20],
    [0.4, 29],
    [0.5, 35],
    [0.9, 46],
    [0.99, 49.6],
    [1, 50],
  ];
  for (const [q, want] of cases) it(`q=${q}`, () => expect(percentile(x, q)).toBeCloseTo(want, 10));
  it('handles one value and none', () => {
    expect(percentile([7], 0.99)).toBe(7);
    expect(percentile([], 0.5)).toBeNull();
  });
  it('does not depend on input order', () => expect(percentile([50, 15, 40, 20, 35], 0.4)).toBeCloseTo(29, 10));
});

describe('TTFT split', () => {
  const base = { ttftMs: 500, headersMs: 300, headerClaims: [], serverTtftMs: null, serverTtftSource: null, rttMs: null };
  const none = { server_headers_ms: null, residual_ms: null, split_note: null };
  const claim = (source: string, ms: number) => ({ source, ms });
  it('uses header server time first: network = headers − server_headers', () => {
    expect(splitTtft({ ...base, headerClaims: [claim('server-timing.total', 260)], rttMs: 12 })).toEqual({
      ...none,
      server_headers_ms: 260,
      network_ms: 40,
      server_ms: 460,
      split_source: 'server-timing.total',
    });
  });
  it('takes the largest header claim, the one measured closest to the client', () => {
    const split = splitTtft({ ...base, headerClaims: [claim('openai-processing-ms', 207), claim('x-envoy-upstream-service-time', 250)] });
    expect(split.split_source).toBe('x-envoy-upstream-service-time');
    expect(split.network_ms).toBe(50);
  });
  it('falls back to the round trip', () => {
    expect(splitTtft({ ...base, rttMs: 35 })).toEqual({ ...none, network_ms: 35, server_ms: 465, split_source: 'rtt' });
  });
  it('keeps a signed residual when the body reports server TTFT too, and notes a negative one', () => {
    expect(
      splitTtft({ ...base, headerClaims: [claim('openai-processing-ms', 260)], serverTtftMs: 480, serverTtftSource: 'metrics' }),
    ).toEqual({
      server_headers_ms: 260,
      network_ms: 40,
      server_ms: 460,
      residual_ms: -20,
      split_source: 'openai-processing-ms',
      split_note: null,
    });
    // Beyond 10 % of TTFT, the two sources disagree, and the sample says so.
    expect(
      splitTtft({ ...base, headerClaims: [claim('openai-processing-ms', 200)], serverTtftMs: 499, serverTtftSource: 'metrics' }),
    ).toMatchObject({ network_ms: 100, residual_ms: -99, split_note: 'residual -99 ms: openai-processing-ms and metrics disagree' });
    expect(splitTtft({ ...base, rttMs: 20, serverTtftMs: 450, serverTtftSource: 'metrics' }).residual_ms).toBe(30);
  });
  it('uses the body report alone when nothing else exists', () => {
    expect(splitTtft({ ...base, serverTtftMs: 450, serverTtftSource: 'x_groq.usage' })).toEqual({
      ...none,
      network_ms: 50,
      server_ms: 450,
      split_source: 'x_groq.usage',
    });
  });
  it('is null without any source, and without a first token', () => {
    expect(splitTtft(base)).toEqual({ ...none, network_ms: null, server_ms: null, split_source: null });
    expect(splitTtft({ ...base, ttftMs: null, rttMs: 5 }).network_ms).toBeNull();
  });
});

describe('plausibility of server claims (never a negative or oversized part)', () => {
  const base = { ttftMs: 250, headersMs: 100, headerClaims: [], serverTtftMs: null, serverTtftSource: null, rttMs: null };
  const claim = (source: string, ms: number) => ({ source, ms });
  it('sets aside a header claim above headers_ms and falls back to the next header claim', () => {
    const split = splitTtft({ ...base, headerClaims: [claim('server-timing.total', 5000), claim('server-timing.cfOrigin', 80)] });
    expect(split).toMatchObject({ server_headers_ms: 80, network_ms: 20, server_ms: 230, split_source: 'server-timing.cfOrigin' });
    expect(split.split_note).toBe('server-timing.total 5000 ms > headers_ms 100 ms, set aside');
  });
  it('falls back to the round trip, then to the body, when every header claim is impossible', () => {
    const viaRtt = splitTtft({ ...base, headerClaims: [claim('server-timing.total', 5000)], rttMs: 30 });
    expect(viaRtt).toMatchObject({ server_headers_ms: null, network_ms: 30, server_ms: 220, split_source: 'rtt' });
    expect(viaRtt.split_note).toContain('server-timing.total 5000 ms > headers_ms');
    const viaBody = splitTtft({
      ...base,
      headerClaims: [claim('openai-processing-ms', 5000)],
      serverTtftMs: 200,
      serverTtftSource: 'metrics',
    });
    expect(viaBody).toMatchObject({ network_ms: 50, server_ms: 200, split_source: 'metrics', residual_ms: null });
  });
  it('sets aside a body-reported server TTFT above ttft_ms (no split, no residual from it)', () => {
    const alone = splitTtft({ ...base, serverTtftMs: 900, serverTtftSource: 'x_groq.usage' });
    expect(alone).toMatchObject({ network_ms: null, server_ms: null, split_source: null, residual_ms: null });
    expect(alone.split_note).toBe('x_groq.usage 900 ms > ttft_ms 250 ms, set aside');
    const withRtt = splitTtft({ ...base, rttMs: 30, serverTtftMs: 900, serverTtftSource: 'x_groq.usage' });
    expect(withRtt).toMatchObject({ network_ms: 30, residual_ms: null, split_source: 'rtt' });
  });
  it('sets aside a round trip that is negative or longer than TTFT', () => {
    expect(splitTtft({ ...base, rttMs: -40 })).toMatchObject({ network_ms: null, split_note: 'rtt -40 ms is negative, set aside' });
    expect(splitTtft({ ...base, rttMs: 400 })).toMatchObject({ network_ms: null, split_note: 'rtt 400 ms > ttft_ms 250 ms, set aside' });
    expect(splitTtft({ ...base, rttMs: 30, rttNote: 'round trip: x 9 ms > its round trip 2 ms, set aside' }).split_note).toContain(
      'round trip: x 9 ms',
    );
  });
  it('treats a claim within the clock resolution as the observed time, never a negative network part', () => {
    const split = splitTtft({ ...base, headerClaims: [claim('openai-processing-ms', 100.6)] });
    expect(split).toMatchObject({ server_headers_ms: 100, network_ms: 0, server_ms: 250, split_note: null });
  });
  it('never stores a negative part or one larger than TTFT, whatever the claims', () => {
    const values = [-50, -1, 0, 0.5, 1, 50, 99.5, 100, 101, 249, 250, 251, 5000];
    for (const h of values)
      for (const r of values)
        for (const b of values) {
          const split = splitTtft({
            ...base,
            headerClaims: h < 0 ? [] : [claim('st', h)],
            rttMs: r,
            serverTtftMs: b < 0 ? null : b,
            serverTtftSource: 'body',
          });
          for (const part of [split.network_ms, split.server_ms]) {
            if (part === null) continue;
            expect(part).toBeGreaterThanOrEqual(0);
            expect(part).toBeLessThanOrEqual(250);
          }
          if (split.network_ms !== null) expect(split.network_ms + split.server_ms!).toBeCloseTo(250, 9);
        }
  });
});

describe('round-trip probe: its own server claims are held to the same rule', () => {
  it('sets aside a claim longer than the request it came with, instead of going negative', async () => {
    const clock = new FakeClock();
    const fetch = scriptedFetch(
      {
        headersAt: 12,
        headers: { 'content-type': 'application/json', 'openai-processing-ms': '5000', 'server-timing': 'app;dur=2' },
        steps: [{ data: '{}' }],
      },
      clock,
    );
    const rtt = await measureRtt({
      target: { id: 't', api: 'openai-chat', url: 'http://127.0.0.1:9/v1/chat/completions', model: 'm' },
      fetch,
      now: clock.now,
      count: 1,
    });
    // 12 ms observed; the 5000 ms claim is impossible, the next one (2 ms of handling) is used.
    expect(rtt.rttMs).toBe(10);
    expect(rtt.note).toBe('round trip: openai-processing-ms 5000 ms > its round trip 12 ms, set aside');
  });
});
