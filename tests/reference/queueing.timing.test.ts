/**
 * The reference endpoint's queueing model, measured as the observatory measures it: L real probes
 * started together against the batching model (one replica, by its x-ref-region), their median server
 * time's growth over one alone and their median TPOT's factor, against what latency-model.ts states.
 */
import { describe, expect, inject, it } from 'vitest';
import { runProbe } from '../../shared/probe.ts';
import { percentile } from '../../shared/stats/percentile.ts';
import { expectedQueueing } from '../../workers/reference/latency-model.ts';
import { MODELS } from '../../workers/reference/profiles.ts';

const url = inject('referenceUrl');
const profile = MODELS['ref-batching'];
/** No jitter and no prefill per token: what varies with the level is the model's queue and batch slowdown alone. */
const PARAMS = 'decode_jitter=0, kv_growth_per_1k=0, keep_alive_ms=0';

async function level(n: number, replica: string) {
  const results = await Promise.all(Array.from({ length: n }, () => runProbe({
    target: { id: 'ref', api: 'openai-chat', url: `${url}/v1/chat/completions`, model: 'ref-batching', headers: { 'x-ref-params': PARAMS, 'x-ref-region': replica } },
    prompt: { id: 'q', promptTokens: 100, maxTokens: 24 },
  })));
  const samples = results.map((r) => r.sample);
  for (const s of samples) expect(s.error, JSON.stringify(s.error_detail)).toBeNull();
  return { server: percentile(samples.map((s) => s.server_ms!), 0.5)!, tpot: percentile(samples.map((s) => s.tpot_ms!), 0.5)! };
}

describe('queueing on the reference batching model', () => {
  it('follows the stated model: median queue + q·(L−1)/2, median decode step × (1 + d·(L−1)/2)', async () => {
    const replica = `queueing-${Date.now()}`;
    const base = await level(1, replica);
    for (const L of [4, 8, 16]) {
      const m = await level(L, replica);
      const want = expectedQueueing(profile, L);
      const grew = m.server - base.server;
      const factor = m.tpot / base.tpot;
      console.log(`level ${L}: server time +${grew.toFixed(1)} ms (model +${want.addedQueueMs.toFixed(1)}), TPOT ×${factor.toFixed(3)} (model ×${want.decodeFactor.toFixed(3)})`);
      // Stated tolerance: 20 ms + 20 % on the added queue, 10 % on the decode factor (timers and loopback add a little to each).
      expect(Math.abs(grew - want.addedQueueMs)).toBeLessThanOrEqual(20 + 0.2 * want.addedQueueMs);
      expect(Math.abs(factor - want.decodeFactor) / want.decodeFactor).toBeLessThanOrEqual(0.1);
    }
  });
});
