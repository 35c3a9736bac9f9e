import {
  addAnswer,
  addReasoning,
  addToolArguments,
  markToolCall,
  setReasoningTokens,
  setStreamError,
  num,
  type StreamState,
} from '../stream-state.ts';
import { bearer, describeError, jsonRequest, parseEvent, resolveEndpoint, siblingUrl, type Protocol } from './protocol.ts';
import { readChunkTimings } from './body-timings.ts';
import { servedValue } from '../served-by.ts';
import { ANSWER, addSlice, stringAfter, stringEnd, RBRACE, wholeObject } from './fast-path.ts';

/** Keys whose non-null presence needs the full parse: finish, usage, errors, body timings. */
const NEEDS_FULL_PARSE = /"(?:finish_reason|usage|error|x_groq|time_info|metrics|sla_metrics|perf_metrics|timings)":(?!null)/;

/** Events at the stream's start in which a router's provider is looked for on the fast path (it names it in every event). */
const ROUTER_EVENTS = 2;

/** OpenAI-compatible `/chat/completions` streaming: SSE `data:` chunks ending with `[DONE]`. */
export const openaiChat: Protocol = {
  api: 'openai-chat',
  framing: 'sse',
  endMarkerRequired: false,
  contentTypes: ['text/event-stream'],
  defaultPath: '/v1/chat/completions',
  buildRequest({ target, prompt, maxTokens }) {
    return jsonRequest(
      resolveEndpoint(target.url, this.defaultPath, target.model),
      bearer(target.apiKey),
      {
        model: target.model,
        messages: [{ role: 'user', content: prompt }],
        stream: true,
        stream_options: { include_usage: true },
        [target.maxTokensParam ?? 'max_tokens']: maxTokens,
      },
      target,
    );
  },
  rttUrl: (url) => siblingUrl(url, /\/chat\/completions$/, '/models'),
  volatiles: [{ key: '"obfuscation":', kind: 'plain' }],
  fastEvent(event, data, s) {
    if (event !== '' || !wholeObject(data)) return false;
    const open = stringAfter(data, '"delta":{"content":"');
    if (open === -1) return false;
    const close = stringEnd(data, open);
    if (close === -1 || data.charCodeAt(close + 1) !== RBRACE) return false;
    if (data.indexOf('"delta":', close) !== -1 || NEEDS_FULL_PARSE.test(data)) return false;
    // A router names the provider that answered in its first events (OpenRouter's `provider`): those take the full parse.
    if (s.servedBy === null && s.tokenEvents < ROUTER_EVENTS && data.includes('"provider":"')) return false;
    addSlice(s, data, open, close, ANSWER);
    return true;
  },
  onEvent(event, data, s) {
    if (data === '[DONE]') {
      s.endMarker = true;
      return;
    }
    const chunk = parseEvent(data, s);
    if (chunk === undefined || chunk === null || typeof chunk !== 'object') return;
    if (event === 'error' || chunk.error) setStreamError(s, describeError(chunk.error ?? chunk));
    const choices = chunk.choices;
    if (Array.isArray(choices)) {
      for (let i = 0; i < choices.length; i++) readChoice(choices[i], s);
    }
    const usage = chunk.usage;
    if (usage && typeof usage === 'object') readUsage(usage, s);
    else if (chunk.x_groq?.usage && s.outputTokens === null) readUsage(chunk.x_groq.usage, s);
    readChunkTimings(chunk, s);
    if (s.servedBy === null) {
      const provider = servedValue(chunk.provider);
      if (provider) s.servedBy = { value: provider, source: 'body.provider' };
    }
  },
};

/** `completion_tokens` counts everything generated; `completion_tokens_details.reasoning_tokens` the hidden or streamed reasoning in it. */
function readUsage(usage: any, s: StreamState): void {
  const out = num(usage.completion_tokens);
  if (out !== null) s.outputTokens = out;
  const input = num(usage.prompt_tokens);
  if (input !== null) s.inputTokens = input;
  const cached = num(usage.prompt_tokens_details?.cached_tokens);
  if (cached !== null) s.cachedTokens = cached;
  setReasoningTokens(s, usage.completion_tokens_details?.reasoning_tokens);
}

function readChoice(choice: any, s: StreamState): void {
  if (!choice || typeof choice !== 'object') return;
  const delta = choice.delta;
  if (delta && typeof delta === 'object') {
    readContent(delta.content, s);
    addReasoning(s, delta.reasoning_content);
    addReasoning(s, delta.reasoning);
    addAnswer(s, delta.refusal);
    const calls = delta.tool_calls;
    if (Array.isArray(calls)) {
      for (let i = 0; i < calls.length; i++) {
        markToolCall(s, calls[i]?.function?.name);
        addToolArguments(s, calls[i]?.function?.arguments);
      }
    }
    addToolArguments(s, delta.function_call?.arguments);
  } else {
    addAnswer(s, choice.text); // legacy completions chunk
  }
  if (typeof choice.finish_reason === 'string' && choice.finish_reason) s.finishReason = choice.finish_reason;
}

/** `content` is a string, or (Mistral Magistral) an array of text and thinking parts. */
function readContent(content: unknown, s: StreamState): void {
  if (typeof content === 'string') {
    addAnswer(s, content);
    return;
  }
  if (!Array.isArray(content)) return;
  for (const part of content) {
    if (!part || typeof part !== 'object') continue;
    if (part.type === 'thinking') {
      const thinking = part.thinking;
      if (typeof thinking === 'string') addReasoning(s, thinking);
      else if (Array.isArray(thinking)) for (const t of thinking) addReasoning(s, t?.text);
    } else {
      addAnswer(s, part.text);
    }
  }
}
