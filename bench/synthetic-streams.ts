/**
 * Realistic 1,000-token streams for each protocol, shaped like the recorded ones (ids, padding
 * fields, usage), cut into one read per event: the worst case for per-read overhead.
 */
import type { ApiId } from '../shared/types.ts';

export const TOKENS = 1_000;

const word = (i: number) => [' the', ' quick', ' brown', ' fox', ' jumps', ' over', ' lazy', ' dogs', '.', '\n'][i % 10];
const pad = (i: number) => 'abcdefghijklmnop'.slice(0, 3 + (i % 13));

function openaiChat(): string[] {
  const head = {
    id: 'chatcmpl-ASYMZ4oSykiIFK4lXLReDiKyAjsQl',
    object: 'chat.completion.chunk',
    created: 1731368639,
    model: 'gpt-4o-mini-2024-07-18',
    system_fingerprint: 'fp_b547601dbd',
    service_tier: 'default',
  };
  const events = [
    `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null }], usage: null, obfuscation: 'x' })}\n\n`,
  ];
  for (let i = 0; i < TOKENS; i++) {
    events.push(
      `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta: { content: word(i) }, logprobs: null, finish_reason: null }], usage: null, obfuscation: pad(i) })}\n\n`,
    );
  }
  events.push(
    `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'length' }], usage: null })}\n\n`,
  );
  events.push(
    `data: ${JSON.stringify({ ...head, choices: [], usage: { prompt_tokens: 64, completion_tokens: TOKENS, total_tokens: TOKENS + 64, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } } })}\n\n`,
  );
  events.push('data: [DONE]\n\n');
  return events;
}

function openaiResponses(): string[] {
  const response = {
    id: 'resp_0415a3de5d3015560069e2f3f4b3088192949253e91aff1eb3',
    object: 'response',
    created_at: 1776481268,
    status: 'in_progress',
    model: 'gpt-4o-mini-2024-07-18',
    output: [] as unknown[],
    instructions: null,
    max_output_tokens: TOKENS,
    parallel_tool_calls: true,
    reasoning: { effort: null, summary: null },
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage: null as unknown,
    metadata: {},
  };
  const ev = (type: string, body: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`;
  let seq = 0;
  const events = [
    ev('response.created', { sequence_number: seq++, response }),
    ev('response.in_progress', { sequence_number: seq++, response }),
    ev('response.output_item.added', {
      sequence_number: seq++,
      output_index: 0,
      item: { id: 'msg_1', type: 'message', status: 'in_progress', content: [], role: 'assistant' },
    }),
    ev('response.content_part.added', {
      sequence_number: seq++,
      item_id: 'msg_1',
      output_index: 0,
      content_index: 0,
      part: { type: 'output_text', annotations: [], text: '' },
    }),
  ];
  let text = '';
  for (let i = 0; i < TOKENS; i++) {
    text += word(i);
    events.push(
      ev('response.output_text.delta', {
        sequence_number: seq++,
        item_id: 'msg_1',
        output_index: 0,
        content_index: 0,
        delta: word(i),
        logprobs: [],
        obfuscation: pad(i),
      }),
    );
  }
  events.push(ev('response.output_text.done', { sequence_number: seq++, item_id: 'msg_1', output_index: 0, content_index: 0, text }));
  const done = {
    ...response,
    status: 'completed',
    output: [
      { id: 'msg_1', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', annotations: [], text }] },
    ],
    usage: { input_tokens: 64, output_tokens: TOKENS, total_tokens: TOKENS + 64 },
  };
  events.push(ev('response.completed', { sequence_number: seq++, response: done }));
  return events;
}

function anthropicMessages(): string[] {
  const ev = (type: string, body: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`;
  const events = [
    ev('message_start', {
      message: {
        model: 'claude-sonnet-4-5-20250929',
        id: 'msg_017A4s3HAsrqf5d2WvBmrpLr',
        type: 'message',
        role: 'assistant',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 64, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
      },
    }),
    ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    ev('ping', {}),
  ];
  for (let i = 0; i < TOKENS; i++) events.push(ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: word(i) } }));
  events.push(ev('content_block_stop', { index: 0 }));
  events.push(ev('message_delta', { delta: { stop_reason: 'max_tokens', stop_sequence: null }, usage: { output_tokens: TOKENS } }));
  events.push(ev('message_stop', {}));
  return events;
}

function gemini(): string[] {
  const events: string[] = [];
  for (let i = 0; i < TOKENS; i++) {
    const last = i === TOKENS - 1;
    const body = {
      candidates: [{ content: { parts: [{ text: word(i) }], role: 'model' }, ...(last ? { finishReason: 'MAX_TOKENS' } : {}), index: 0 }],
      usageMetadata: {
        promptTokenCount: 64,
        candidatesTokenCount: i + 1,
        totalTokenCount: 65 + i,
        promptTokensDetails: [{ modality: 'TEXT', tokenCount: 64 }],
      },
      modelVersion: 'gemini-2.0-flash',
      responseId: 'w1peaMz6INOvnvgPgYfPiQY',
    };
    events.push(`data: ${JSON.stringify(body)}\r\n\r\n`);
  }
  return events;
}

function ollama(): string[] {
  const events: string[] = [];
  for (let i = 0; i < TOKENS; i++) {
    events.push(
      `${JSON.stringify({
        model: 'llama3',
        created_at: `2024-05-24T20:26:46.${String(294874 + i).padStart(6, '0')}Z`,
        message: { role: 'assistant', content: word(i) },
        done: false,
      })}\n`,
    );
  }
  events.push(
    `${JSON.stringify({
      model: 'llama3',
      created_at: '2024-05-24T20:26:47.872905Z',
      message: { role: 'assistant', content: '' },
      done_reason: 'length',
      done: true,
      total_duration: 1897385625,
      load_duration: 1631208,
      prompt_eval_count: 64,
      prompt_eval_duration: 313560000,
      eval_count: TOKENS,
      eval_duration: 1577990000,
    })}\n`,
  );
  return events;
}

function cohereChat(): string[] {
  const ev = (type: string, body: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`;
  const events = [
    ev('message-start', {
      id: '6cd6ce61-bb3b-46f6-907e-fcfab45e51b6',
      delta: { message: { role: 'assistant', content: [], tool_plan: '', tool_calls: [], citations: [] } },
    }),
    ev('content-start', { index: 0, delta: { message: { content: { type: 'text', text: '' } } } }),
  ];
  for (let i = 0; i < TOKENS; i++) events.push(ev('content-delta', { index: 0, delta: { message: { content: { text: word(i) } } } }));
  events.push(ev('content-end', { index: 0 }));
  events.push(
    ev('message-end', {
      delta: {
        finish_reason: 'MAX_TOKENS',
        usage: { billed_units: { input_tokens: 64, output_tokens: TOKENS }, tokens: { input_tokens: 64, output_tokens: TOKENS } },
      },
    }),
  );
  events.push('data: [DONE]\n\n');
  return events;
}

export const STREAMS: Array<{ api: ApiId; framing: 'sse' | 'ndjson'; events: () => string[] }> = [
  { api: 'openai-chat', framing: 'sse', events: openaiChat },
  { api: 'openai-responses', framing: 'sse', events: openaiResponses },
  { api: 'anthropic-messages', framing: 'sse', events: anthropicMessages },
  { api: 'gemini', framing: 'sse', events: gemini },
  { api: 'ollama', framing: 'ndjson', events: ollama },
  { api: 'cohere-chat', framing: 'sse', events: cohereChat },
];
