import type { Profile } from './profiles.ts';

/** When each phase ends and each chunk is due, in ms after the request arrived. */
export interface Schedule {
  queueMs: number;
  prefillMs: number;
  /** Due time of each chunk (relative to arrival) and how many tokens it carries. */
  chunks: Array<{ at: number; tokens: number }>;
}

/**
 * The request's timeline, for a request arriving while its replica serves `inFlight` requests (itself
 * included):
 *   queue        = queue_base_ms + queue_per_concurrent_ms × (inFlight − 1)
 *   prefill      = prefill_base_ms + prefill_ms_per_token × (prompt tokens − cached + cached_prefill_factor × cached)
 *   decode step  = decode_ms_per_token × (1 + decode_per_concurrent × (inFlight − 1))
 *                  × (1 + kv_growth_per_1k × position / 1000) × (1 ± decode_jitter)
 * So L requests arriving together see 1 … L in flight: their median queue grows by
 * queue_per_concurrent_ms × (L − 1) / 2 over one alone, and their median decode step by the factor
 * 1 + decode_per_concurrent × (L − 1) / 2 (expectedQueueing below; tested against measured bursts).
 */
export function planSchedule(
  p: Profile,
  promptTokens: number,
  outputTokens: number,
  inFlight: number,
  random: () => number = Math.random,
  cachedTokens = 0,
): Schedule {
  const others = Math.max(0, inFlight - 1);
  const queueMs = p.queue_base_ms + p.queue_per_concurrent_ms * others;
  const batchSlowdown = 1 + p.decode_per_concurrent * others;
  const cached = Math.min(cachedTokens, promptTokens);
  const prefillMs = p.prefill_base_ms + p.prefill_ms_per_token * (promptTokens - cached + p.cached_prefill_factor * cached);
  const chunks: Schedule['chunks'] = [];
  let t = queueMs + prefillMs;
  let pending = 0;
  for (let i = 0; i < outputTokens; i++) {
    if (i > 0) {
      const slowdown = 1 + (p.kv_growth_per_1k * i) / 1000;
      const jitter = 1 + p.decode_jitter * (2 * random() - 1);
      t += p.decode_ms_per_token * batchSlowdown * slowdown * jitter;
    }
    pending++;
    if (pending === p.tokens_per_chunk || i === outputTokens - 1) {
      chunks.push({ at: t, tokens: pending });
      pending = 0;
    }
  }
  return { queueMs, prefillMs, chunks };
}

/**
 * What the model predicts for L requests arriving together (the k-th sees k in flight): the median
 * added queue over one request alone, and the median decode step's factor.
 */
export function expectedQueueing(
  p: Pick<Profile, 'queue_per_concurrent_ms' | 'decode_per_concurrent'>,
  level: number,
): { addedQueueMs: number; decodeFactor: number } {
  const medianOthers = (level - 1) / 2;
  return { addedQueueMs: p.queue_per_concurrent_ms * medianOthers, decodeFactor: 1 + p.decode_per_concurrent * medianOthers };
}
