import type { Profile } from './profiles.ts';

/** When each phase ends and each chunk is due, in ms after the request arrived. */
export interface Schedule {
  queueMs: number;
  prefillMs: number;
  /** Due time of each chunk (relative to arrival) and how many tokens it carries. */
  chunks: Array<{ at: number; tokens: number }>;
}

/**
 * The request's timeline: queue (grows with requests in flight), prefill (grows with prompt
 * tokens), then one decode step per token with jitter that grows slowly with position.
 */
export function planSchedule(p: Profile, promptTokens: number, outputTokens: number, inFlight: number, random: () => number = Math.random): Schedule {
  const queueMs = p.queue_base_ms + p.queue_per_concurrent_ms * Math.max(0, inFlight - 1);
  const prefillMs = p.prefill_base_ms + p.prefill_ms_per_token * promptTokens;
  const chunks: Schedule['chunks'] = [];
  let t = queueMs + prefillMs;
  let pending = 0;
  for (let i = 0; i < outputTokens; i++) {
    if (i > 0) {
      const slowdown = 1 + (p.kv_growth_per_1k * i) / 1000;
      const jitter = 1 + p.decode_jitter * (2 * random() - 1);
      t += p.decode_ms_per_token * slowdown * jitter;
    }
    pending++;
    if (pending === p.tokens_per_chunk || i === outputTokens - 1) {
      chunks.push({ at: t, tokens: pending });
      pending = 0;
    }
  }
  return { queueMs, prefillMs, chunks };
}
