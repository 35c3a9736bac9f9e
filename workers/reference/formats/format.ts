/** One wire format the reference endpoint speaks, written from each vendor's documentation. */
export interface Usage {
  promptTokens: number;
  outputTokens: number;
  reasoningTokens: number;
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
  includeUsage: boolean;
  /** Format-private progress (open blocks, sequence numbers). */
  state: Record<string, number | string | boolean>;
}

export interface StreamFormat {
  contentType: string;
  /** What goes out before any token: a role-only chunk, message_start, response.created … */
  open(c: StreamContext): string;
  /** A keep-alive while queued or prefilling, or '' where the format has none. */
  keepAlive(c: StreamContext): string;
  reasoning(c: StreamContext, text: string): string;
  answer(c: StreamContext, text: string): string;
  /** Finish reason, usage, the end marker; `metrics` only with vendor timings. */
  close(c: StreamContext, usage: Usage, metrics: Metrics | null): string;
  /** An error event inside a 200 stream. */
  errorEvent(c: StreamContext, message: string): string;
  /** An event whose JSON is broken. */
  malformed(c: StreamContext): string;
  /** Extra bytes that ride along on a chunk for the `huge` fault. */
  padded(c: StreamContext, text: string, padding: string): string;
  /** The JSON body of an HTTP error. */
  httpError(status: number, message: string): string;
  /** A complete non-streamed response (served with the wrong content type by a fault). */
  nonStreamed(c: StreamContext, text: string, usage: Usage): string;
}

export const sse = (data: unknown, event?: string): string =>
  `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
