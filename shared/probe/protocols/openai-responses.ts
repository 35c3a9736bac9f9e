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
import { ANSWER, REASONING, TOOL, addSlice, stringAfter, stringEnd, type OutputKind, wholeObject } from './fast-path.ts';
import { bearer, describeError, jsonRequest, parseEvent, resolveEndpoint, siblingUrl, type Protocol } from './protocol.ts';

/** Event types that carry nothing a probe needs; skipped without parsing their (often large) JSON. */
const IGNORED = new Set([
  'response.created',
  'response.in_progress',
  'response.queued',
  'response.output_item.done',
  'response.content_part.added',
  'response.content_part.done',
  'response.output_text.done',
  'response.reasoning_summary_part.added',
  'response.reasoning_summary_part.done',
  'response.reasoning_summary_text.done',
  'response.reasoning_text.done',
  'response.function_call_arguments.done',
  'response.output_text.annotation.added',
]);

/** OpenAI Responses API streaming: named SSE events ending with `response.completed`. */
export const openaiResponses: Protocol = {
  api: 'openai-responses',
  framing: 'sse',
  endMarkerRequired: true,
  contentTypes: ['text/event-stream'],
  defaultPath: '/v1/responses',
  buildRequest({ target, prompt, maxTokens }) {
    return jsonRequest(
      resolveEndpoint(target.url, this.defaultPath, target.model),
      bearer(target.apiKey),
      {
        model: target.model,
        input: prompt,
        stream: true,
        max_output_tokens: maxTokens,
      },
      target,
    );
  },
  rttUrl: (url) => siblingUrl(url, /\/responses$/, '/models'),
  volatiles: [
    { key: '"sequence_number":', kind: 'digits' },
    { key: '"obfuscation":', kind: 'plain' },
  ],
  fastEvent(event, data, s) {
    const kind: OutputKind | -1 =
      event === 'response.output_text.delta'
        ? ANSWER
        : event === 'response.reasoning_summary_text.delta' || event === 'response.reasoning_text.delta'
          ? REASONING
          : event === 'response.function_call_arguments.delta'
            ? TOOL
            : -1;
    if (kind === -1 || !wholeObject(data)) return false;
    const open = stringAfter(data, '"delta":"');
    const close = open === -1 ? -1 : stringEnd(data, open);
    if (close === -1) return false;
    addSlice(s, data, open, close, kind);
    return true;
  },
  onEvent(event, data, s) {
    if (event !== '' && IGNORED.has(event)) return;
    const e = parseEvent(data, s);
    if (!e || typeof e !== 'object') return;
    const type = typeof e.type === 'string' ? e.type : event;
    switch (type) {
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        addAnswer(s, e.delta);
        break;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        addReasoning(s, e.delta);
        break;
      case 'response.function_call_arguments.delta':
      case 'response.custom_tool_call_input.delta':
        addToolArguments(s, e.delta);
        break;
      case 'response.output_item.added':
        // A function call begins with its name, as in Chat Completions and Anthropic: answer output from here.
        if (e.item?.type === 'function_call' || e.item?.type === 'custom_tool_call') markToolCall(s, e.item.name);
        break;
      case 'response.completed':
      case 'response.incomplete':
        s.endMarker = true;
        readFinal(e.response, s);
        break;
      case 'response.failed':
        s.endMarker = true;
        readFinal(e.response, s);
        setStreamError(s, describeError(e.response?.error ?? 'response.failed'));
        break;
      case 'error':
        setStreamError(s, describeError(e.error ?? e));
        break;
    }
  },
};

function readFinal(response: any, s: StreamState): void {
  if (!response || typeof response !== 'object') return;
  s.finishReason = response.incomplete_details?.reason ?? response.status ?? null;
  const usage = response.usage;
  if (usage && typeof usage === 'object') {
    s.outputTokens = num(usage.output_tokens);
    s.inputTokens = num(usage.input_tokens);
    s.cachedTokens = num(usage.input_tokens_details?.cached_tokens);
    setReasoningTokens(s, usage.output_tokens_details?.reasoning_tokens);
  }
}
