/**
 * The prompt-cache probe through the Worker, against the real reference endpoint: a prompt-cache job sends its
 * 2,048-token prompt twice (Anthropic's cache_control on the prefix), the second pass reads the prefix from
 * the endpoint's cache and says so; the rollup writes one block an hour, and GET /api/v1/prompt-cache turns
 * them into a discount on TTFT and on server time, with the cached tokens the provider reported.
 */
import { describe, expect, it } from 'vitest';
import { SELF, env } from 'cloudflare:test';
import { insertSamples } from '../../workers/observatory/db/samples.ts';
import { rollUpHour } from '../../workers/observatory/rollup/rollup-hour.ts';
import { runCacheJob } from '../../workers/observatory/probe/probe-job.ts';
import { findRegion, findTarget, getConfig } from '../../workers/observatory/config.ts';
import { withWarmPasses } from '../../shared/config/work-list.ts';
import type { PromptVariantConfig, TargetConfig } from '../../shared/config/types.ts';
import { HOUR_MS } from '../../shared/time.ts';
import type { StoredSample } from '../../workers/observatory/db/sample-row.ts';
import type { PromptCachesDoc } from '../../shared/api-types.ts';

const START = Date.UTC(2026, 6, 1);
// 18 hours: 6 blocks of 3 (the shortest block, shared/stats/block-length.ts), the fewest a 95 % interval needs,
// when the hours' measured correlation asks for no longer blocks.
const HOURS = 18;
const TICKS_PER_HOUR = 1;

// The tests' configuration has no prompt-cache target (its tick counts stay as they are): one is made here, from its
// Anthropic target, as validate.ts would have it.
const CACHE_VARIANT: PromptVariantConfig = { id: 'cache', label: 'Prompt cache', promptTokens: 2_048, maxTokens: 4, promptCache: true };
const [, WARM] = withWarmPasses([CACHE_VARIANT]);

describe('the prompt-cache probe', () => {
  it('measures both passes, reads the discount from one row an hour, and reports the cached tokens', async () => {
    const region = findRegion('weur')!;
    const target: TargetConfig = { ...findTarget('ref-messages')!, promptCache: true };
    const variant = CACHE_VARIANT;
    const probeEnv = { referenceUrl: env.REFERENCE_URL, secrets: env as unknown as Record<string, unknown>, colo: null, simulated: true };
    const samples: StoredSample[] = [];
    for (let h = 0; h < HOURS; h++)
      for (let k = 0; k < TICKS_PER_HOUR; k++) {
        const tickId = START + h * HOUR_MS + k * 300_000;
        const [first, second] = await runCacheJob(
          { tickId, target: target.id, variant: variant.id, backfill: true, position: 0 },
          region,
          target,
          variant,
          WARM,
          getConfig(),
          probeEnv,
        );
        expect([first.error, second.error]).toEqual([null, null]);
        expect([first.prompt_variant, second.prompt_variant]).toEqual(['cache', 'cache-warm']);
        expect([first.cache_pass, second.cache_pass]).toEqual([1, 2]);
        expect([first.tick_id, second.tick_id]).toEqual([tickId, tickId]);
        // A fresh nonce each tick: the first pass finds nothing; the second reads whole 128-token blocks of the prefix.
        expect(first.cached_tokens).toBe(0);
        expect(second.cached_tokens).toBeGreaterThanOrEqual(1_024);
        expect(second.cached_tokens! % 128).toBe(0);
        expect(second.cached_tokens).toBeLessThanOrEqual(first.prompt_tokens);
        // Anthropic's input_tokens leaves out what the cache wrote (first pass) or read (second): both count only the rest.
        expect(second.input_tokens).toBe(first.input_tokens);
        expect(second.input_tokens).toBeLessThan(first.prompt_tokens / 4);
        samples.push(first, second);
      }
    await insertSamples(env.DB, samples);
    for (let h = 0; h < HOURS; h++) await rollUpHour(env.DB, 'weur', START + h * HOUR_MS);
    const stored = await env.DB.prepare(
      'SELECT hour, n, n_server, wins_server, reported, hits FROM cache_hours WHERE region = ? ORDER BY hour',
    )
      .bind('weur')
      .all();
    expect(stored.results).toEqual(
      Array.from({ length: HOURS }, (_, h) => ({
        hour: START + h * HOUR_MS,
        n: TICKS_PER_HOUR,
        // Server time's own counts (both passes had a split; the second's server time was the lower).
        n_server: TICKS_PER_HOUR,
        wins_server: TICKS_PER_HOUR,
        reported: TICKS_PER_HOUR,
        hits: TICKS_PER_HOUR,
      })),
    );

    const url = `http://observatory/api/v1/prompt-cache?region=weur&from=${new Date(START).toISOString()}&to=${new Date(START + HOURS * HOUR_MS).toISOString()}`;
    const res = await SELF.fetch(url);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as PromptCachesDoc;
    expect(doc.caches.map((x) => [x.region, x.target, x.prompt_variant])).toEqual([['weur', 'ref-messages', 'cache']]);
    const [cache] = doc.caches;
    expect(cache.ttft.pairs).toBe(HOURS * TICKS_PER_HOUR);
    expect(cache.ttft.hours).toBe(HOURS);
    // The endpoint prefills a cached token at a tenth of a fresh one's cost: about 0.46 s of a 0.52 s prefill saved.
    expect(cache.ttft.discount_pct).toBeGreaterThan(20);
    // Its interval needs 6 blocks: 3-hour blocks of these 18 hours. A busy machine can make neighbouring hours alike
    // (every pass slower for a while); the blocks then join more hours, and the verdict waits for more ticks.
    expect(cache.ttft.block_hours).toBeGreaterThanOrEqual(3);
    if (cache.ttft.block_hours === 3) {
      expect(cache.ttft.ci_low_pct!).toBeLessThanOrEqual(cache.ttft.discount_pct!);
      expect(cache.ttft.ci_high_pct!).toBeGreaterThanOrEqual(cache.ttft.discount_pct!);
      expect(cache.ttft.verdict).toBe('faster');
    } else {
      expect([cache.ttft.ci_low_pct, cache.ttft.ci_high_pct, cache.ttft.verdict]).toEqual([null, null, 'not_enough_data']);
      expect(cache.ttft.more_ticks).toBeGreaterThan(0);
    }
    expect(cache.server.discount_pct).toBeGreaterThan(20);
    expect(cache.server).toMatchObject({ pairs: HOURS * TICKS_PER_HOUR, win_rate: 1 });
    expect(cache.cached_tokens.reported).toBe(HOURS * TICKS_PER_HOUR);
    expect(cache.cached_tokens.hit_rate).toBe(1);
    expect(cache.cached_tokens.mean).toBeGreaterThanOrEqual(1_024);
  });

  it('refuses unknown parameters and bad margins', async () => {
    expect((await SELF.fetch('http://observatory/api/v1/prompt-cache?variant=x')).status).toBe(400);
    expect((await SELF.fetch('http://observatory/api/v1/prompt-cache?margin=90')).status).toBe(400);
    // No target of the tests' configuration opts in, and ref-chat has no stored blocks: nothing to report.
    const none = (await (await SELF.fetch('http://observatory/api/v1/prompt-cache?target=ref-chat')).json()) as PromptCachesDoc;
    expect(none.caches).toEqual([]);
    expect((await SELF.fetch('http://observatory/api/v1/prompt-cache?target=nope')).status).toBe(400);
  });
});
