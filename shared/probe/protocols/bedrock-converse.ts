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

/**
 * AWS Bedrock `ConverseStream`: AWS's binary event stream, one JSON payload per message, from `messageStart`
 * to `messageStop` (the stop reason) and `metadata` (usage and Bedrock's latency). A stream that closes right
 * after `messageStop` is complete; `metadata`, when it comes, is read and ends the reading. Errors come as
 * exception messages (`exception:<type>`, see StreamMeter), throttling and unavailability classed as such.
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
