/**
 * What the protocol readers learn from a stream, written in place so that reading a token
 * allocates nothing beyond the parsed event. One state per probe.
 */
import type { ErrorClass } from '../ids.ts';

/** The classes an error inside a 200 stream may carry: `stream_error`, or what the provider's error event says it is. */
export type StreamErrorClass = Extract<ErrorClass, 'stream_error' | 'rate_limited' | 'overloaded'>;

/** What a token string is: answer text, reasoning, or a tool call's arguments (fast-path.ts's ANSWER, REASONING, TOOL). */
export type OutputKind = 0 | 1 | 2;

/**
 * The shape of the last token event a fast path accepted: fixed pieces around holes (0: the token, 1: digits, 2: a
 * plain string). Learnt and matched by protocols/token-template.ts; held here so the state's type needs no reader.
 */
export interface TokenTemplate {
  kind: OutputKind;
  /** The event also carries usage, which the fast path defers to the stream's end. */
  defersUsage: boolean;
  /** Where the data value starts after the event's start, and how many characters end the event after it. */
  dataOffset: number;
  dataTrail: number;
  /** pieces[i] comes before holes[i]; the last piece ends the event. */
  pieces: string[];
  holes: (0 | 1 | 2)[];
}

export interface StreamState {
  /** Set by a reader when the current read carried any generated output; reset per read. */
  readHasToken: boolean;
  /** Set when the current read carried answer text or tool-call arguments (not reasoning). */
  readHasAnswer: boolean;
  /** Set when the current event carried generated output; the meter counts such events. */
  eventHasToken: boolean;
  /** Events that carried generated output (a fallback token count when no usage is reported). */
  tokenEvents: number;
  collectText: boolean;
  answerText: string;
  reasoningText: string;
  toolText: string;
  outputTokens: number | null;
  /** Reasoning tokens the provider reported in usage (part of outputTokens); null when not reported. */
  reasoningTokens: number | null;
  /** Some reasoning text arrived in the stream. */
  reasoningStreamed: boolean;
  inputTokens: number | null;
  /** Input tokens the provider says it read from its prompt cache, when it says. */
  cachedTokens: number | null;
  /** The protocol's explicit end marker was seen ([DONE], message_stop, response.completed, done:true). */
  endMarker: boolean;
  finishReason: string | null;
  streamError: string | null;
  /** The class of streamError when the error event names one (a throttling event: `rate_limited`); null: `stream_error`. */
  streamErrorClass: StreamErrorClass | null;
  protocolError: string | null;
  serverTtftMs: number | null;
  serverTtftSource: string | null;
  /**
   * Server timings the body reported that are not a time to first token (Bedrock's whole invocation latency), by
   * source name: stored raw in `server_timings` beside the header claims, never used for the split. Null: none.
   */
  bodyTimings: Record<string, number> | null;
  /** Who served the answer, as the stream itself says (a router's `provider`); served-by.ts weighs it against the headers. */
  servedBy: { value: string; source: string } | null;
  /** The latest event whose usage a fast path skipped; read once when the stream settles. */
  deferredUsage: string | null;
  /** The shape of the last token event a fast path accepted (token-template.ts). */
  template: TokenTemplate | null;
  /** Where the last fast-path token string sat in its event (-1: none yet), for learning the template. */
  sliceOpen: number;
  sliceClose: number;
  sliceKind: 0 | 1 | 2;
}

export function createStreamState(collectText = false): StreamState {
  return {
    readHasToken: false,
    readHasAnswer: false,
    eventHasToken: false,
    tokenEvents: 0,
    collectText,
    answerText: '',
    reasoningText: '',
    toolText: '',
    outputTokens: null,
    reasoningTokens: null,
    reasoningStreamed: false,
    inputTokens: null,
    cachedTokens: null,
    endMarker: false,
    finishReason: null,
    streamError: null,
    streamErrorClass: null,
    protocolError: null,
    serverTtftMs: null,
    serverTtftSource: null,
    bodyTimings: null,
    servedBy: null,
    deferredUsage: null,
    template: null,
    sliceOpen: -1,
    sliceClose: -1,
    sliceKind: 0,
  };
}

export function addAnswer(s: StreamState, text: unknown): void {
  if (typeof text !== 'string' || text.length === 0) return;
  s.readHasToken = true;
  s.readHasAnswer = true;
  s.eventHasToken = true;
  if (s.collectText) s.answerText += text;
}

export function addReasoning(s: StreamState, text: unknown): void {
  if (typeof text !== 'string' || text.length === 0) return;
  s.readHasToken = true;
  s.eventHasToken = true;
  s.reasoningStreamed = true;
  if (s.collectText) s.reasoningText += text;
}

export function addToolArguments(s: StreamState, text: unknown): void {
  if (typeof text !== 'string' || text.length === 0) return;
  s.readHasToken = true;
  s.readHasAnswer = true;
  s.eventHasToken = true;
  if (s.collectText) s.toolText += text;
}

/** A tool call began (its name is generated output): answer output, though no argument text yet. */
export function markToolCall(s: StreamState, name: unknown): void {
  if (typeof name !== 'string' || name.length === 0) return;
  s.readHasToken = true;
  s.readHasAnswer = true;
  s.eventHasToken = true;
}

/** Records a body-reported server time to first token (ms); the first report wins. */
export function setServerTtft(s: StreamState, ms: number, source: string): void {
  if (!Number.isFinite(ms) || ms < 0 || s.serverTtftMs !== null) return;
  s.serverTtftMs = ms;
  s.serverTtftSource = source;
}

/** Records the reasoning tokens a provider's usage reports (ignored when absent or not a count). */
export function setReasoningTokens(s: StreamState, value: unknown): void {
  const n = num(value);
  if (n !== null && n >= 0) s.reasoningTokens = n;
}

/** Records a body-reported server timing that is no time to first token (ms), raw, under `source`; the first report wins. */
export function recordBodyTiming(s: StreamState, source: string, ms: number): void {
  if (!Number.isFinite(ms) || ms < 0) return;
  if (s.bodyTimings === null) s.bodyTimings = {};
  if (!(source in s.bodyTimings)) s.bodyTimings[source] = ms;
}

/** Records the first error event of the stream; `errorClass` when the event says what kind it is (default `stream_error`). */
export function setStreamError(s: StreamState, detail: string, errorClass: StreamErrorClass | null = null): void {
  if (s.streamError !== null) return;
  s.streamError = detail;
  s.streamErrorClass = errorClass;
}

export function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}
