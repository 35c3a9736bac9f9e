import { sse, type StreamContext, type StreamFormat, type Usage } from './format.ts';
import { errorType } from './openai-chat.ts';

/**
 * OpenAI Responses API streaming: typed events with sequence numbers. Every reference stream runs
 * to max_output_tokens, so it ends as OpenAI ends such a response: `response.incomplete`, status
 * "incomplete", incomplete_details.reason "max_output_tokens" (not response.completed).
 */
export const openaiResponsesFormat: StreamFormat = {
  contentType: 'text/event-stream; charset=utf-8',
  open(c) {
    c.state.text = '';
    c.state.reasoning = '';
    return (
      event(c, 'response.created', { response: response(c, 'in_progress', null) }) +
      event(c, 'response.in_progress', { response: response(c, 'in_progress', null) })
    );
  },
  keepAlive: () => ': keep-alive\n\n',
  reasoning(c, text) {
    let out = '';
    if (!c.state.reasoningOpen) {
      c.state.reasoningOpen = true;
      out += event(c, 'response.output_item.added', { output_index: 0, item: { id: `rs_${c.id}`, type: 'reasoning', summary: [] } });
      out += event(c, 'response.reasoning_summary_part.added', {
        item_id: `rs_${c.id}`,
        output_index: 0,
        summary_index: 0,
        part: { type: 'summary_text', text: '' },
      });
    }
    c.state.reasoning += text;
    return (
      out + event(c, 'response.reasoning_summary_text.delta', { item_id: `rs_${c.id}`, output_index: 0, summary_index: 0, delta: text })
    );
  },
  answer(c, text) {
    let out = closeReasoning(c);
    if (!c.state.textOpen) {
      c.state.textOpen = true;
      const index = messageIndex(c);
      out += event(c, 'response.output_item.added', {
        output_index: index,
        item: { id: `msg_${c.id}`, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
      });
      out += event(c, 'response.content_part.added', {
        item_id: `msg_${c.id}`,
        output_index: index,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [] },
      });
    }
    c.state.text += text;
    return (
      out +
      event(c, 'response.output_text.delta', {
        item_id: `msg_${c.id}`,
        output_index: messageIndex(c),
        content_index: 0,
        delta: text,
        logprobs: [],
      })
    );
  },
  close(c, usage) {
    let out = closeReasoning(c);
    if (c.state.textOpen) {
      const index = messageIndex(c);
      const text = String(c.state.text);
      out += event(c, 'response.output_text.done', { item_id: `msg_${c.id}`, output_index: index, content_index: 0, text, logprobs: [] });
      out += event(c, 'response.content_part.done', {
        item_id: `msg_${c.id}`,
        output_index: index,
        content_index: 0,
        part: { type: 'output_text', text, annotations: [] },
      });
      out += event(c, 'response.output_item.done', { output_index: index, item: messageItem(c) });
    }
    return out + event(c, 'response.incomplete', { response: response(c, 'incomplete', usage) });
  },
  errorEvent: (c, message) => event(c, 'error', { code: 'server_error', message, param: null }),
  malformed: (c) => `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":"msg_${c.id}","delta":"x\n\n`,
  padded: (c, text, padding) =>
    event(c, 'response.output_text.delta', {
      item_id: `msg_${c.id}`,
      output_index: 0,
      content_index: 0,
      delta: text,
      logprobs: [],
      padding,
    }),
  httpError: (status, message) =>
    JSON.stringify({
      error: {
        message,
        type: errorType(status),
        param: null,
        code: status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request',
      },
    }),
  nonStreamed: (c, text, usage) =>
    JSON.stringify({
      ...response(c, 'incomplete', usage),
      output: text === '' ? [] : [{ ...messageItem(c), content: [{ type: 'output_text', text, annotations: [] }] }],
    }),
};

function event(c: StreamContext, type: string, body: object): string {
  const sequence = Number(c.state.sequence ?? 0);
  c.state.sequence = sequence + 1;
  return sse({ type, sequence_number: sequence, ...body }, type);
}

function messageIndex(c: StreamContext): number {
  return c.state.reasoning ? 1 : 0;
}

function closeReasoning(c: StreamContext): string {
  if (!c.state.reasoningOpen || c.state.reasoningDone) return '';
  c.state.reasoningDone = true;
  const text = String(c.state.reasoning);
  return (
    event(c, 'response.reasoning_summary_text.done', { item_id: `rs_${c.id}`, output_index: 0, summary_index: 0, text }) +
    event(c, 'response.reasoning_summary_part.done', {
      item_id: `rs_${c.id}`,
      output_index: 0,
      summary_index: 0,
      part: { type: 'summary_text', text },
    }) +
    event(c, 'response.output_item.done', { output_index: 0, item: reasoningItem(c) })
  );
}

function reasoningItem(c: StreamContext) {
  return { id: `rs_${c.id}`, type: 'reasoning', summary: [{ type: 'summary_text', text: String(c.state.reasoning) }] };
}

/** The answer message, cut short by max_output_tokens like every reference response. */
function messageItem(c: StreamContext) {
  return {
    id: `msg_${c.id}`,
    type: 'message',
    status: 'incomplete',
    role: 'assistant',
    content: [{ type: 'output_text', text: String(c.state.text ?? ''), annotations: [] }],
  };
}

function response(c: StreamContext, status: 'in_progress' | 'incomplete', usage: Usage | null) {
  const output =
    status === 'incomplete' ? [...(c.state.reasoning ? [reasoningItem(c)] : []), ...(c.state.textOpen ? [messageItem(c)] : [])] : [];
  return {
    id: `resp_${c.id}`,
    object: 'response',
    created_at: c.created,
    status,
    model: c.model,
    output,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    error: null,
    instructions: null,
    parallel_tool_calls: true,
    tools: [],
    tool_choice: 'auto',
    usage: usage && {
      input_tokens: usage.promptTokens,
      input_tokens_details: { cached_tokens: usage.cache.read },
      output_tokens: usage.outputTokens,
      output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
      total_tokens: usage.promptTokens + usage.outputTokens,
    },
  };
}
