/** One wire format the reference endpoint speaks, written from each vendor's documentation. */

/** What a request's prompt read from the prompt cache and wrote to it (prefix-cache.ts), in tokens. */
export interface CacheUse {
  /** Prompt tokens read from the cache. */
  read: number;
  /** Tokens of the cacheable text written to it (0 when all of it was read, or it is too short). */
  written: number;
}

export interface Usage {
  /** Every prompt token, cached or not. */
  promptTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  /** Prompt tokens read from the prompt cache and written to it (prefix-cache.ts). */
  cache: CacheUse;
}

/** vLLM-style per-request metrics (ms), sent when the profile asks for vendor timings. */
export interface Metrics {
  queue_time_ms: number;
  time_to_first_token_ms: number;
  generation_time_ms: number;
}

export interface StreamContext {
  id: string;
  model: string;
  created: number;
  promptTokens: number;
  cache: CacheUse;
  includeUsage: boolean;
  /** Format-private progress (open blocks, sequence numbers). */
  state: Record<string, number | string | boolean>;
}

/** What a format writes on the stream: text (server-sent events) or bytes (a binary event stream). */
export type Wire = string | Uint8Array;

/**
 * A wire format; `W` is what its stream pieces are: `string` for the SSE formats, `Uint8Array`
 * for binary framing (Bedrock's event stream). An empty piece ('' or no bytes) sends nothing.
 */
export interface StreamFormat<W extends Wire = string> {
  contentType: string;
  /** What goes out before any token: a role-only chunk, message_start, response.created … */
  open(c: StreamContext): W;
  /** A keep-alive while queued or prefilling, or an empty piece where the format has none. */
  keepAlive(c: StreamContext): W;
  reasoning(c: StreamContext, text: string): W;
  /**
   * Where the format marks reasoning it does not show (a redacted block): called once, with the
   * chunk in which the hidden reasoning ends. Formats without one leave it out: nothing is sent.
   */
  hiddenReasoning?(c: StreamContext, tokens: number): W;
  answer(c: StreamContext, text: string): W;
  /**
   * Finish reason, usage, the end marker; `metrics` only with vendor timings. `elapsedMs`: server
   * time from the request's arrival to this end, as measured (for formats that report it).
   */
  close(c: StreamContext, usage: Usage, metrics: Metrics | null, elapsedMs: number): W;
  /** An error event inside a 200 stream. */
  errorEvent(c: StreamContext, message: string): W;
  /** An event whose JSON is broken. */
  malformed(c: StreamContext): W;
  /** Extra bytes that ride along on a chunk for the `huge` fault. */
  padded(c: StreamContext, text: string, padding: string): W;
  /** The JSON body of an HTTP error. */
  httpError(status: number, message: string): string;
  /** Headers the vendor sends with an HTTP error (its error type), if any. */
  httpErrorHeaders?(status: number): Record<string, string>;
  /** A complete non-streamed response (served with the wrong content type by a fault); `elapsedMs` as in close. */
  nonStreamed(c: StreamContext, text: string, usage: Usage, elapsedMs: number): string;
}

export const sse = (data: unknown, event?: string): string =>
  `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

const encoder = new TextEncoder();

export const isEmptyWire = (piece: Wire): boolean => (typeof piece === 'string' ? piece === '' : piece.byteLength === 0);

export const wireBytes = (piece: Wire): Uint8Array => (typeof piece === 'string' ? encoder.encode(piece) : piece);

/** Pieces as one: text stays text (joined, so the SSE formats' bytes are as before), any bytes make it bytes. */
export function joinWire(pieces: Wire[]): Wire {
  if (pieces.every((p) => typeof p === 'string')) return pieces.join('');
  return concatBytes(pieces.map(wireBytes));
}

export function concatBytes(parts: Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let offset = 0;
  for (const p of parts) {
    joined.set(p, offset);
    offset += p.byteLength;
  }
  return joined;
}
