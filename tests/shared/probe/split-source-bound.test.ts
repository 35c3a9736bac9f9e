/**
 * A vendor whose Server-Timing names a fresh random metric on every response (tests/helpers/hostile-server.ts)
 * cannot grow the rollups or the series without end: over 1,000 ticks of real probes on loopback, through
 * the samples, their hourly rollups and running totals, to the /metrics text and the OTLP body, a target has
 * at most MAX_SPLIT_SOURCES_PER_TARGET split sources of its unconfigured names, plus `server-timing.other`;
 * each sample keeps a bounded set of short, plain metric names. (tests/workers/split-sources.test.ts runs
 * the same vendor through the region's object in workerd, its book in the object's storage.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProbe } from '../../../shared/probe/probe.ts';
import { MAX_SPLIT_SOURCES_PER_TARGET, MemorySplitSourceBook, OTHER_SPLIT_SOURCE } from '../../../shared/probe/split-sources.ts';
import { MAX_SERVER_TIMING_METRICS, MAX_SERVER_TIMING_NAME_CHARS } from '../../../shared/probe/server-timing.ts';
import { applyToTotals, hourOf, rollUp, type Rollup, type RollupSample } from '../../../shared/rollup/rollup.ts';
import { otlpMetricsRequest } from '../../../shared/rollup/otlp.ts';
import { prometheusText } from '../../../workers/observatory/api/prometheus.ts';
import { MINUTE_MS } from '../../../shared/time.ts';
import { startHostileServer, type HostileServer } from '../../helpers/hostile-server.ts';
import type { ProbeTarget } from '../../../shared/types.ts';

const TICKS = 1_000;
const TICK_MS = 5 * MINUTE_MS;
const FIRST_TICK = Date.UTC(2026, 3, 1);
/** Probes at once (the vendor answers each in a few ms): the ticks take a few seconds in all. */
const AT_ONCE = 8;
/** The split sources a target may show: its admitted names and `other` (the stream's other sources: none). */
const MOST_SOURCES = MAX_SPLIT_SOURCES_PER_TARGET + 1;
/** A split histogram's lines in /metrics: its bucket bounds (prometheus.ts SECONDS_BOUNDS), +Inf, _sum and _count. */
const SECONDS_BUCKETS = 13;

let vendor: HostileServer;
beforeAll(async () => {
  vendor = await startHostileServer();
});
afterAll(() => vendor.close());

describe('split sources of a vendor naming a random metric each time', () => {
  it(`stay bounded over ${TICKS} ticks: samples, rollups, running totals, /metrics and OTLP`, { timeout: 120_000 }, async () => {
    const target: ProbeTarget = { id: 'hostile', api: 'openai-chat', url: `${vendor.url}/vendor/v1/chat/completions`, model: 'm' };
    const book = new MemorySplitSourceBook();
    const samples: RollupSample[] = [];
    for (let tick = 0; tick < TICKS; tick += AT_ONCE) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(AT_ONCE, TICKS - tick) }, async (_, k) => {
          const { sample } = await runProbe({ target, prompt: { id: 'tiny', promptTokens: 16, maxTokens: 8 }, splitSources: book });
          return { ...sample, tick_id: FIRST_TICK + (tick + k) * TICK_MS, region: 'weur' };
        }),
      );
      for (const s of batch) {
        expect(s.error, s.error_detail ?? '').toBeNull();
        // The raw claims: bounded in number, every name short and plain (the long and the odd one dropped).
        const names = Object.keys(s.server_timings).map((k) => k.replace(/^server-timing\./, ''));
        expect(names.length).toBeLessThanOrEqual(MAX_SERVER_TIMING_METRICS);
        for (const n of names) expect(n.length <= MAX_SERVER_TIMING_NAME_CHARS && /^[A-Za-z0-9_.-]+$/.test(n), n).toBe(true);
        samples.push(s);
      }
    }
    // Every response named a metric of its own, and it was the split's claim.
    expect(new Set(vendor.names).size).toBeGreaterThanOrEqual(TICKS);
    const sources = new Set(samples.map((s) => s.split_source));
    expect(sources.size).toBeLessThanOrEqual(MOST_SOURCES);
    expect(sources.has(OTHER_SPLIT_SOURCE)).toBe(true);
    for (const s of sources) expect(s === OTHER_SPLIT_SOURCE || /^server-timing\.q[0-9a-f]{12}$/.test(s ?? ''), String(s)).toBe(true);

    // The hourly rollups and the running totals, hour by hour, as the region's rollup duty writes them.
    const hours = new Map<number, RollupSample[]>();
    for (const s of samples) hours.set(hourOf(s.tick_id), [...(hours.get(hourOf(s.tick_id)) ?? []), s]);
    let totals: Rollup[] = [];
    const rows: Rollup[] = [];
    for (const hourSamples of hours.values()) {
      const fresh = rollUp(hourSamples);
      rows.push(...fresh);
      totals = applyToTotals(totals, [], fresh);
    }
    expect(hours.size).toBeGreaterThan(80);
    const rowSources = new Set(rows.flatMap((r) => [...r.split.keys()]));
    expect(rowSources.size).toBeLessThanOrEqual(MOST_SOURCES);
    expect(totals).toHaveLength(1);
    expect(totals[0].split.size).toBeLessThanOrEqual(MOST_SOURCES);

    // /metrics: one histogram per split source for each part of the split, and nothing else grows with them.
    const text = prometheusText(totals);
    for (const family of ['llm_ttft_network_seconds', 'llm_ttft_server_seconds']) {
      const series = text.split('\n').filter((l) => l.startsWith(`${family}_count{`));
      expect(series.length, family).toBeLessThanOrEqual(MOST_SOURCES);
    }
    const withoutSplit = prometheusText([{ ...totals[0], split: new Map() }]).split('\n').length;
    expect(text.split('\n').length - withoutSplit).toBeLessThanOrEqual(2 * MOST_SOURCES * (SECONDS_BUCKETS + 3));

    // OTLP: every hour's points carry one of the same few sources.
    const body = otlpMetricsRequest(rows, 'test');
    const network = body.resourceMetrics[0].scopeMetrics[0].metrics.find((m) => m.name === 'llm.ttft.network')!;
    const points = (
      network as { exponentialHistogram: { dataPoints: Array<{ attributes: Array<{ key: string; value: { stringValue?: string } }> }> } }
    ).exponentialHistogram.dataPoints;
    const otlpSources = new Set(points.map((p) => p.attributes.find((a) => a.key === 'split_source')?.value.stringValue));
    expect(otlpSources.size).toBeLessThanOrEqual(MOST_SOURCES);
  });
});
