/**
 * Latency profiles of the reference models, grounded in how inference servers behave: a queue that
 * grows with concurrent requests, prefill proportional to prompt tokens, decode per token with
 * jitter that grows slowly with position (KV cache), an optional reasoning phase (streamed, or
 * hidden but still decoded and counted), optional multi-token chunks, keep-alives while queued.
 * Every field can be overridden per request with the `x-ref-params` header
 * (`name=value, name=value`, the snake_case names below).
 */
export interface Profile {
  /** Fixed scheduling delay before prefill starts. */
  queue_base_ms: number;
  /** Added queueing per other request in flight on its replica (latency-model.ts states the model). */
  queue_per_concurrent_ms: number;
  /** Relative decode slowdown per other request in flight: a batch shares each decode step. */
  decode_per_concurrent: number;
  /** Concurrent requests a replica accepts; beyond, 429 with retry-after (0 = no limit). */
  max_concurrent: number;
  prefill_base_ms: number;
  prefill_ms_per_token: number;
  /** A prompt token read from the prompt cache costs this share of a fresh one's prefill (prefix-cache.ts). */
  cached_prefill_factor: number;
  decode_ms_per_token: number;
  /** Relative jitter of each decode step (0.1 = ±10 %). */
  decode_jitter: number;
  /** Relative decode slowdown per 1,000 positions (KV cache growth). */
  kv_growth_per_1k: number;
  /**
   * Reasoning tokens the model wants before its answer (part of max_tokens; the request's reasoning
   * effort or thinking budget scales or caps them, see reasoning-tokens.ts). When they reach
   * max_tokens the whole budget goes to reasoning and no answer token is generated.
   */
  reasoning_tokens: number;
  /**
   * 1: reasoning is streamed (reasoning_content, summary deltas, thinking blocks, thought parts);
   * 0: hidden, as OpenAI's o-series on Chat Completions: decoded (time passes) and counted in usage,
   * but nothing is sent for it.
   */
  reasoning_streamed: number;
  /** Tokens per streamed chunk (batching servers send several). */
  tokens_per_chunk: number;
  /** 1: headers at once, then queue and prefill; 0: headers held until the first token. */
  headers_at_once: number;
  /** Interval of keep-alive comments/pings while queued or prefilling (0 = none). */
  keep_alive_ms: number;
  /** 1: also send vendor-style timings (openai-processing-ms header, vLLM-style `metrics`). */
  vendor_timing: number;
  /**
   * Faults: how long slow headers wait, when a stall starts, how long it holds, how big `huge` is,
   * how much server time `bad-server-timing` claims before headers that really left at once.
   */
  slow_headers_ms: number;
  stall_after_tokens: number;
  stall_ms: number;
  huge_mb: number;
  bad_server_timing_ms: number;
}

const BASE: Profile = {
  queue_base_ms: 5,
  queue_per_concurrent_ms: 5,
  decode_per_concurrent: 0,
  max_concurrent: 0,
  prefill_base_ms: 20,
  prefill_ms_per_token: 0.1,
  cached_prefill_factor: 0.1,
  decode_ms_per_token: 10,
  decode_jitter: 0.15,
  kv_growth_per_1k: 0.05,
  reasoning_tokens: 0,
  reasoning_streamed: 1,
  tokens_per_chunk: 1,
  headers_at_once: 1,
  keep_alive_ms: 0,
  vendor_timing: 0,
  slow_headers_ms: 5_000,
  stall_after_tokens: 3,
  stall_ms: 30_000,
  huge_mb: 24,
  bad_server_timing_ms: 5_000,
};

/** The named reference models. */
export const MODELS: Record<string, Profile> = {
  /** A small, fast model: little queueing, quick prefill, ~125 tokens/s. */
  'ref-fast-small': {
    ...BASE,
    queue_base_ms: 2,
    queue_per_concurrent_ms: 3,
    prefill_base_ms: 15,
    prefill_ms_per_token: 0.08,
    decode_ms_per_token: 8,
  },
  /** A large model that holds its headers until the first token: slow prefill, ~30 tokens/s. */
  'ref-slow-large': {
    ...BASE,
    queue_base_ms: 20,
    queue_per_concurrent_ms: 15,
    prefill_base_ms: 120,
    prefill_ms_per_token: 0.5,
    decode_ms_per_token: 32,
    decode_jitter: 0.2,
    kv_growth_per_1k: 0.1,
    headers_at_once: 0,
    vendor_timing: 1,
  },
  /** A reasoning model: streams reasoning before the answer, with keep-alives while it prefills. */
  'ref-reasoning': {
    ...BASE,
    queue_base_ms: 10,
    prefill_base_ms: 60,
    prefill_ms_per_token: 0.3,
    decode_ms_per_token: 12,
    reasoning_tokens: 48,
    keep_alive_ms: 25,
  },
  /**
   * A reasoning model that hides its reasoning (OpenAI o-series/gpt-5 on Chat Completions, Gemini
   * without includeThoughts): headers at once, ~300 reasoning tokens decoded in silence (~3 s), then
   * the answer at 10 ms/token. Its reasoning alone exceeds the default max_tokens (256): ask for more
   * tokens, a lower effort or a smaller thinking budget to get an answer.
   */
  'ref-hidden-reasoning': {
    ...BASE,
    queue_base_ms: 10,
    prefill_base_ms: 60,
    prefill_ms_per_token: 0.3,
    decode_ms_per_token: 10,
    reasoning_tokens: 300,
    reasoning_streamed: 0,
  },
  /**
   * A batching server: long queue under load, each decode step slower as the batch grows (4 % per
   * other request), several tokens per chunk, vendor timings in the body.
   */
  'ref-batching': {
    ...BASE,
    queue_base_ms: 40,
    queue_per_concurrent_ms: 25,
    decode_per_concurrent: 0.04,
    prefill_base_ms: 30,
    prefill_ms_per_token: 0.2,
    decode_ms_per_token: 6,
    tokens_per_chunk: 4,
    keep_alive_ms: 20,
    vendor_timing: 1,
  },
};

export const DEFAULT_MODEL = 'ref-fast-small';

/** Bounds of each override, so no request can ask for more than a deployed endpoint allows. */
const LIMITS: Record<keyof Profile, [number, number]> = {
  queue_base_ms: [0, 30_000],
  queue_per_concurrent_ms: [0, 10_000],
  decode_per_concurrent: [0, 10],
  max_concurrent: [0, 10_000],
  prefill_base_ms: [0, 30_000],
  prefill_ms_per_token: [0, 100],
  cached_prefill_factor: [0, 1],
  decode_ms_per_token: [0, 5_000],
  decode_jitter: [0, 1],
  kv_growth_per_1k: [0, 10],
  reasoning_tokens: [0, 4_096],
  reasoning_streamed: [0, 1],
  tokens_per_chunk: [1, 64],
  headers_at_once: [0, 1],
  keep_alive_ms: [0, 60_000],
  vendor_timing: [0, 1],
  slow_headers_ms: [0, 120_000],
  stall_after_tokens: [0, 4_096],
  stall_ms: [0, 120_000],
  huge_mb: [1, 64],
  bad_server_timing_ms: [0, 600_000],
};

export class ParamError extends Error {}

/** The model's profile with the request's `x-ref-params` overrides applied. */
export function resolveProfile(model: string, overrides: string | null): Profile {
  const base = MODELS[model] ?? MODELS[DEFAULT_MODEL];
  const profile: Profile = { ...base };
  if (!overrides) return profile;
  for (const part of overrides.split(',')) {
    if (part.trim() === '') continue;
    const [rawKey, rawValue] = part.split('=');
    const key = rawKey.trim() as keyof Profile;
    if (!(key in LIMITS)) throw new ParamError(`unknown x-ref-params name "${rawKey.trim()}"; known: ${Object.keys(LIMITS).join(', ')}`);
    const value = Number(rawValue?.trim());
    const [min, max] = LIMITS[key];
    if (!Number.isFinite(value) || value < min || value > max)
      throw new ParamError(`x-ref-params ${key} must be a number from ${min} to ${max}`);
    profile[key] = value;
  }
  return profile;
}
