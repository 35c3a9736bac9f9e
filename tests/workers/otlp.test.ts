/**
 * The OTLP/HTTP JSON push over real HTTP: once a region's hour is rolled up, its rows go to the
 * configured collector (a loopback stand-in that checks each body against the OTLP protobuf
 * definitions) with the secret header, as delta ExponentialHistogram points that hold exactly the
 * rollup's buckets; a failed push is retried at a later alarm.
 */
import { describe, expect, it } from 'vitest';
import { env } from 'cloudflare:workers';
import { alarmsUntil, drain } from './drain.ts';
import { config } from './test-config.ts';
import { rollupsIn } from '../../workers/observatory/db/rollups.ts';
import { METHOD_VERSION } from '../../shared/constants.ts';
import { expectConsoleErrors } from './console-errors.ts';
import { fireCron } from './fire-cron.ts';
import { HOUR_MS } from '../../shared/time.ts';

const REGIONS = config.regions.map((r) => r.code);
const HOUR = Date.UTC(2026, 1, 2, 9);

interface Received {
  path: string;
  headers: Record<string, string>;
  body: { resourceMetrics: Array<{ scopeMetrics: Array<{ metrics: Array<Record<string, any>> }> }> };
  verifyError: string | null;
  roundTrip: boolean;
}

const received = async () => (await (await fetch(`${env.OTLP_COLLECTOR}/received`)).json()) as Received[];
const start = (hour: number) => `${BigInt(hour) * 1_000_000n}`;
const pointsOf = (exports: Received[], hour: number, name: string) =>
  exports
    .flatMap((e) => e.body.resourceMetrics[0].scopeMetrics[0].metrics)
    .filter((m) => m.name === name)
    .flatMap((m) => (m.sum ?? m.exponentialHistogram).dataPoints as Array<Record<string, any>>)
    .filter((p) => p.startTimeUnixNano === start(hour));
const label = (p: Record<string, any>, key: string) => p.attributes.find((a: { key: string }) => a.key === key)?.value.stringValue;

describe('OTLP push', () => {
  it('sends each rolled-up hour as protobuf-valid JSON with the secret header, holding the rollup exactly', async () => {
    await fireCron(HOUR);
    await drain(REGIONS);
    for (const region of REGIONS)
      await alarmsUntil(region, async () => (await env.REGION_PROBER.getByName(region).status()).pendingOtlp === 0);
    const exports = (await received()).filter((e) => pointsOf([e], HOUR, 'llm.probes').length > 0);
    expect(exports.length).toBe(REGIONS.length);
    for (const e of exports) {
      expect(e.path).toBe('/v1/metrics');
      expect(e.headers.authorization).toBe('Bearer test-otlp-token');
      expect(e.verifyError).toBeNull();
      expect(e.roundTrip).toBe(true);
    }
    const rows = await rollupsIn(env.DB, { fromHour: HOUR, toHour: HOUR + HOUR_MS, methodVersion: METHOD_VERSION });
    expect(rows.length).toBe(9);
    for (const r of rows) {
      const mine = (name: string) =>
        pointsOf(exports, HOUR, name).filter((p) => label(p, 'region') === r.region && label(p, 'target') === r.target);
      expect(mine('llm.probes').map((p) => p.asInt)).toEqual([String(r.probes)]);
      const ttft = mine('llm.ttft');
      if (r.histograms.ttft_ms.count === 0) {
        expect(ttft).toEqual([]);
        expect(mine('llm.probe.failures').reduce((n, p) => n + Number(p.asInt), 0)).toBe(r.probes);
        continue;
      }
      const [p] = ttft;
      expect(p).toMatchObject({
        count: String(r.histograms.ttft_ms.count),
        scale: r.histograms.ttft_ms.scale,
        timeUnixNano: start(HOUR + HOUR_MS),
        min: r.histograms.ttft_ms.min,
        max: r.histograms.ttft_ms.max,
      });
      // The dense buckets from `offset` hold exactly the rollup's sparse ones.
      const buckets = new Map<number, number>();
      (p.positive.bucketCounts as string[]).forEach((c, k) => {
        if (c !== '0') buckets.set(p.positive.offset + k, Number(c));
      });
      expect([...buckets.entries()].sort((a, b) => a[0] - b[0])).toEqual(
        [...r.histograms.ttft_ms.buckets.entries()].sort((a, b) => a[0] - b[0]),
      );
      for (const source of r.split.keys()) expect(mine('llm.ttft.network').some((q) => label(q, 'split_source') === source)).toBe(true);
    }
  });

  it('keeps an hour whose push failed, and sends it at a later alarm', async () => {
    const hour = HOUR + 3 * HOUR_MS;
    const stub = env.REGION_PROBER.getByName('weur');
    expectConsoleErrors(/OTLP push of hour .* failed, kept for retry: OTLP collector 127\.0\.0\.1:\d+ answered 503/);
    await fetch(`${env.OTLP_COLLECTOR}/fail-next`, { method: 'POST' });
    await fireCron(hour);
    await drain(REGIONS);
    await alarmsUntil('weur', async () => (await stub.status()).lastOtlpError !== null || (await stub.status()).pendingOtlp === 0);
    // One of the regions met the failure; each ends up sent once the collector answers again.
    for (const region of REGIONS)
      await alarmsUntil(region, async () => (await env.REGION_PROBER.getByName(region).status()).pendingOtlp === 0);
    for (const region of REGIONS)
      await alarmsUntil(region, async () => (await env.REGION_PROBER.getByName(region).status()).pendingOtlp === 0);
    const sent = pointsOf(await received(), hour, 'llm.probes');
    expect(new Set(sent.map((p) => label(p, 'region')))).toEqual(new Set(REGIONS));
  });
});
