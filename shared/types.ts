/** Types of the measurement contract (../shared/MEASUREMENT.md): the names here are the names there. */

export const API_IDS = [
  'openai-chat',
  'openai-responses',
  'anthropic-messages',
  'gemini',
  'ollama',
  'cohere-chat',
  'cohere-chat-v1',
  'tgi-generate',
] as const;
export type ApiId = (typeof API_IDS)[number];

export const ERROR_CLASSES = [
  'http',
  'rate_limited',
  'overloaded',
  'timeout_headers',
  'timeout_first_token',
  'stall',
  'truncated',
  'protocol',
  'stream_error',
  'network',
] as const;
export type ErrorClass = (typeof ERROR_CLASSES)[number];

/** Where the TTFT split came from: a header timing name, a body timing name, or `rtt`. */
export type SplitSource = string;

/** One probe's result. Every probe produces exactly one sample, also when it fails. */
export interface Sample {
  method_version: number;
  target: string;
  api: ApiId;
  model: string;
  prompt_variant: string;
  /** Wall-clock time of t0, epoch milliseconds (may carry a fraction). */
  started_at: number;
  region: string | null;
  colo: string | null;
  upstream_colo: string | null;
  colo_outside_region: boolean | null;
  warm: boolean;
  status: number | null;

  headers_ms: number | null;
  first_byte_ms: number | null;
  ttft_ms: number | null;
  ttfa_ms: number | null;
  total_ms: number | null;
  output_tokens: number | null;
  tokens_exact: boolean;
  /** The variant's fixed input size (tokens, approximate by construction). */
  prompt_tokens: number;
  /** Input tokens the provider reported, when it did. */
  input_tokens: number | null;
  max_tokens: number;
  tpot_ms: number | null;
  decode_tps: number | null;
  itl_p50_ms: number | null;
  itl_p90_ms: number | null;
  itl_p99_ms: number | null;
  itl_max_ms: number | null;
  chunks: number;

  server_headers_ms: number | null;
  /** Every server timing found in headers, by source name. */
  server_timings: Record<string, number>;
  server_ttft_ms: number | null;
  server_ttft_source: string | null;
  rtt_ms: number | null;
  network_ms: number | null;
  server_ms: number | null;
  residual_ms: number | null;
  split_source: SplitSource | null;

  finish_reason: string | null;
  error: ErrorClass | null;
  error_detail: string | null;
  /** Offsets from t0 (ms) of every token-bearing read: the chunk timeline behind ITL. */
  timeline: number[];
}

/** What a probe needs to know about its target. */
export interface ProbeTarget {
  id: string;
  api: ApiId;
  /** Full endpoint URL, or an origin/base whose path the protocol completes. */
  url: string;
  model: string;
  /** Secret value, never stored; the caller resolves it from an env var or Worker secret. */
  apiKey?: string;
  headers?: Record<string, string>;
  /** Extra JSON merged into the request body (e.g. reasoning effort). */
  extraBody?: Record<string, unknown>;
  /** Which Server-Timing metric names count toward server time; default: all. */
  serverTimingMetrics?: string[];
}

export interface PromptVariant {
  id: string;
  promptTokens: number;
  maxTokens: number;
}

export interface Timeouts {
  headersMs: number;
  firstTokenMs: number;
  idleMs: number;
  totalMs: number;
}

export type Clock = () => number;
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;
