import { sse, type StreamContext, type StreamFormat } from './format.ts';
import type { CacheUse } from './format.ts';

/**
 * Anthropic Messages streaming: message_start … content blocks … message_delta, message_stop.
 * Anthropic has no separate reasoning count: output_tokens includes the thinking, streamed or not.
 */
export const anthropicFormat: StreamFormat = {
  contentType: 'text/event-stream; charset=utf-8',
  open: (c) =>
    sse(
      {
        type: 'message_start',
        message: {
          id: `msg_${c.id}`,
          type: 'message',
          role: 'assistant',
          model: c.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...anthropicInput(c.promptTokens, c.cache), output_tokens: 1 },
        },
      },
      'message_start',
    ),
  keepAlive: () => sse({ type: 'ping' }, 'ping'),
  reasoning(c, text) {
    const out = c.state.block === 'thinking' ? '' : startBlock(c, 'thinking', { type: 'thinking', thinking: '', signature: '' });
    return (
      out +
      sse(
        { type: 'content_block_delta', index: Number(c.state.index), delta: { type: 'thinking_delta', thinking: text } },
        'content_block_delta',
      )
    );
  },
  answer(c, text) {
    const out = c.state.block === 'text' ? '' : startBlock(c, 'text', { type: 'text', text: '' });
    return (
      out + sse({ type: 'content_block_delta', index: Number(c.state.index), delta: { type: 'text_delta', text } }, 'content_block_delta')
    );
  },
  close(c, usage) {
    return (
      stopBlock(c) +
      sse(
        { type: 'message_delta', delta: { stop_reason: 'max_tokens', stop_sequence: null }, usage: { output_tokens: usage.outputTokens } },
        'message_delta',
      ) +
      sse({ type: 'message_stop' }, 'message_stop')
    );
  },
  errorEvent: (_c, message) => sse({ type: 'error', error: { type: 'api_error', message } }, 'error'),
  malformed: () => 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x\n\n',
  padded: (c, text, padding) =>
    (c.state.block === 'text' ? '' : startBlock(c, 'text', { type: 'text', text: '' })) +
    sse({ type: 'content_block_delta', index: Number(c.state.index), delta: { type: 'text_delta', text }, padding }, 'content_block_delta'),
  httpError: (status, message) => JSON.stringify({ type: 'error', error: { type: anthropicErrorType(status), message } }),
  nonStreamed: (c, text, usage) =>
    JSON.stringify({
      id: `msg_${c.id}`,
      type: 'message',
      role: 'assistant',
      model: c.model,
      content: text === '' ? [] : [{ type: 'text', text }],
      stop_reason: 'max_tokens',
      stop_sequence: null,
      usage: { ...anthropicInput(usage.promptTokens, usage.cache), output_tokens: usage.outputTokens },
    }),
};

/** Anthropic's input counts: input_tokens leaves out what was read from the cache and what was written to it. */
function anthropicInput(promptTokens: number, cache: CacheUse) {
  return {
    input_tokens: Math.max(0, promptTokens - cache.read - cache.written),
    cache_creation_input_tokens: cache.written,
    cache_read_input_tokens: cache.read,
  };
}

function startBlock(c: StreamContext, kind: string, block: object): string {
  const out = stopBlock(c);
  c.state.index = c.state.block === undefined ? 0 : Number(c.state.index) + 1;
  c.state.block = kind;
  return out + sse({ type: 'content_block_start', index: c.state.index, content_block: block }, 'content_block_start');
}

function stopBlock(c: StreamContext): string {
  if (c.state.block === undefined || c.state.block === 'stopped') return '';
  let out = '';
  if (c.state.block === 'thinking') {
    out += sse(
      { type: 'content_block_delta', index: Number(c.state.index), delta: { type: 'signature_delta', signature: 'cmVmZXJlbmNl' } },
      'content_block_delta',
    );
  }
  out += sse({ type: 'content_block_stop', index: Number(c.state.index) }, 'content_block_stop');
  c.state.block = c.state.block === 'thinking' ? 'thinking-stopped' : 'stopped';
  return out;
}

function anthropicErrorType(status: number): string {
  if (status === 429) return 'rate_limit_error';
  if (status === 529) return 'overloaded_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}
