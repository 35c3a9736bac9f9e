import type { ApiId, ProbeTarget } from '../../types.ts';
import type { StreamState } from '../stream-state.ts';
import type { Volatile } from './token-template.ts';

export interface BuiltRequest {
  url: string;
  init: RequestInit;
}

export interface RequestInput {
  target: ProbeTarget;
  prompt: string;
  maxTokens: number;
  /**
   * A prompt-cache probe's pass: the prompt's first `cacheBreak` characters are its cacheable prefix.
   * Formats whose cache needs a marked breakpoint (Anthropic's `cache_control`, Bedrock's `cachePoint`) mark it there;
   * the others cache any long prefix by themselves.
   */
  cacheBreak?: number;
}

/** One wire format: how to ask for a streamed completion, and how to read the stream. */
export interface Protocol {
  api: ApiId;
  /** Server-sent events, newline-delimited JSON, or AWS's binary event stream (each message one event). */
  framing: 'sse' | 'ndjson' | 'aws-eventstream';
  /**
   * True when the format always ends with an explicit marker, so closing without it is `truncated`.
   * False for formats some servers end with only a finish reason (Gemini, many OpenAI-compatible).
   */
  endMarkerRequired: boolean;
  /** Content types a streaming 200 may carry (prefix match); any other is a `protocol` error. */
  contentTypes: readonly string[];
  /** Path appended when the target URL is only an origin; `{model}` is replaced. */
  defaultPath: string;
  buildRequest(input: RequestInput): BuiltRequest;
  /** A cheap URL on the same origin for the round-trip probe. */
  rttUrl(endpointUrl: string): string;
  /** Reads one event (an SSE event, one NDJSON line, or one event-stream message) into the state. */
  onEvent(event: string, data: string, state: StreamState): void;
  /**
   * Reads the common token event without a full JSON parse; returns false (having changed nothing)
   * for any event it does not fully recognise, which then goes to onEvent.
   */
  fastEvent?(event: string, data: string, state: StreamState): boolean;
  /** Keys whose scalar values may change from one token event to the next without changing its shape (token-template.ts). */
  volatiles?: readonly Volatile[];
  /** Completes what fast paths deferred, once, when reading stops. */
  settle?(state: StreamState): void;
}

/** Completes a bare origin with the protocol's default path and fills in `{model}`. */
export function resolveEndpoint(url: string, defaultPath: string, model: string): string {
  const parsed = new URL(url);
  if (parsed.pathname === '/' || parsed.pathname === '') {
    const [path, query] = defaultPath.split('?');
    parsed.pathname = path;
    if (query && !parsed.search) parsed.search = `?${query}`;
  }
  return parsed.toString().replace(/%7Bmodel%7D|\{model\}/g, encodeURIComponent(model));
}

/** Replaces a trailing path suffix of the endpoint, or falls back to the origin root. */
export function siblingUrl(endpointUrl: string, suffix: RegExp, replacement: string): string {
  const parsed = new URL(endpointUrl);
  parsed.search = '';
  parsed.hash = '';
  parsed.pathname = suffix.test(parsed.pathname) ? parsed.pathname.replace(suffix, replacement) : '/';
  return parsed.toString();
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `extra` merged into `base`: objects key by key (so Gemini's thinkingConfig joins generationConfig), anything else replaced. */
export function mergeBody(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extra))
    out[key] = isPlainObject(value) && isPlainObject(out[key]) ? mergeBody(out[key], value) : value;
  return out;
}

export function jsonRequest(
  url: string,
  headers: Record<string, string>,
  body: Record<string, unknown>,
  target: ProbeTarget,
): BuiltRequest {
  const merged = target.extraBody ? mergeBody(body, target.extraBody) : body;
  return {
    url,
    init: {
      method: 'POST',
      // No compression, in every runtime: the probe times bytes as the server sends them (the CLI and a
      // Worker time the same bytes), and a compressed stream would arrive in the compressor's chunks.
      headers: { 'content-type': 'application/json', 'accept-encoding': 'identity', ...headers, ...target.headers },
      body: JSON.stringify(merged),
    },
  };
}

export function bearer(apiKey: string | undefined): Record<string, string> {
  return apiKey ? { authorization: `Bearer ${apiKey}` } : {};
}

/** Parses one event's JSON; on failure records a protocol error and returns undefined. */
export function parseEvent(data: string, state: StreamState): any {
  try {
    return JSON.parse(data);
  } catch {
    if (state.protocolError === null) state.protocolError = `unparsable event: ${data.slice(0, 60)}`;
    return undefined;
  }
}

/** A short description of a provider error object (`{message, type, code}` or a string). */
export function describeError(error: unknown): string {
  if (typeof error === 'string') return error;
  if (error && typeof error === 'object') {
    const e = error as Record<string, unknown>;
    const code = [e.code, e.type, e.status, e.error_type].find((v) => typeof v === 'string') ?? e.code;
    const message = e.message ?? e.error ?? '';
    const head = code !== undefined ? String(code) : 'error';
    return message ? `${head}: ${typeof message === 'string' ? message : safeJson(message, ERROR_JSON_MAX_CHARS)}` : head;
  }
  return 'error';
}

/** Longest text kept of an error object written out (error_detail is shorter still). */
const ERROR_JSON_MAX_CHARS = 500;

/** JSON text of a vendor's value (cut to `maxChars`); a value too deep to write out is named, not thrown. */
export function safeJson(value: unknown, maxChars = Infinity): string {
  try {
    return (JSON.stringify(value) ?? String(value)).slice(0, maxChars);
  } catch {
    return '[a value too deeply nested to print]';
  }
}
