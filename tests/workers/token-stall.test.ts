/**
 * A service account's token endpoint that never answers (tests/helpers/hostile-server.ts, on loopback),
 * probed by a region's object in workerd: the job gives one `timeout_headers` sample within the probe's
 * total bound, and it holds only its own lane: the region's other target is probed meanwhile.
 */
import { describe, expect, inject, it } from 'vitest';
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { exportPKCS8, generateKeyPair } from 'jose';
import { getConfig, type Job } from '../../workers/observatory/config.ts';
import type { RegionProber } from '../../workers/observatory/prober/region-prober.ts';
import { drain } from './drain.ts';

const REGION = 'apac';
const STALLED = 'vertex-stalled';
const OTHER = 'ref-chat';
// Ticks of their own (2026-04-10), so no other test's samples share their keys.
const TICKS = [0, 1, 2].map((i) => Date.UTC(2026, 3, 10, 4, i * 5));
/** The token bound here: the least of the token timeout, headersMs and totalMs (auth.ts tokenTimeoutMs). */
const HEADERS_MS = 3_000;

type Measure = (job: Job, ...rest: unknown[]) => Promise<unknown>;

describe('a token endpoint that never answers, in a region', () => {
  it('gives one timeout_headers sample within the total bound, and holds only its own lane', async () => {
    const pair = await generateKeyPair('RS256', { extractable: true });
    const keyFile = JSON.stringify({
      type: 'service_account',
      client_email: 'probe@observatory-test.iam.gserviceaccount.com',
      private_key: await exportPKCS8(pair.privateKey),
      token_uri: `${inject('hostileServerUrl')}/token/stall`,
    });
    const config = getConfig();
    const saved = { concurrency: config.concurrency, timeouts: config.timeouts };
    config.concurrency = 2;
    config.timeouts = { ...config.timeouts, headersMs: HEADERS_MS };
    config.targets.push({
      id: STALLED,
      label: 'Vertex AI, token endpoint stalled',
      provider: 'Google',
      api: 'gemini',
      url: '{REFERENCE_URL}/v1beta/models/{model}:streamGenerateContent?alt=sse',
      model: 'ref-fast-small',
      auth: { type: 'google-service-account', secret: 'STALLED_SA_KEY' },
      regions: [REGION],
    });
    const spans = new Map<string, { start: number; end: number }>();
    const stub = env.REGION_PROBER.getByName(REGION);
    try {
      await runInDurableObject(stub, async (instance: RegionProber) => {
        const prober = instance as unknown as { measure: Measure; env: Env };
        prober.env = new Proxy(prober.env, {
          get: (target, key) => (key === 'STALLED_SA_KEY' ? keyFile : Reflect.get(target, key, target)),
        });
        const measure = prober.measure.bind(instance);
        prober.measure = async (job, ...rest) => {
          const start = Date.now();
          try {
            return await measure(job, ...rest);
          } finally {
            spans.set(`${job.target}|${job.tickId}`, { start, end: Date.now() });
          }
        };
        await instance.enqueue(REGION, [
          { tickId: TICKS[0], target: STALLED, variant: 'tiny', backfill: false },
          ...TICKS.map((tickId) => ({ tickId, target: OTHER, variant: 'tiny', backfill: false })),
        ]);
      });
      await drain([REGION]);
    } finally {
      config.concurrency = saved.concurrency;
      config.timeouts = saved.timeouts;
      config.targets.splice(
        config.targets.findIndex((t) => t.id === STALLED),
        1,
      );
    }

    const rows = (
      await env.DB.prepare(
        `SELECT target, tick_id, error, error_detail, status FROM samples WHERE region = ? AND tick_id IN (${TICKS.map(() => '?').join(', ')})`,
      )
        .bind(REGION, ...TICKS)
        .all<{ target: string; tick_id: number; error: string | null; error_detail: string | null; status: number | null }>()
    ).results;
    const stalled = rows.filter((r) => r.target === STALLED);
    expect(stalled).toHaveLength(1);
    expect(stalled[0]).toMatchObject({ error: 'timeout_headers', status: null });
    expect(stalled[0].error_detail).toMatch(/^authorisation failed: token request to 127\.0\.0\.1:\d+: no answer within 3000 ms$/);
    const others = rows.filter((r) => r.target === OTHER);
    expect(others).toHaveLength(TICKS.length);
    expect(others.filter((r) => r.error !== null)).toEqual([]);

    // The stalled job took its token bound, within the probe's total bound.
    const held = spans.get(`${STALLED}|${TICKS[0]}`)!;
    expect(held.end - held.start).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    expect(held.end - held.start).toBeLessThan(saved.timeouts.totalMs);
    // Meanwhile the other lane went on: probes of the other target began and ended while it was held.
    const during = TICKS.map((t) => spans.get(`${OTHER}|${t}`)!).filter((s) => s.start >= held.start && s.end <= held.end);
    expect(during.length).toBeGreaterThan(0);
  });
});
