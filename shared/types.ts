/** Types of the measurement contract (../shared/MEASUREMENT.md): the names here are the names there. */

export { API_IDS, ERROR_CLASSES, type ApiId, type ErrorClass } from './ids.ts';
export type { Sample, SampleField } from './sample-fields.ts';
import type { ApiId } from './ids.ts';

/** Names of the output budget in an OpenAI-compatible chat request. */
export const MAX_TOKENS_PARAMS = ['max_tokens', 'max_completion_tokens'] as const;
export type MaxTokensParam = (typeof MAX_TOKENS_PARAMS)[number];

/** Where the TTFT split came from: a header timing name, a body timing name, or `rtt`. */
export type SplitSource = string;

/** The fields of a Google service-account key file the probe uses. */
export interface ServiceAccountKey {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri?: string;
}

/** A target's authorisation with its secrets resolved (never stored, never logged). */
export type ResolvedAuth =
  | { type: 'header'; name: string; value: string }
  | { type: 'aws-sigv4'; region: string | null; accessKeyId: string; secretAccessKey: string; sessionToken?: string }
  | { type: 'google-service-account'; key: ServiceAccountKey; mode: 'token-exchange' | 'self-signed' };

/** What a probe needs to know about its target. */
export interface ProbeTarget {
  id: string;
  api: ApiId;
  /** Full endpoint URL, or an origin/base whose path the protocol completes. */
  url: string;
  model: string;
  /** Secret value, never stored; the caller resolves it from an env var or Worker secret. */
  apiKey?: string;
  /** Authorisation beyond the protocol's own key header (probe/auth.ts): SigV4, a service account, a named header. */
  auth?: ResolvedAuth;
  headers?: Record<string, string>;
  /** Extra JSON merged into the request body, object by object (e.g. a reasoning effort or thinking budget). */
  extraBody?: Record<string, unknown>;
  /** openai-chat: the field the output budget goes in (OpenAI's reasoning models take only max_completion_tokens). */
  maxTokensParam?: MaxTokensParam;
  /**
   * Which Server-Timing metrics count as server time before headers: each entry a metric name, or
   * names joined by `+` for sequential parts that add up; the largest entry present wins. Default:
   * the largest single metric (nested metrics are never summed).
   */
  serverTimingMetrics?: string[];
}

/** A prompt variant as a probe uses it; the configuration's adds a label (config/types.ts PromptVariantConfig). */
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
