/**
 * A vendor whose Server-Timing names a fresh random metric on every response, probed by a region's object
 * in workerd over real HTTP (tests/helpers/hostile-server.ts): its samples in D1, their hourly rollups, the
 * running totals behind /metrics and the OTLP pushes carry at most MAX_SPLIT_SOURCES_PER_TARGET split
 * sources of its names, plus `server-timing.other`; the region's book of them lives in its own storage.
 * (tests/shared/probe/split-source-bound.test.ts drives 1,000 ticks of the same vendor through the same code in Node.)
 */
import { describe, expect, inject, it } from 'vitest';
import { runInDurableObject, SELF } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { getConfig } from '../../workers/observatory/config.ts';
import type { RegionProber } from '../../workers/observatory/prober/region-prober.ts';
import { rollupsIn } from '../../workers/observatory/db/rollups.ts';
import { MAX_SPLIT_SOURCES_PER_TARGET, OTHER_SPLIT_SOURCE } from '../../shared/probe/split-sources.ts';
import { HOUR_MS, MINUTE_MS } from '../../shared/time.ts';
import { alarmsUntil, drain } from './drain.ts';

const REGION = 'weur';
const TARGET = 'hostile-timing';
// Ticks of their own (every 5 minutes over two hours of 2026-04-09), so no other test's samples share their hours.
const FIRST_HOUR = Date.UTC(2026, 3, 9, 2);
const TICKS = Array.from({ length: 24 }, (_, i) => FIRST_HOUR + i * 5 * MINUTE_MS);
/** Its admitted names and `other`: the stream has no source of another kind. */
const MOST_SOURCES = MAX_SPLIT_SOURCES_PER_TARGET + 1;

interface Received {
  body: { resourceMetrics: Array<{ scopeMetrics: Array<{ metrics: Array<Record<string, any>> }> }> };
}
const label = (p: Record<string, any>, key: string): string | undefined =>
  p.attributes.find((a: { key: string }) => a.key === key)?.value.stringValue;

describe('split sources of a vendor naming a random metric each time, in a region', () => {
  it('stay bounded in the samples, the rollups, /metrics and the OTLP pushes', async () => {
    const config = getConfig();
    config.targets.push({
      id: TARGET,
      label: 'Random Server-Timing names',
      provider: 'Hostile',
      api: 'openai-chat',
      url: `${inject('hostileServerUrl')}/vendor/v1/chat/completions`,
      model: 'm',
      regions: [REGION],
    });
    const stub = env.REGION_PROBER.getByName(REGION);
    try {
      await runInDurableObject(stub, (instance: RegionProber) =>
        instance.enqueue(
          REGION,
          TICKS.map((tickId) => ({ tickId, target: TARGET, variant: 'tiny', backfill: false })),
        ),
      );
      await drain([REGION]);
      await alarmsUntil(REGION, async () => {
        const s = await stub.status();
        return s.pendingRollups === 0 && s.pendingOtlp === 0;
      });
    } finally {
      config.targets.splice(
        config.targets.findIndex((t) => t.id === TARGET),
        1,
      );
    }

    const rows = (
      await env.DB.prepare('SELECT split_source, error FROM samples WHERE target = ? AND region = ?')
        .bind(TARGET, REGION)
        .all<{ split_source: string | null; error: string | null }>()
    ).results;
    expect(rows).toHaveLength(TICKS.length);
    expect(rows.filter((r) => r.error !== null)).toEqual([]);
    const sources = new Set(rows.map((r) => r.split_source));
    expect(sources.size).toBeLessThanOrEqual(MOST_SOURCES);
    expect(sources.has(OTHER_SPLIT_SOURCE)).toBe(true);

    const rollups = (await rollupsIn(env.DB, { fromHour: FIRST_HOUR, toHour: FIRST_HOUR + 2 * HOUR_MS, regions: [REGION] })).filter(
      (r) => r.target === TARGET,
    );
    expect(rollups).toHaveLength(2);
    expect(new Set(rollups.flatMap((r) => [...r.split.keys()])).size).toBeLessThanOrEqual(MOST_SOURCES);

    const metrics = await (await SELF.fetch(`https://observatory.test/metrics?region=${REGION}`)).text();
    for (const family of ['llm_ttft_network_seconds', 'llm_ttft_server_seconds']) {
      const series = metrics.split('\n').filter((l) => l.startsWith(`${family}_count{`) && l.includes(`target="${TARGET}"`));
      expect(series.length, family).toBeGreaterThan(0);
      expect(series.length, family).toBeLessThanOrEqual(MOST_SOURCES);
    }

    const exports = (await (await fetch(`${env.OTLP_COLLECTOR}/received`)).json()) as Received[];
    const points = exports
      .flatMap((e) => e.body?.resourceMetrics[0].scopeMetrics[0].metrics ?? [])
      .filter((m) => m.name === 'llm.ttft.network')
      .flatMap((m) => m.exponentialHistogram.dataPoints as Array<Record<string, any>>)
      .filter((p) => label(p, 'target') === TARGET);
    expect(points.length).toBeGreaterThan(0);
    expect(new Set(points.map((p) => label(p, 'split_source'))).size).toBeLessThanOrEqual(MOST_SOURCES);

    // The book the bound is kept in: this region's own storage, full.
    const book = await runInDurableObject(stub, (_: RegionProber, state: DurableObjectState) =>
      state.storage.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'split_sources'").one(),
    );
    expect(JSON.parse(book.value)[TARGET]).toHaveLength(MAX_SPLIT_SOURCES_PER_TARGET);
  });
});
