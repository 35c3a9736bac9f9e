/**
 * An independent client of the reference endpoint's four wire formats for the tests: plain fetch
 * and its own event reading (not the probe's parser), each format's stream reduced to the same
 * few facts: reasoning and answer text, finish reason, usage, when the first answer arrived.
 */
export const APIS = ['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini'] as const;
export type Api = (typeof APIS)[number];

/** The finish reason each format gives a stream that ran out of max tokens. */
export const LENGTH_FINISH: Record<Api, string> = {
  'openai-chat': 'length',
  'openai-responses': 'max_output_tokens',
  'anthropic-messages': 'max_tokens',
  gemini: 'MAX_TOKENS',
};

/**
 * Events each format sends before its first answer delta when nothing is streamed for reasoning:
 * Chat the role chunk; Responses created, in_progress, output_item.added, content_part.added;
 * Anthropic message_start, content_block_start; Gemini nothing.
 */
export const EVENTS_BEFORE_ANSWER: Record<Api, number> = { 'openai-chat': 1, 'openai-responses': 4, 'anthropic-messages': 2, gemini: 0 };

const ANSWER_WORDS = ['The', ' keeper', ' climbed', ' the', ' tower', ' and', ' lit', ' a', ' lamp', ' at', ' dusk', '.'];
const REASONING_WORDS = ['Let', ' me', ' think', ' about', ' the', ' story', ' first', '.'];
const words = (list: string[], n: number) => Array.from({ length: n }, (_, i) => list[i % list.length]).join('');
/** The reference's answer text of n tokens. */
export const answerText = (n: number) => words(ANSWER_WORDS, n);
/** The reference's reasoning text of n tokens. */
export const reasoningText = (n: number) => words(REASONING_WORDS, n);

export interface Ask {
  model: string;
  maxTokens: number;
  /** x-ref-params */
  params?: string;
  /** x-ref-fault */
  fault?: string;
  /** Extra body fields (for Gemini, `generationConfig` fields merge into its generationConfig). */
  extra?: Record<string, unknown>;
}

/** The request each format's clients send for `ask`, streaming. */
export function requestOf(api: Api, ask: Ask): { path: string; body: Record<string, unknown> } {
  const extra = ask.extra ?? {};
  const messages = [{ role: 'user', content: 'hello' }];
  switch (api) {
    case 'openai-chat':
      return {
        path: '/v1/chat/completions',
        body: { model: ask.model, messages, max_tokens: ask.maxTokens, stream: true, stream_options: { include_usage: true }, ...extra },
      };
    case 'openai-responses':
      return {
        path: '/v1/responses',
        body: { model: ask.model, input: 'hello', max_output_tokens: ask.maxTokens, stream: true, ...extra },
      };
    case 'anthropic-messages':
      return { path: '/v1/messages', body: { model: ask.model, messages, max_tokens: ask.maxTokens, stream: true, ...extra } };
    case 'gemini': {
      const { generationConfig, ...rest } = extra as { generationConfig?: Record<string, unknown> };
      return {
        path: `/v1beta/models/${ask.model}:streamGenerateContent?alt=sse`,
        body: {
          contents: [{ role: 'user', parts: [{ text: 'hello' }] }],
          generationConfig: { maxOutputTokens: ask.maxTokens, ...generationConfig },
          ...rest,
        },
      };
    }
  }
}

export interface Observed {
  status: number;
  headers: Headers;
  /** ms from sending the request to its headers, and to the first answer delta. */
  headersMs: number;
  firstAnswerMs: number | null;
  reasoning: string;
  answer: string;
  finish: string | null;
  /** Responses only: the terminal event and the response's status. */
  end: string | null;
  responseStatus: string | null;
  /** Everything generated, reasoning included. */
  outputTokens: number | null;
  /** null where the format has no field for it (Anthropic). */
  reasoningTokens: number | null;
  /** Gemini's candidatesTokenCount (answer only; absent means 0). */
  answerTokens: number | null;
  /** Data events before the first answer delta (all of them when no answer came). */
  eventsBeforeAnswer: number;
  events: number;
  raw: string;
  /** The JSON body of a non-200 answer. */
  error: unknown;
}

/** Sends `ask` in `api`'s format and reads the whole stream. */
export async function observe(baseUrl: string, api: Api, ask: Ask): Promise<Observed> {
  const { path, body } = requestOf(api, ask);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (ask.params) headers['x-ref-params'] = ask.params;
  if (ask.fault) headers['x-ref-fault'] = ask.fault;
  const t0 = performance.now();
  const response = await fetch(baseUrl + path, { method: 'POST', headers, body: JSON.stringify(body) });
  const o: Observed = {
    status: response.status,
    headers: response.headers,
    headersMs: performance.now() - t0,
    firstAnswerMs: null,
    reasoning: '',
    answer: '',
    finish: null,
    end: null,
    responseStatus: null,
    outputTokens: null,
    reasoningTokens: null,
    answerTokens: null,
    eventsBeforeAnswer: 0,
    events: 0,
    raw: '',
    error: null,
  };
  if (response.status !== 200) {
    o.error = await response.json();
    return o;
  }
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let pending = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const text = decoder.decode(value, { stream: true });
    o.raw += text;
    pending += text.replaceAll('\r\n', '\n');
    let end: number;
    while ((end = pending.indexOf('\n\n')) !== -1) {
      const block = pending.slice(0, end);
      pending = pending.slice(end + 2);
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice('data:'.length).trim())
        .join('\n');
      if (data === '') continue; // a comment (keep-alive)
      o.events++;
      const hadAnswer = o.answer !== '';
      if (data !== '[DONE]') READERS[api](JSON.parse(data), o);
      if (!hadAnswer && o.answer !== '') o.firstAnswerMs = performance.now() - t0;
      if (o.answer === '') o.eventsBeforeAnswer++;
    }
  }
  return o;
}

const READERS: Record<Api, (e: any, o: Observed) => void> = {
  'openai-chat'(e, o) {
    const choice = e.choices?.[0];
    if (choice?.delta?.reasoning_content) o.reasoning += choice.delta.reasoning_content;
    if (choice?.delta?.content) o.answer += choice.delta.content;
    if (choice?.finish_reason) o.finish = choice.finish_reason;
    if (e.usage) {
      o.outputTokens = e.usage.completion_tokens;
      o.reasoningTokens = e.usage.completion_tokens_details?.reasoning_tokens ?? null;
    }
  },
  'openai-responses'(e, o) {
    if (e.type === 'response.reasoning_summary_text.delta') o.reasoning += e.delta;
    if (e.type === 'response.output_text.delta') o.answer += e.delta;
    if (e.type === 'response.completed' || e.type === 'response.incomplete') {
      o.end = e.type;
      o.responseStatus = e.response.status;
      o.finish = e.response.incomplete_details?.reason ?? e.response.status;
      o.outputTokens = e.response.usage.output_tokens;
      o.reasoningTokens = e.response.usage.output_tokens_details?.reasoning_tokens ?? null;
    }
  },
  'anthropic-messages'(e, o) {
    if (e.type === 'content_block_delta' && e.delta.type === 'thinking_delta') o.reasoning += e.delta.thinking;
    if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') o.answer += e.delta.text;
    if (e.type === 'message_delta') {
      o.finish = e.delta.stop_reason;
      o.outputTokens = e.usage.output_tokens;
    }
  },
  gemini(e, o) {
    const candidate = e.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      if (part.thought) o.reasoning += part.text;
      else if (part.text) o.answer += part.text;
    }
    if (candidate?.finishReason) {
      o.finish = candidate.finishReason;
      const usage = e.usageMetadata;
      o.answerTokens = usage.candidatesTokenCount ?? 0;
      o.reasoningTokens = usage.thoughtsTokenCount ?? 0;
      o.outputTokens = o.answerTokens! + o.reasoningTokens!;
    }
  },
};

/** Server-Timing metrics by name (dur in ms). */
export function serverTimingMetrics(header: string | null): Map<string, number> {
  const metrics = new Map<string, number>();
  for (const entry of (header ?? '').split(',')) {
    const name = entry.split(';')[0].trim();
    const dur = /;\s*dur=([\d.]+)/.exec(entry)?.[1];
    if (name && dur !== undefined) metrics.set(name, Number(dur));
  }
  return metrics;
}
