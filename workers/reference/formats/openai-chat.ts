import { sse, type StreamContext, type StreamFormat, type Usage } from './format.ts';

/** Which chunk a choice belongs to: the opening role chunk, a reasoning or answer chunk, the finish chunk. */
export type ChoiceKind = 'role' | 'content' | 'finish';

/**
 * What a vendor serving Chat Completions adds to OpenAI's stream (Azure: content filter results).
 * OpenAI's own stream is the empty dialect.
 */
export interface ChatDialect {
  /** Chunks before the role chunk. */
  leading?(c: StreamContext): string;
  /** Fields added to the choice of each chunk, after OpenAI's. */
  choiceFields?(c: StreamContext, kind: ChoiceKind): Record<string, unknown>;
  /** Chunks after the finish chunk, before the usage chunk. */
  trailing?(c: StreamContext): string;
}

/** Chat Completions streaming (`chat.completion.chunk` objects, `data: [DONE]`) in a vendor's dialect. */
export function chatCompletionsFormat(dialect: ChatDialect = {}): StreamFormat {
  const fields = (c: StreamContext, kind: ChoiceKind) => dialect.choiceFields?.(c, kind) ?? {};
  return {
    contentType: 'text/event-stream; charset=utf-8',
    open: (c) => (dialect.leading?.(c) ?? '') + chunk(c, { role: 'assistant', content: '' }, null, fields(c, 'role')),
    keepAlive: () => ': keep-alive\n\n',
    reasoning: (c, text) => chunk(c, { reasoning_content: text }, null, fields(c, 'content')),
    answer: (c, text) => chunk(c, { content: text }, null, fields(c, 'content')),
    close(c, usage, metrics) {
      let out = chunk(c, {}, 'length', fields(c, 'finish')) + (dialect.trailing?.(c) ?? '');
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
      return `${out}data: [DONE]\n\n`;
    },
    errorEvent: (_c, message) => sse({ error: { message, type: 'server_error', param: null, code: 'internal_error' } }),
    malformed: (c) => `data: {"id":"${c.id}","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"x"\n\n`,
    padded: (c, text, padding) =>
      sse({
        id: c.id,
        object: 'chat.completion.chunk',
        created: c.created,
        model: c.model,
        choices: [{ index: 0, delta: { content: text }, finish_reason: null, ...fields(c, 'content') }],
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
}

/** OpenAI Chat Completions streaming. */
export const openaiChatFormat: StreamFormat = chatCompletionsFormat();

/** completion_tokens counts everything generated, reasoning (streamed or hidden) included. */
function chatUsage(usage: Usage) {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.promptTokens + usage.outputTokens,
    // OpenAI counts cached tokens inside prompt_tokens, and reports them (0 too) in the details.
    prompt_tokens_details: { cached_tokens: usage.cache.read },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}

function chunk(
  c: { id: string; created: number; model: string },
  delta: object,
  finish: string | null,
  fields: Record<string, unknown>,
): string {
  return sse({
    id: c.id,
    object: 'chat.completion.chunk',
    created: c.created,
    model: c.model,
    system_fingerprint: 'ref',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish, ...fields }],
  });
}

export function errorType(status: number): string {
  return status === 429 ? 'requests' : status >= 500 ? 'server_error' : 'invalid_request_error';
}

function errorCode(status: number): string {
  return status === 429 ? 'rate_limit_exceeded' : status === 529 ? 'overloaded' : status >= 500 ? 'internal_error' : 'invalid_request';
}
