import { sse, type StreamFormat, type Usage } from './format.ts';

/** OpenAI Chat Completions streaming (`chat.completion.chunk` objects, `data: [DONE]`). */
export const openaiChatFormat: StreamFormat = {
  contentType: 'text/event-stream; charset=utf-8',
  open: (c) => chunk(c, { role: 'assistant', content: '' }, null),
  keepAlive: () => ': keep-alive\n\n',
  reasoning: (c, text) => chunk(c, { reasoning_content: text }, null),
  answer: (c, text) => chunk(c, { content: text }, null),
  close(c, usage, metrics) {
    let out = chunk(c, {}, 'length');
    if (c.includeUsage) {
      out += sse({
        id: c.id,
        object: 'chat.completion.chunk',
        created: c.created,
        model: c.model,
        choices: [],
        usage: chatUsage(usage),
        ...(metrics ? { metrics } : {}),
      });
    }
    return out + 'data: [DONE]\n\n';
  },
  errorEvent: (_c, message) => sse({ error: { message, type: 'server_error', param: null, code: 'internal_error' } }),
  malformed: (c) => `data: {"id":"${c.id}","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"x"\n\n`,
  padded: (c, text, padding) =>
    sse({
      id: c.id,
      object: 'chat.completion.chunk',
      created: c.created,
      model: c.model,
      choices: [{ index: 0, delta: { content: text }, finish_reason: null }],
      padding,
    }),
  httpError: (status, message) => JSON.stringify({ error: { message, type: errorType(status), param: null, code: errorCode(status) } }),
  nonStreamed: (c, text, usage) =>
    JSON.stringify({
      id: c.id,
      object: 'chat.completion',
      created: c.created,
      model: c.model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'length' }],
      usage: chatUsage(usage),
    }),
};

/** completion_tokens counts everything generated, reasoning (streamed or hidden) included. */
function chatUsage(usage: Usage) {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.promptTokens + usage.outputTokens,
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}

function chunk(c: { id: string; created: number; model: string }, delta: object, finish: string | null): string {
  return sse({
    id: c.id,
    object: 'chat.completion.chunk',
    created: c.created,
    model: c.model,
    system_fingerprint: 'ref',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
}

export function errorType(status: number): string {
  return status === 429 ? 'requests' : status >= 500 ? 'server_error' : 'invalid_request_error';
}

function errorCode(status: number): string {
  return status === 429 ? 'rate_limit_exceeded' : status === 529 ? 'overloaded' : status >= 500 ? 'internal_error' : 'invalid_request';
}
