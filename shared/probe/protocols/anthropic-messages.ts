import { addAnswer, addReasoning, addToolArguments, markToolCall, setStreamError, num } from '../stream-state.ts';
import { ANSWER, REASONING, TOOL, sliceBeforeBrace } from './fast-path.ts';
import { describeError, jsonRequest, parseEvent, resolveEndpoint, siblingUrl, type Protocol } from './protocol.ts';

export const ANTHROPIC_VERSION = '2023-06-01';
/** The Messages version Vertex AI's `streamRawPredict` takes in the body. */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

/** A Vertex AI endpoint for Claude: `…/publishers/anthropic/models/{model}:streamRawPredict`. */
export function isVertexRawPredict(url: string): boolean {
  return /\/publishers\/anthropic\/models\/[^/]+:streamRawPredict$/.test(new URL(url).pathname);
}

/** Anthropic Messages streaming: named SSE events from `message_start` to `message_stop`. */
export const anthropicMessages: Protocol = {
  api: 'anthropic-messages',
  framing: 'sse',
  endMarkerRequired: true,
  contentTypes: ['text/event-stream'],
  defaultPath: '/v1/messages',
  buildRequest({ target, prompt, maxTokens, cacheBreak }) {
    const url = resolveEndpoint(target.url, this.defaultPath, target.model);
    // A prompt-cache pass: Anthropic caches only up to a block marked with cache_control.
    const content =
      cacheBreak === undefined
        ? prompt
        : [
            { type: 'text', text: prompt.slice(0, cacheBreak), cache_control: { type: 'ephemeral' } },
            { type: 'text', text: prompt.slice(cacheBreak) },
          ];
    const messages = [{ role: 'user', content }];
    // Claude on Vertex AI: the model is in the URL, the version in the body, and the token a service account's (auth.ts).
    if (isVertexRawPredict(url))
      return jsonRequest(url, {}, { anthropic_version: VERTEX_ANTHROPIC_VERSION, max_tokens: maxTokens, messages, stream: true }, target);
    const auth: Record<string, string> = { 'anthropic-version': ANTHROPIC_VERSION };
    if (target.apiKey) auth['x-api-key'] = target.apiKey;
    return jsonRequest(url, auth, { model: target.model, max_tokens: maxTokens, messages, stream: true }, target);
  },
  rttUrl: (url) => siblingUrl(url, /\/messages$/, '/models'),
  fastEvent(event, data, s) {
    if (event !== 'content_block_delta') return false;
    return (
      sliceBeforeBrace(data, '"delta":{"type":"text_delta","text":"', s, ANSWER) ||
      sliceBeforeBrace(data, '"delta":{"type":"thinking_delta","thinking":"', s, REASONING) ||
      sliceBeforeBrace(data, '"delta":{"type":"input_json_delta","partial_json":"', s, TOOL)
    );
  },
  onEvent(event, data, s) {
    if (event === 'ping' || event === 'content_block_stop') return;
    if (event === 'message_stop') {
      s.endMarker = true;
      return;
    }
    const e = parseEvent(data, s);
    if (!e || typeof e !== 'object') return;
    switch (event || e.type) {
      case 'content_block_delta': {
        const d = e.delta;
        if (!d) break;
        if (d.type === 'text_delta') addAnswer(s, d.text);
        else if (d.type === 'thinking_delta') addReasoning(s, d.thinking);
        else if (d.type === 'input_json_delta') addToolArguments(s, d.partial_json);
        break;
      }
      case 'content_block_start':
        if (e.content_block?.type === 'text') addAnswer(s, e.content_block.text);
        else if (e.content_block?.type === 'tool_use') markToolCall(s, e.content_block.name);
        break;
      case 'message_start': {
        const usage = e.message?.usage;
        s.inputTokens = num(usage?.input_tokens);
        s.cachedTokens = num(usage?.cache_read_input_tokens);
        break;
      }
      case 'message_delta': {
        if (e.delta?.stop_reason) s.finishReason = e.delta.stop_reason;
        const out = num(e.usage?.output_tokens);
        if (out !== null) s.outputTokens = out;
        // Newer streams repeat the cumulative usage here, the cache counts with it.
        const cached = num(e.usage?.cache_read_input_tokens);
        if (cached !== null) s.cachedTokens = cached;
        break;
      }
      case 'message_stop':
        s.endMarker = true;
        break;
      case 'error':
        setStreamError(s, describeError(e.error ?? e));
        break;
    }
  },
};
