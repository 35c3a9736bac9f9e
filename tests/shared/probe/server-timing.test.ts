import { describe, expect, it } from 'vitest';
import {
  keptMetrics,
  MAX_SERVER_TIMING_METRICS,
  MAX_SERVER_TIMING_NAME_CHARS,
  parseServerTiming,
  serverTimingClaims,
  validServerTimingEntry,
} from '../../../shared/probe/server-timing.ts';
import {
  boundedSplitSource,
  MAX_SPLIT_SOURCES_PER_TARGET,
  MemorySplitSourceBook,
  OTHER_SPLIT_SOURCE,
} from '../../../shared/probe/split-sources.ts';
import { readHeaderTimings, upstreamColo } from '../../../shared/probe/header-timings.ts';

describe('Server-Timing parser', () => {
  const cases: Array<[string, string | null, Array<{ name: string; dur: number | null; desc: string | null }>]> = [
    ['single metric', 'gfet4t7; dur=379', [{ name: 'gfet4t7', dur: 379, desc: null }]],
    [
      'quoted desc with comma and semicolon',
      'total;dur=163.0;desc="Total, Response; Time"',
      [{ name: 'total', dur: 163, desc: 'Total, Response; Time' }],
    ],
    [
      'several metrics',
      'queue;dur=12, prefill;dur=30.5;desc=p, cache;desc="hit"',
      [
        { name: 'queue', dur: 12, desc: null },
        { name: 'prefill', dur: 30.5, desc: 'p' },
        { name: 'cache', dur: null, desc: 'hit' },
      ],
    ],
    [
      'several header lines joined by Headers',
      'a;dur=1, b;dur=2',
      [
        { name: 'a', dur: 1, desc: null },
        { name: 'b', dur: 2, desc: null },
      ],
    ],
    ['unknown params ignored, first dur wins', 'x;foo=bar;dur=5;dur=9', [{ name: 'x', dur: 5, desc: null }]],
    ['case-insensitive param names', 'x;DUR=4', [{ name: 'x', dur: 4, desc: null }]],
    ['malformed entries skipped', ', ;dur=3, "quoted";dur=1, ok;dur=2, bad name;dur=1', [{ name: 'ok', dur: 2, desc: null }]],
    ['non-numeric dur is no dur', 'x;dur=abc', [{ name: 'x', dur: null, desc: null }]],
    ['escaped quote inside desc', 'x;desc="a \\"b\\" c";dur=1', [{ name: 'x', dur: 1, desc: 'a "b" c' }]],
    ['absent header', null, []],
  ];
  for (const [name, header, expected] of cases) {
    it(name, () => expect(parseServerTiming(header)).toEqual(expected));
  }

  it('never sums by default: every single metric is a claim (nested metrics cannot inflate)', () => {
    const metrics = parseServerTiming('cfOrigin;dur=300, total;dur=280, cfL4;desc="?rtt=1", queue;dur=10');
    expect(serverTimingClaims(metrics)).toEqual([
      { source: 'server-timing.cfOrigin', ms: 300 },
      { source: 'server-timing.total', ms: 280 },
      { source: 'server-timing.queue', ms: 10 },
    ]);
  });

  it('takes configured names, summing only parts joined by +', () => {
    const metrics = parseServerTiming('queue;dur=10, prefill;dur=25, edge;dur=3');
    expect(serverTimingClaims(metrics, ['queue + PREFILL', 'edge'])).toEqual([
      { source: 'server-timing.queue+PREFILL', ms: 35 },
      { source: 'server-timing.edge', ms: 3 },
    ]);
    expect(serverTimingClaims(metrics, ['absent', 'queue+absent'])).toEqual([]);
  });
});

describe('vendor header timings', () => {
  it('stores each raw claim and offers each as a candidate for server_headers_ms', () => {
    const t = readHeaderTimings(
      new Headers({
        'openai-processing-ms': '249',
        'x-envoy-upstream-service-time': '406',
        'server-timing': 'x-originResponse;dur=300',
        'x-kong-upstream-latency': '61',
        'cmp-upstream-response-duration': '12',
        'fireworks-server-time-to-first-token': '0.028',
      }),
    );
    expect(t.timings).toEqual({
      'server-timing.x-originResponse': 300,
      'openai-processing-ms': 249,
      'x-envoy-upstream-service-time': 406,
      'x-kong-upstream-latency': 61,
      'cmp-upstream-response-duration': 12,
    });
    expect(t.claims.map((c) => c.source).sort()).toEqual(Object.keys(t.timings).sort());
    expect(t.serverTtftMs).toBeCloseTo(28, 6);
  });

  it('ignores garbage values and reports nothing when there is nothing', () => {
    const t = readHeaderTimings(new Headers({ 'openai-processing-ms': 'soon', 'x-envoy-upstream-service-time': '-3' }));
    expect(t.timings).toEqual({});
    expect(t.claims).toEqual([]);
  });

  it('reads the upstream colo from cf-ray, not from placeholders', () => {
    expect(upstreamColo(new Headers({ 'cf-ray': '91445a6048e4bb26-MXP' }))).toBe('MXP');
    expect(upstreamColo(new Headers({ 'cf-ray': 'CF-RAY-XXX' }))).toBeNull();
    expect(upstreamColo(new Headers())).toBeNull();
  });
});

describe('bounds on what Server-Timing puts in a sample', () => {
  it('keeps short plain names only, the first of each, at most MAX_SERVER_TIMING_METRICS, and configured ones besides', () => {
    const many = Array.from({ length: 30 }, (_, i) => `m${i};dur=${i}`);
    const header = [
      `${'x'.repeat(MAX_SERVER_TIMING_NAME_CHARS + 1)};dur=900`,
      'odd!name;dur=800',
      'Total;dur=5',
      'total;dur=7',
      ...many,
      'late;dur=3',
    ];
    const kept = keptMetrics(parseServerTiming(header.join(', ')));
    expect(kept.map((m) => m.name)).toEqual(['Total', ...Array.from({ length: MAX_SERVER_TIMING_METRICS - 1 }, (_, i) => `m${i}`)]);
    // A configured name counts against no bound, wherever it comes.
    expect(keptMetrics(parseServerTiming(header.join(', ')), ['late']).map((m) => m.name)).toContain('late');
    const timings = readHeaderTimings(new Headers({ 'server-timing': header.join(', ') })).timings;
    expect(Object.keys(timings)).toHaveLength(MAX_SERVER_TIMING_METRICS);
    expect(serverTimingClaims(parseServerTiming(header.join(', ')))).toHaveLength(MAX_SERVER_TIMING_METRICS);
  });

  it('takes configured entries only of kept names', () => {
    expect(validServerTimingEntry('queue+prefill')).toBe(true);
    expect(validServerTimingEntry('cfOrigin')).toBe(true);
    expect(validServerTimingEntry('odd!name')).toBe(false);
    expect(validServerTimingEntry('x'.repeat(MAX_SERVER_TIMING_NAME_CHARS + 1))).toBe(false);
  });
});

describe('split sources of unconfigured Server-Timing names', () => {
  const target = { id: 't' };
  it('admits the first MAX_SPLIT_SOURCES_PER_TARGET per target; the rest are server-timing.other', () => {
    const book = new MemorySplitSourceBook();
    const names = Array.from({ length: MAX_SPLIT_SOURCES_PER_TARGET + 3 }, (_, i) => `server-timing.q${i}`);
    const stored = names.map((n) => boundedSplitSource(n, target, book));
    expect(stored).toEqual([
      ...names.slice(0, MAX_SPLIT_SOURCES_PER_TARGET),
      ...names.slice(MAX_SPLIT_SOURCES_PER_TARGET).map(() => OTHER_SPLIT_SOURCE),
    ]);
    // An admitted name keeps its place; another target has a book of its own.
    expect(boundedSplitSource(names[0], target, book)).toBe(names[0]);
    expect(boundedSplitSource(names[5], { id: 'u' }, book)).toBe(names[5]);
  });

  it('never folds the sources the code names, configured entries, or none', () => {
    const book = new MemorySplitSourceBook();
    for (let i = 0; i < MAX_SPLIT_SOURCES_PER_TARGET; i++) boundedSplitSource(`server-timing.q${i}`, target, book);
    for (const known of ['openai-processing-ms', 'rtt', 'x_groq.usage', 'fireworks-server-time-to-first-token', 'metrics'])
      expect(boundedSplitSource(known, target, book)).toBe(known);
    expect(boundedSplitSource(null, target, book)).toBeNull();
    const configured = { id: 't', serverTimingMetrics: ['queue+prefill', 'cfOrigin'] };
    expect(boundedSplitSource('server-timing.queue+prefill', configured, book)).toBe('server-timing.queue+prefill');
    expect(boundedSplitSource('server-timing.cfOrigin', configured, book)).toBe('server-timing.cfOrigin');
    expect(book.admitted('t')).toHaveLength(MAX_SPLIT_SOURCES_PER_TARGET);
  });
});
