import { addAnswer, addReasoning, addToolArguments, markToolCall, num, setStreamError, type StreamState } from '../stream-state.ts';
import { ANSWER, addSlice, RBRACE, stringEnd, wholeObject } from './fast-path.ts';
import { bearer, describeError, jsonRequest, parseEvent, siblingUrl, type Protocol } from './protocol.ts';

/** Anything but a plain `response` token needs the full parse. */
const NEEDS_FULL_PARSE = /"(?:usage|tool_calls|error|errors|reasoning_content)"/;
const RESPONSE_FIRST = '{"response":"';
/** A Workers AI model name: `@cf/meta/llama-3.1-8b-instruct`, `@hf/…`; path segments, never anything else. */
const MODEL_NAME = /^@?[\w.-]+(?:\/[\w.:-]+)*$/;

/**
 * Cloudflare Workers AI's REST endpoint, `POST …/accounts/{account}/ai/run/{model}` with `stream: true`:
 * SSE events `{"response":"…","p":"…"}` (`p` a random pad), a last event with `usage`, then `[DONE]`.
 * The target URL is the whole endpoint; `{model}` in it is replaced by the model's path (its `@cf/…/…`
 * segments, not percent-encoded as other protocols' model ids are). Its OpenAI-compatible endpoint
 * (`…/ai/v1/chat/completions`) is `openai-chat`.
 */
export const workersAi: Protocol = {
  api: 'workers-ai',
  framing: 'sse',
  endMarkerRequired: true,
  contentTypes: ['text/event-stream'],
  defaultPath: '/ai/run/{model}',
  buildRequest({ target, prompt, maxTokens }) {
    if (!MODEL_NAME.test(target.model))
      throw new Error(`"${target.model.slice(0, 60)}" is not a Workers AI model name like @cf/meta/llama-3.1-8b-instruct`);
    const parsed = new URL(target.url);
    if (parsed.pathname === '/' || parsed.pathname === '') parsed.pathname = this.defaultPath;
    const url = parsed.toString().replace(/%7Bmodel%7D|\{model\}/g, target.model);
    return jsonRequest(
      url,
      bearer(target.apiKey),
      { messages: [{ role: 'user', content: prompt }], max_tokens: maxTokens, stream: true },
      target,
    );
  },
  rttUrl: (url) => siblingUrl(url, /\/ai\/run\/.+$/, '/ai/models/search'),
  volatiles: [{ key: '"p":', kind: 'plain' }],
  fastEvent(event, data, s) {
    if (event !== '' || !data.startsWith(RESPONSE_FIRST) || !wholeObject(data) || NEEDS_FULL_PARSE.test(data)) return false;
    const open = RESPONSE_FIRST.length - 1;
    const close = stringEnd(data, open);
    if (close === -1) return false;
    // The token, then at most the pad: `"…"}` or `"…","p":"…"}`.
    const next = data.charCodeAt(close + 1);
    if (next !== RBRACE && !data.startsWith(',"p":"', close + 1)) return false;
    addSlice(s, data, open, close, ANSWER);
    return true;
  },
  onEvent(_event, data, s) {
    if (data === '[DONE]') {
      s.endMarker = true;
      return;
    }
    const e = parseEvent(data, s);
    if (!e || typeof e !== 'object') return;
    if (e.error || (Array.isArray(e.errors) && e.errors.length > 0)) {
      setStreamError(s, describeError(e.error ?? e.errors[0]));
      return;
    }
    addReasoning(s, e.reasoning_content);
    addAnswer(s, e.response);
    if (Array.isArray(e.tool_calls))
      for (const call of e.tool_calls) {
        markToolCall(s, call?.name ?? call?.function?.name);
        const args = call?.arguments ?? call?.function?.arguments;
        addToolArguments(s, typeof args === 'string' ? args : args === undefined ? undefined : JSON.stringify(args));
      }
    if (e.usage && typeof e.usage === 'object') readUsage(e.usage, s);
  },
};

function readUsage(usage: Record<string, unknown>, s: StreamState): void {
  const out = num(usage.completion_tokens);
  if (out !== null) s.outputTokens = out;
  const input = num(usage.prompt_tokens);
  if (input !== null) s.inputTokens = input;
}
