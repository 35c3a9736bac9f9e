import { addAnswer, addReasoning, addToolArguments, markToolCall, setStreamError, num, type StreamState } from '../stream-state.ts';
import { ANSWER, sliceBeforeBrace } from './fast-path.ts';
import { bearer, describeError, jsonRequest, parseEvent, resolveEndpoint, siblingUrl, type Protocol } from './protocol.ts';

/** Cohere v2 `/v2/chat` streaming: named SSE events `message-start` … `message-end`, then `[DONE]`. */
export const cohereChat: Protocol = {
  api: 'cohere-chat',
  framing: 'sse',
  endMarkerRequired: true,
  contentTypes: ['text/event-stream'],
  defaultPath: '/v2/chat',
  buildRequest({ target, prompt, maxTokens }) {
    return jsonRequest(
      resolveEndpoint(target.url, this.defaultPath, target.model),
      bearer(target.apiKey),
      {
        model: target.model,
        messages: [{ role: 'user', content: prompt }],
        stream: true,
        max_tokens: maxTokens,
      },
      target,
    );
  },
  rttUrl: (url) => siblingUrl(url, /\/v2\/chat$/, '/v1/models'),
  fastEvent(event, data, s) {
    return event === 'content-delta' && sliceBeforeBrace(data, '"content":{"text":"', s, ANSWER);
  },
  onEvent(event, data, s) {
    if (data === '[DONE]') {
      s.endMarker = true;
      return;
    }
    if (event === 'content-start' || event === 'content-end' || event === 'tool-call-end') return;
    const e = parseEvent(data, s);
    if (!e || typeof e !== 'object') return;
    const message = e.delta?.message;
    switch (event || e.type) {
      case 'content-delta':
        addAnswer(s, message?.content?.text);
        addReasoning(s, message?.content?.thinking);
        break;
      case 'tool-plan-delta':
        addReasoning(s, message?.tool_plan);
        break;
      case 'tool-call-start':
        markToolCall(s, message?.tool_calls?.function?.name);
        addToolArguments(s, message?.tool_calls?.function?.arguments);
        break;
      case 'tool-call-delta':
        addToolArguments(s, message?.tool_calls?.function?.arguments);
        break;
      case 'message-end':
        s.endMarker = true;
        readEnd(e.delta?.finish_reason, e.delta?.usage, s);
        break;
      case 'error':
        setStreamError(s, describeError(e.error ?? e.message ?? e));
        break;
    }
  },
};

/** Cohere v1 `/v1/chat` streaming: newline-delimited JSON, `stream-start` … `stream-end`. */
export const cohereChatV1: Protocol = {
  api: 'cohere-chat-v1',
  framing: 'ndjson',
  endMarkerRequired: true,
  contentTypes: ['application/stream+json', 'application/x-ndjson', 'application/json'],
  defaultPath: '/v1/chat',
  buildRequest({ target, prompt, maxTokens }) {
    return jsonRequest(
      resolveEndpoint(target.url, this.defaultPath, target.model),
      bearer(target.apiKey),
      {
        model: target.model,
        message: prompt,
        stream: true,
        max_tokens: maxTokens,
      },
      target,
    );
  },
  rttUrl: (url) => siblingUrl(url, /\/v1\/chat$/, '/v1/models'),
  onEvent(_event, data, s) {
    const e = parseEvent(data, s);
    if (!e || typeof e !== 'object') return;
    switch (e.event_type) {
      case 'text-generation':
        addAnswer(s, e.text);
        break;
      case 'tool-calls-chunk':
        addToolArguments(s, e.tool_call_delta?.parameters ?? e.text);
        break;
      case 'stream-end':
        s.endMarker = true;
        readEnd(e.finish_reason, e.response?.meta, s);
        if (e.finish_reason === 'ERROR') setStreamError(s, describeError(e.response?.text ?? 'ERROR'));
        break;
    }
  },
};

function readEnd(finishReason: unknown, usage: any, s: StreamState): void {
  if (typeof finishReason === 'string') s.finishReason = finishReason;
  if (!usage || typeof usage !== 'object') return;
  s.outputTokens = num(usage.tokens?.output_tokens) ?? num(usage.billed_units?.output_tokens);
  s.inputTokens = num(usage.tokens?.input_tokens) ?? num(usage.billed_units?.input_tokens);
}
