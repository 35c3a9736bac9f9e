import {
  addAnswer,
  addReasoning,
  addToolArguments,
  markToolCall,
  recordBodyTiming,
  setStreamError,
  num,
  type StreamErrorClass,
  type StreamState,
} from '../stream-state.ts';
import { ANSWER, REASONING, TOOL, RBRACE, addSlice, stringEnd, type OutputKind } from './fast-path.ts';
import { bearer, jsonRequest, parseEvent, resolveEndpoint, siblingUrl, type Protocol } from './protocol.ts';

/** Where Bedrock's whole-invocation latency is stored in `server_timings` (MEASUREMENT.md, how this project reads it). */
export const BEDROCK_LATENCY_SOURCE = 'bedrock.metrics.latencyMs';

/** Exception types (lower-cased) that say what kind of failure they are; any other is a `stream_error`. */
const EXCEPTION_CLASSES = new Map<string, StreamErrorClass>([
  ['throttlingexception', 'rate_limited'],
  ['serviceunavailableexception', 'overloaded'],
]);

const EXCEPTION = 'exception:';
const ERROR = 'error:';

/** A token delta as Bedrock writes one: the block's index, the delta, and its padding (`p`, any length) or nothing. */
const DELTA_START = '{"contentBlockIndex":';
const PAD = ',"p":"';
/** Each delta that carries one string, up to its opening quote; what closes the delta after the string; what it is. */
const DELTAS: ReadonlyArray<readonly [string, string, OutputKind]> = [
  [',"delta":{"text":"', '}', ANSWER],
  [',"delta":{"reasoningContent":{"text":"', '}}', REASONING],
  [',"delta":{"toolUse":{"input":"', '}}', TOOL],
];
const ZERO = 48;
const NINE = 57;
const QUOTE = '"';
const BACKSLASH = '\\';

/**
 * AWS Bedrock `ConverseStream`: AWS's binary event stream, one JSON payload per message, from `messageStart`
 * to `messageStop` (the stop reason) and `metadata` (usage and Bedrock's latency). A stream that closes right
 * after `messageStop` is complete; `metadata`, when it comes, is read and ends the reading. Errors come as
 * exception messages (`exception:<type>`, see StreamMeter), throttling and unavailability classed as such.
 * A token delta of Bedrock's own shape is read by a fast path, and those after it of the same shape straight
 * from their bytes (protocols/message-template.ts).
 * Authorisation: a Bedrock API key is a bearer token; SigV4 signing is added outside the protocol.
 */
export const bedrockConverse: Protocol = {
  api: 'bedrock-converse',
  framing: 'aws-eventstream',
  // The stop reason completes the stream: metadata follows it, but a close between the two loses no output.
  endMarkerRequired: false,
  contentTypes: ['application/vnd.amazon.eventstream'],
  defaultPath: '/model/{model}/converse-stream',
  buildRequest({ target, prompt, maxTokens, cacheBreak }) {
    // A prompt-cache pass: the prefix, then a cache point (Bedrock caches only up to one), then the tail.
    const content =
      cacheBreak === undefined
        ? [{ text: prompt }]
        : [{ text: prompt.slice(0, cacheBreak) }, { cachePoint: { type: 'default' } }, { text: prompt.slice(cacheBreak) }];
    return jsonRequest(
      resolveEndpoint(target.url, this.defaultPath, target.model),
      bearer(target.apiKey),
      {
        messages: [{ role: 'user', content }],
        inferenceConfig: { maxTokens },
      },
      target,
    );
  },
  // The runtime API has no cheap read of its own: the origin's root (behind a gateway, the path before `/model/…`),
  // which answers without reaching a model.
  rttUrl: (url) => siblingUrl(url, /\/model\/[^/]+\/converse-stream$/, ''),
  // The padding changes from message to message; the message template (message-template.ts) skips it.
  volatiles: [{ key: '"p":', kind: 'plain' }],
  fastEvent(event, data, s) {
    return event === 'contentBlockDelta' && fastDelta(data, s);
  },
  onEvent(event, data, s) {
    if (event.startsWith(EXCEPTION)) return readException(event.slice(EXCEPTION.length), data, s);
    if (event.startsWith(ERROR)) return readException(event.slice(ERROR.length), data, s);
    if (event === 'messageStart' || event === 'contentBlockStop') return;
    const e = parseEvent(data, s);
    if (!e || typeof e !== 'object') return;
    switch (event) {
      case 'contentBlockDelta': {
        const d = e.delta;
        if (!d || typeof d !== 'object') break;
        addAnswer(s, d.text);
        if (d.toolUse) addToolArguments(s, d.toolUse.input);
        // Only readable reasoning is streamed output: a signature is none, and redacted (encrypted) reasoning is
        // hidden reasoning, as OpenAI's encrypted reasoning is: no token, not `reasoning_streamed`.
        if (d.reasoningContent) addReasoning(s, d.reasoningContent.text);
        break;
      }
      case 'contentBlockStart':
        // A tool call is answer output from its name on, as in every protocol.
        markToolCall(s, e.start?.toolUse?.name);
        break;
      case 'messageStop':
        if (typeof e.stopReason === 'string' && e.stopReason) s.finishReason = e.stopReason;
        break;
      case 'metadata':
        readMetadata(e, s);
        s.endMarker = true;
        break;
    }
  },
};

/**
 * A token delta of exactly the shape Bedrock sends, `{"contentBlockIndex":N,"delta":{"text":"…"},"p":"…"}`
 * (or the reasoning text or tool input in its place; the padding may be absent): its string, read without
 * parsing the payload. The whole payload is checked, so no other key can hide in it; a token with an escape
 * JSON lacks, an escaped padding, or anything else is left to the full parse.
 */
function fastDelta(data: string, s: StreamState): boolean {
  if (!data.startsWith(DELTA_START)) return false;
  const digits = DELTA_START.length;
  let p = digits;
  while (p < data.length && data.charCodeAt(p) >= ZERO && data.charCodeAt(p) <= NINE) p++;
  // A JSON integer: no leading zero.
  if (p === digits || (data.charCodeAt(digits) === ZERO && p > digits + 1)) return false;
  for (const [pattern, closer, kind] of DELTAS) {
    if (!data.startsWith(pattern, p)) continue;
    const open = p + pattern.length - 1;
    const close = jsonStringEnd(data, open);
    if (close === -1 || !data.startsWith(closer, close + 1)) return false;
    const rest = close + 1 + closer.length;
    if (data.length === rest + 1 ? data.charCodeAt(rest) !== RBRACE : !paddingEnds(data, rest)) return false;
    addSlice(s, data, open, close, kind);
    return true;
  }
  return false;
}

/** Index of the quote closing the string opened at `open`, or -1 when it has an escape (or no end). */
function plainStringEnd(data: string, open: number): number {
  const close = data.indexOf(QUOTE, open + 1);
  if (close === -1) return -1;
  const backslash = data.indexOf(BACKSLASH, open + 1);
  return backslash !== -1 && backslash < close ? -1 : close;
}

/** Index of the quote closing the JSON string opened at `open`, or -1 when it has no end or an escape JSON lacks. */
function jsonStringEnd(data: string, open: number): number {
  const close = stringEnd(data, open);
  if (close === -1) return -1;
  const backslash = data.indexOf(BACKSLASH, open + 1);
  if (backslash === -1 || backslash > close) return close;
  // Rare outside tool input: the escapes are checked by the parser itself.
  try {
    JSON.parse(data.slice(open, close + 1));
    return close;
  } catch {
    return -1;
  }
}

/** data[at..] is the padding and the payload's end: `,"p":"…"}`, a plain string. */
function paddingEnds(data: string, at: number): boolean {
  if (!data.startsWith(PAD, at)) return false;
  const close = plainStringEnd(data, at + PAD.length - 1);
  return close === data.length - 2 && data.charCodeAt(close + 1) === RBRACE;
}

/** Usage (outputTokens counts every generated token, reasoning included) and Bedrock's own latency. */
function readMetadata(e: any, s: StreamState): void {
  const usage = e.usage;
  if (usage && typeof usage === 'object') {
    const out = num(usage.outputTokens);
    if (out !== null) s.outputTokens = out;
    const input = num(usage.inputTokens);
    // Bedrock leaves the cache counts out when nothing was read from a cache or written to one.
    s.cachedTokens = num(usage.cacheReadInputTokens) ?? 0;
    if (input !== null) s.inputTokens = input;
  }
  // The whole invocation as Bedrock timed it, not a time to first token: kept raw, never used for the split.
  const latency = num(e.metrics?.latencyMs);
  if (latency !== null) recordBodyTiming(s, BEDROCK_LATENCY_SOURCE, latency);
}

/** An exception message (`{"message": "…"}`) or an error message: a stream error, classed by its type. */
function readException(type: string, data: string, s: StreamState): void {
  let message = '';
  try {
    const e = JSON.parse(data);
    // AWS's JSON protocols spell it `message`, some services `Message`.
    const text = e && typeof e === 'object' ? (e.message ?? e.Message) : undefined;
    if (typeof text === 'string') message = text;
  } catch {
    message = data;
  }
  const name = type || 'exception';
  setStreamError(s, message ? `${name}: ${message}` : name, EXCEPTION_CLASSES.get(type.toLowerCase()) ?? 'stream_error');
}
