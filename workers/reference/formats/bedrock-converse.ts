/**
 * Amazon Bedrock ConverseStream, from AWS's API reference: a binary event stream
 * (aws-eventstream.ts) of JSON events, each message headed `:event-type`, `:content-type:
 * application/json`, `:message-type: event`:
 *   messageStart {role}
 *   contentBlockDelta {contentBlockIndex, delta: {reasoningContent: {text}}} …, then {reasoningContent: {signature}}
 *     (hidden reasoning instead: one {reasoningContent: {redactedContent: base64}} where it ends)
 *   contentBlockStop {contentBlockIndex}
 *   contentBlockDelta {contentBlockIndex, delta: {text}} …, contentBlockStop
 *   messageStop {stopReason}, metadata {usage, metrics: {latencyMs}}
 * Bedrock sends contentBlockStart only for tool-use blocks, never for text or reasoning, so this
 * format never does. Every event carries Bedrock's `p` field: letters that vary the frame's size
 * so its length does not give the token away. A failure inside the stream is a message of type
 * `exception` (`:exception-type`, payload {message}); an HTTP error is {message} with the type in
 * `x-amzn-errortype`.
 */
import { encodeMessage } from './aws-eventstream.ts';
import { concatBytes, type StreamContext, type StreamFormat, type Usage } from './format.ts';

/** The exceptions ConverseStream's event union carries inside a 200 stream. */
export const BEDROCK_STREAM_EXCEPTIONS = [
  'modelStreamErrorException',
  'internalServerException',
  'serviceUnavailableException',
  'throttlingException',
  'validationException',
] as const;
export type BedrockStreamException = (typeof BEDROCK_STREAM_EXCEPTIONS)[number];

/** Every reference stream runs to its maxTokens (never to end_turn), as in the other formats. */
const STOP_REASON = 'max_tokens';
/** The signature closing a reasoning block (Anthropic's, base64; the reference signs nothing). */
const REASONING_SIGNATURE = 'cmVmZXJlbmNl';
const PADDING_LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
/** The `p` field's length cycles through 1 … PADDING_LETTERS.length over a stream's events. */
const PADDING_STEP = 7;

const JSON_EVENT = { ':content-type': 'application/json', ':message-type': 'event' };

/** The ConverseStream format whose error-event fault sends `exception` (default: a model stream error). */
export function bedrockConverseFormat(exception: BedrockStreamException = 'modelStreamErrorException'): StreamFormat<Uint8Array> {
  return {
    contentType: 'application/vnd.amazon.eventstream',
    open(c) {
      c.state.events = 0;
      c.state.index = -1;
      c.state.block = '';
      return event(c, 'messageStart', { role: 'assistant' });
    },
    keepAlive: () => new Uint8Array(0),
    reasoning: (c, text) => concatBytes([enter(c, 'reasoning'), delta(c, { reasoningContent: { text } })]),
    hiddenReasoning: (c, tokens) =>
      concatBytes([
        enter(c, 'redacted'),
        delta(c, { reasoningContent: { redactedContent: btoa(`reference: ${tokens} reasoning tokens`) } }),
      ]),
    answer: (c, text) => concatBytes([enter(c, 'text'), delta(c, { text })]),
    close: (c, usage, _metrics, elapsedMs) =>
      concatBytes([
        leave(c),
        event(c, 'messageStop', { stopReason: STOP_REASON }),
        // latencyMs: the whole invocation's server time, from the request's arrival to this last
        // event, as it really passed (queue, prefill and decode, measured by the engine, not
        // planned), floored to whole ms: what Bedrock's metrics.latencyMs reports.
        event(c, 'metadata', { usage: bedrockUsage(usage), metrics: { latencyMs: Math.floor(elapsedMs) } }),
      ]),
    errorEvent: (_c, message) =>
      encodeMessage(
        { ':exception-type': exception, ':content-type': 'application/json', ':message-type': 'exception' },
        JSON.stringify({ message }),
      ),
    malformed: (c) =>
      encodeMessage(
        { ':event-type': 'contentBlockDelta', ...JSON_EVENT },
        `{"contentBlockIndex":${Math.max(0, Number(c.state.index))},"delta":{"text":"x`,
      ),
    padded: (c, text, padding) =>
      concatBytes([
        enter(c, 'text'),
        frame('contentBlockDelta', { contentBlockIndex: Number(c.state.index), delta: { text }, p: padding }),
      ]),
    httpError: (_status, message) => JSON.stringify({ message }),
    httpErrorHeaders: (status) => ({ 'x-amzn-errortype': bedrockErrorType(status) }),
    nonStreamed: (_c, text, usage, elapsedMs) =>
      JSON.stringify({
        output: { message: { role: 'assistant', content: text === '' ? [] : [{ text }] } },
        stopReason: STOP_REASON,
        usage: bedrockUsage(usage),
        metrics: { latencyMs: Math.floor(elapsedMs) },
      }),
  };
}

/** outputTokens counts everything generated, reasoning included, as Bedrock counts Claude's thinking. */
function bedrockUsage(usage: Usage) {
  const { read, written } = usage.cache;
  return {
    // As Anthropic's: inputTokens leaves out the cache's tokens, which come in counts of their own once a cache point was used.
    inputTokens: Math.max(0, usage.promptTokens - read - written),
    outputTokens: usage.outputTokens,
    totalTokens: usage.promptTokens + usage.outputTokens,
    ...(read > 0 || written > 0 ? { cacheReadInputTokens: read, cacheWriteInputTokens: written } : {}),
  };
}

function frame(type: string, body: Record<string, unknown>): Uint8Array {
  return encodeMessage({ ':event-type': type, ...JSON_EVENT }, JSON.stringify(body));
}

/** An event with its `p` padding. */
function event(c: StreamContext, type: string, body: Record<string, unknown>): Uint8Array {
  const n = Number(c.state.events);
  c.state.events = n + 1;
  return frame(type, { ...body, p: PADDING_LETTERS.slice(0, 1 + ((n * PADDING_STEP) % PADDING_LETTERS.length)) });
}

function delta(c: StreamContext, body: Record<string, unknown>): Uint8Array {
  return event(c, 'contentBlockDelta', { contentBlockIndex: Number(c.state.index), delta: body });
}

/** Opens a block of `kind` (closing the one before) unless it is the open one; the bytes that takes. */
function enter(c: StreamContext, kind: string): Uint8Array {
  if (c.state.block === kind) return new Uint8Array(0);
  const closing = leave(c);
  c.state.index = Number(c.state.index) + 1;
  c.state.block = kind;
  return closing;
}

/** Closes the open block, a reasoning block with its signature first. */
function leave(c: StreamContext): Uint8Array {
  if (c.state.block === '') return new Uint8Array(0);
  const signature = c.state.block === 'reasoning' ? [delta(c, { reasoningContent: { signature: REASONING_SIGNATURE } })] : [];
  c.state.block = '';
  return concatBytes([...signature, event(c, 'contentBlockStop', { contentBlockIndex: Number(c.state.index) })]);
}

/** The `x-amzn-errortype` Bedrock Runtime sends with each status. */
export function bedrockErrorType(status: number): string {
  if (status === 429) return 'ThrottlingException';
  if (status === 503 || status === 529) return 'ServiceUnavailableException';
  if (status >= 500) return 'InternalServerException';
  if (status === 401 || status === 403) return 'AccessDeniedException';
  if (status === 404) return 'ResourceNotFoundException';
  return 'ValidationException';
}
