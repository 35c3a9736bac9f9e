/**
 * Runs the probe's timed path once on a tiny built-in stream before the first real t0 of a process
 * or isolate, so the first probe is as close to the wire as every later one: the first call of a
 * function compiles it, the first use of a RegExp compiles it, and a first read through the runtime's
 * streams sets them up. Between t0 and the first token a probe then runs only warm code.
 */
import { concatBytes as concat } from '../bytes.ts';
import { fillFigures } from './figures.ts';
import { readHeaderTimings } from './header-timings.ts';
import { emptySample } from '../sample-fields.ts';
import { StreamMeter } from './stream-meter.ts';
import { encodeEventStreamMessage } from './aws-eventstream-encoder.ts';
import { Watchdog } from './watchdog.ts';
import type { Protocol } from './protocols/protocol.ts';
import type { ApiId, Clock, Timeouts } from '../types.ts';

const sse = (data: unknown, event?: string): string => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
const line = (data: unknown): string => `${JSON.stringify(data)}\n`;
const utf8 = new TextEncoder();
/** One message of AWS's binary event stream, as Bedrock sends an event. */
const awsEvent = (type: string, data: unknown): Uint8Array =>
  encodeEventStreamMessage(
    { ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' },
    utf8.encode(JSON.stringify(data)),
  );

/**
 * One short stream per wire format: an opening event, a common token event (the fast path), a full-parse event, the end.
 * Text, or bytes for a binary framing.
 */
export const WARM_UP_STREAMS: Record<ApiId, string | Uint8Array<ArrayBuffer>> = {
  'openai-chat':
    sse({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }) +
    sse({ id: 'w', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'a' }, finish_reason: null }] }) +
    sse({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1 } }) +
    'data: [DONE]\n\n',
  'openai-responses':
    sse({ type: 'response.created' }, 'response.created') +
    sse({ type: 'response.output_text.delta', delta: 'a' }, 'response.output_text.delta') +
    sse(
      { type: 'response.completed', response: { status: 'completed', usage: { input_tokens: 1, output_tokens: 1 } } },
      'response.completed',
    ),
  'anthropic-messages':
    sse({ type: 'message_start', message: { usage: { input_tokens: 1 } } }, 'message_start') +
    sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'a' } }, 'content_block_delta') +
    sse({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } }, 'message_delta') +
    sse({ type: 'message_stop' }, 'message_stop'),
  gemini:
    sse({ candidates: [{ content: { parts: [{ text: 'a' }], role: 'model' } }], usageMetadata: { promptTokenCount: 1 } }) +
    sse({
      candidates: [{ content: { parts: [{ text: 'b' }], role: 'model' }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 2 },
    }),
  'workers-ai':
    sse({ response: 'a', p: 'abcd' }) +
    sse({ response: '', usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }) +
    'data: [DONE]\n\n',
  ollama:
    line({ model: 'w', message: { role: 'assistant', content: 'a' }, done: false }) +
    line({
      model: 'w',
      message: { role: 'assistant', content: '' },
      done: true,
      done_reason: 'stop',
      eval_count: 1,
      prompt_eval_count: 1,
      prompt_eval_duration: 1,
    }),
  'cohere-chat':
    sse({ type: 'message-start' }, 'message-start') +
    sse({ type: 'content-delta', delta: { message: { content: { text: 'a' } } } }, 'content-delta') +
    sse(
      { type: 'message-end', delta: { finish_reason: 'COMPLETE', usage: { tokens: { input_tokens: 1, output_tokens: 1 } } } },
      'message-end',
    ) +
    'data: [DONE]\n\n',
  'cohere-chat-v1':
    line({ event_type: 'stream-start' }) +
    line({ event_type: 'text-generation', text: 'a' }) +
    line({ event_type: 'stream-end', finish_reason: 'COMPLETE', response: { meta: { tokens: { input_tokens: 1, output_tokens: 1 } } } }),
  'tgi-generate':
    sse({ token: { id: 1, text: 'a', special: false }, generated_text: null, details: null }) +
    sse({ token: { id: 2, text: '', special: true }, generated_text: 'a', details: { finish_reason: 'eos_token', generated_tokens: 1 } }),
  'bedrock-converse': concat([
    awsEvent('messageStart', { role: 'assistant' }),
    awsEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'a' } }),
    awsEvent('contentBlockStop', { contentBlockIndex: 0 }),
    awsEvent('messageStop', { stopReason: 'end_turn' }),
    awsEvent('metadata', { usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, metrics: { latencyMs: 1 } }),
  ]),
};

const WARM_UP_HEADERS = { 'content-type': 'text/event-stream', 'server-timing': 'total;dur=1, app;dur=0.5', 'openai-processing-ms': '1' };

/** The warm-up of each wire format in this process or isolate: begun once, awaited by every probe. */
const warming = new Map<ApiId, Promise<void>>();

/**
 * Warms the timed path for one wire format, once per process or isolate: the runtime's Response and
 * stream reader, the header timings, the stream meter with its framing and both parse paths, the
 * watchdog and the figures. Returns false when it was warm already.
 */
export async function warmUp(protocol: Protocol, timeouts: Timeouts): Promise<boolean> {
  const running = warming.get(protocol.api);
  if (running) {
    // Probes run side by side: the second waits for the first one's warm-up instead of starting cold.
    await running;
    return false;
  }
  const done = runOnce(protocol, timeouts).catch(() => {
    // Best effort: a warm-up that fails leaves the first probe as it was, never fails it.
  });
  warming.set(protocol.api, done);
  await done;
  return true;
}

async function runOnce(protocol: Protocol, timeouts: Timeouts): Promise<void> {
  // Its own clock: a probe's injected clock (a test's fake one) is never read here.
  const now: Clock = () => performance.now();
  const response = new Response(WARM_UP_STREAMS[protocol.api], { headers: WARM_UP_HEADERS });
  const t0 = now();
  const watchdog = new Watchdog(t0, timeouts, now, () => {});
  const headerTimings = readHeaderTimings(response.headers, undefined);
  watchdog.headersArrived(now());
  const meter = new StreamMeter(protocol);
  const reader = response.body!.getReader();
  for (;;) {
    const chunk = await reader.read();
    const t = now();
    if (chunk.done) {
      meter.onClose(t);
      break;
    }
    meter.onRead(chunk.value, t);
    if (meter.state.readHasToken) watchdog.tokenArrived(t);
  }
  watchdog.stop();
  meter.settle();
  fillFigures(emptySample(), { t0, headersAt: t0, meter, headerTimings, rttMs: null, failed: false });
}
