/**
 * Reasoning models on a fake clock (MEASUREMENT.md, method version 2): reasoning tokens read from
 * every protocol that reports them, TPOT and decode speed over the answer alone whether the reasoning
 * was hidden, summarised or streamed, and `no_answer` for a stream that ends without one answer token
 * in every protocol.
 */
import { describe, expect, it } from 'vitest';
import { runProbe } from '../../../shared/probe/probe.ts';
import type { ApiId } from '../../../shared/types.ts';
import { FakeClock, scriptedFetch, type Step } from '../../helpers/scripted-fetch.ts';

const sse = (data: unknown, event?: string) =>
  `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
const line = (data: unknown) => `${JSON.stringify(data)}\n`;

interface Wire {
  contentType?: string;
  /** Events before any token (role chunk, message_start …). */
  open: string;
  reasoning(text: string): string;
  answer(text: string): string;
  /** Finish reason and usage: `reasoning` tokens reported when not null. */
  close(finish: 'stop' | 'length', output: number, reasoning: number | null): string;
}

/** The text wire formats; Bedrock's binary stream has its own cases (reasoning, no_answer) in bedrock-converse.test.ts. */
type TextApi = Exclude<ApiId, 'bedrock-converse'>;

/** One stream shape per protocol, as each vendor documents it. */
const WIRES: Record<TextApi, Wire> = {
  'openai-chat': {
    open: sse({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }),
    reasoning: (t) => sse({ choices: [{ index: 0, delta: { reasoning_content: t }, finish_reason: null }] }),
    answer: (t) => sse({ choices: [{ index: 0, delta: { content: t }, finish_reason: null }] }),
    close: (finish, output, reasoning) =>
      sse({ choices: [{ index: 0, delta: {}, finish_reason: finish }] }) +
      sse({
        choices: [],
        usage: {
          prompt_tokens: 10,
          completion_tokens: output,
          ...(reasoning === null ? {} : { completion_tokens_details: { reasoning_tokens: reasoning } }),
        },
      }) +
      'data: [DONE]\n\n',
  },
  'openai-responses': {
    open: sse({ type: 'response.created', response: { status: 'in_progress' } }, 'response.created'),
    reasoning: (t) => sse({ type: 'response.reasoning_summary_text.delta', delta: t }, 'response.reasoning_summary_text.delta'),
    answer: (t) => sse({ type: 'response.output_text.delta', delta: t }, 'response.output_text.delta'),
    close: (finish, output, reasoning) => {
      const usage = {
        input_tokens: 10,
        output_tokens: output,
        ...(reasoning === null ? {} : { output_tokens_details: { reasoning_tokens: reasoning } }),
      };
      return finish === 'stop'
        ? sse({ type: 'response.completed', response: { status: 'completed', usage } }, 'response.completed')
        : sse(
            { type: 'response.incomplete', response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, usage } },
            'response.incomplete',
          );
    },
  },
  'anthropic-messages': {
    open: sse({ type: 'message_start', message: { usage: { input_tokens: 10, output_tokens: 1 } } }, 'message_start'),
    reasoning: (t) => sse({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: t } }, 'content_block_delta'),
    answer: (t) => sse({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: t } }, 'content_block_delta'),
    close: (finish, output) =>
      sse(
        { type: 'message_delta', delta: { stop_reason: finish === 'stop' ? 'end_turn' : 'max_tokens' }, usage: { output_tokens: output } },
        'message_delta',
      ) + sse({ type: 'message_stop' }, 'message_stop'),
  },
  gemini: {
    open: '',
    reasoning: (t) => sse({ candidates: [{ content: { role: 'model', parts: [{ text: t, thought: true }] } }] }),
    answer: (t) => sse({ candidates: [{ content: { role: 'model', parts: [{ text: t }] } }] }),
    close: (finish, output, reasoning) =>
      sse({
        candidates: [{ content: { role: 'model', parts: [] }, finishReason: finish === 'stop' ? 'STOP' : 'MAX_TOKENS' }],
        usageMetadata: {
          promptTokenCount: 10,
          candidatesTokenCount: output - (reasoning ?? 0),
          ...(reasoning === null ? {} : { thoughtsTokenCount: reasoning }),
        },
      }),
  },
  'workers-ai': {
    open: '',
    reasoning: (t) => sse({ response: '', reasoning_content: t, p: 'abc' }),
    answer: (t) => sse({ response: t, p: 'abcdef' }),
    close: (_finish, output) =>
      `${sse({ response: '', usage: { prompt_tokens: 10, completion_tokens: output, total_tokens: 10 + output } })}data: [DONE]\n\n`,
  },
  ollama: {
    contentType: 'application/x-ndjson',
    open: '',
    reasoning: (t) => line({ model: 'm', message: { role: 'assistant', content: '', thinking: t }, done: false }),
    answer: (t) => line({ model: 'm', message: { role: 'assistant', content: t }, done: false }),
    close: (finish, output) =>
      line({
        model: 'm',
        message: { role: 'assistant', content: '' },
        done: true,
        done_reason: finish,
        eval_count: output,
        prompt_eval_count: 10,
      }),
  },
  'cohere-chat': {
    open: sse({ type: 'message-start' }, 'message-start'),
    reasoning: (t) => sse({ type: 'content-delta', delta: { message: { content: { thinking: t } } } }, 'content-delta'),
    answer: (t) => sse({ type: 'content-delta', delta: { message: { content: { text: t } } } }, 'content-delta'),
    close: (finish, output) =>
      `${sse(
        {
          type: 'message-end',
          delta: {
            finish_reason: finish === 'stop' ? 'COMPLETE' : 'MAX_TOKENS',
            usage: { tokens: { input_tokens: 10, output_tokens: output } },
          },
        },
        'message-end',
      )}data: [DONE]\n\n`,
  },
  'cohere-chat-v1': {
    contentType: 'application/stream+json',
    open: line({ event_type: 'stream-start' }),
    reasoning: () => '',
    answer: (t) => line({ event_type: 'text-generation', text: t }),
    close: (finish, output) =>
      line({
        event_type: 'stream-end',
        finish_reason: finish === 'stop' ? 'COMPLETE' : 'MAX_TOKENS',
        response: { meta: { tokens: { input_tokens: 10, output_tokens: output } } },
      }),
  },
  'tgi-generate': {
    open: '',
    reasoning: () => '',
    answer: (t) => sse({ token: { id: 1, text: t, special: false }, generated_text: null, details: null }),
    close: (finish, output) =>
      sse({
        token: { id: 2, text: '', special: true },
        generated_text: '',
        details: { finish_reason: finish === 'stop' ? 'eos_token' : 'length', generated_tokens: output },
      }),
  },
};

const HEADERS_AT = 50;
const FIRST_READ_AT = 100;

/** Probes a scripted stream on a fake clock: reads at the given times. */
async function probe(api: TextApi, reads: Array<{ at: number; data: string }>, maxTokens = 400) {
  const clock = new FakeClock();
  const wire = WIRES[api];
  const steps: Step[] = reads.filter((r) => r.data !== '').map((r) => ({ at: r.at, data: r.data }));
  const fetch = scriptedFetch(
    { headersAt: HEADERS_AT, headers: { 'content-type': wire.contentType ?? 'text/event-stream' }, steps },
    clock,
  );
  const { sample } = await runProbe({
    target: { id: 't', api, url: 'http://127.0.0.1:9/', model: 'm' },
    prompt: { id: 'p', promptTokens: 10, maxTokens },
    fetch,
    now: clock.now,
    timeouts: { headersMs: 60_000, firstTokenMs: 60_000, idleMs: 60_000, totalMs: 120_000 },
  });
  return sample;
}

/** `answers` answer reads GAP ms apart, after `reasoningReads` streamed reasoning reads (none: hidden). */
function answerStream(api: TextApi, o: { reasoningReads: number; answers: number; gap: number; reasoningTokens: number | null }) {
  const w = WIRES[api];
  const reads: Array<{ at: number; data: string }> = [{ at: FIRST_READ_AT, data: w.open }];
  let at = FIRST_READ_AT;
  for (let i = 0; i < o.reasoningReads; i++) reads.push({ at: (at += 1), data: w.reasoning(`r${i} `) });
  // Hidden reasoning takes its time on the server before the first answer token: 3 s here.
  at += 3_000;
  for (let i = 0; i < o.answers; i++) reads.push({ at: (at += i === 0 ? 0 : o.gap), data: w.answer(`a${i} `) });
  reads.push({ at: (at += 1), data: w.close('stop', (o.reasoningTokens ?? o.reasoningReads) + o.answers, o.reasoningTokens) });
  return reads;
}

describe('reasoning reported in usage: TPOT is the decode of the answer', () => {
  // 300 reasoning tokens reported, none streamed, then 20 answer tokens 10 ms apart: TPOT must be 10 ms, not 0.6.
  for (const api of ['openai-chat', 'openai-responses', 'gemini'] as const) {
    it(`${api}: hidden reasoning`, async () => {
      const s = await probe(api, answerStream(api, { reasoningReads: 0, answers: 20, gap: 10, reasoningTokens: 300 }));
      expect(s).toMatchObject({
        error: null,
        output_tokens: 320,
        reasoning_tokens: 300,
        answer_tokens: 20,
        reasoning_streamed: false,
        tokens_exact: true,
      });
      expect(s.tpot_ms).toBe(10);
      expect(s.decode_tps).toBe(100);
      // Nothing was streamed before the answer, so the first token is the first answer token, after the hidden thinking.
      expect(s.ttft_ms).toBe(s.ttfa_ms);
      expect(s.ttfa_ms).toBeGreaterThanOrEqual(3_000);
    });

    it(`${api}: reasoning streamed (or summarised) and reported`, async () => {
      const s = await probe(api, answerStream(api, { reasoningReads: 5, answers: 20, gap: 10, reasoningTokens: 300 }));
      expect(s).toMatchObject({ error: null, reasoning_tokens: 300, answer_tokens: 20, reasoning_streamed: true });
      expect(s.tpot_ms).toBe(10);
      expect(s.ttfa_ms! - s.ttft_ms!).toBeGreaterThanOrEqual(3_000);
    });

    it(`${api}: zero reasoning tokens reported is an ordinary answer`, async () => {
      const s = await probe(api, answerStream(api, { reasoningReads: 0, answers: 20, gap: 10, reasoningTokens: 0 }));
      expect(s).toMatchObject({ error: null, reasoning_tokens: 0, answer_tokens: 20, tpot_ms: 10 });
    });
  }

  for (const api of ['anthropic-messages', 'ollama', 'cohere-chat'] as const) {
    it(`${api}: streamed reasoning without a reported count stays in the streamed span`, async () => {
      // 5 reasoning reads 1 ms apart, 3 s, then 20 answer reads 10 ms apart; 25 output tokens over the whole streamed span.
      const s = await probe(api, answerStream(api, { reasoningReads: 5, answers: 20, gap: 10, reasoningTokens: null }));
      expect(s).toMatchObject({ error: null, reasoning_tokens: null, reasoning_streamed: true, output_tokens: 25, answer_tokens: 25 });
      const span = s.timeline[s.timeline.length - 1] - s.timeline[0];
      expect(s.tpot_ms).toBeCloseTo(span / 24, 1);
    });
  }

  it('TPOT is null when a reasoning read and the whole answer share one clock tick (a 1 ms Worker clock)', async () => {
    const w = WIRES['openai-chat'];
    const s = await probe('openai-chat', [
      { at: 100, data: w.reasoning('r') },
      { at: 100, data: w.answer('a ') + w.answer('b ') },
      { at: 101, data: w.close('stop', 52, 50) },
    ]);
    expect(s).toMatchObject({ error: null, answer_tokens: 2, reasoning_streamed: true, tpot_ms: null, decode_tps: null });
    const sameTick = await probe('openai-chat', [
      { at: 100, data: w.open },
      { at: 200, data: w.answer('a ') },
      { at: 200, data: w.answer('b ') },
      { at: 201, data: w.close('stop', 2, null) },
    ]);
    expect(sameTick).toMatchObject({ error: null, chunks: 2, tpot_ms: null });
  });

  it('a probe that failed before any stream says no reasoning was streamed (not unknown)', async () => {
    const clock = new FakeClock();
    const { sample } = await runProbe({
      target: { id: 't', api: 'openai-chat', url: 'http://127.0.0.1:9/', model: 'm' },
      prompt: { id: 'p', promptTokens: 10, maxTokens: 8 },
      now: clock.now,
      fetch: scriptedFetch(
        { status: 429, headers: { 'content-type': 'application/json' }, steps: [{ data: '{"error":{"message":"slow down"}}' }] },
        clock,
      ),
    });
    expect(sample).toMatchObject({ error: 'rate_limited', reasoning_streamed: false, reasoning_tokens: null });
  });

  it('TPOT is null when the answer arrives in a single read, even with many tokens', async () => {
    const w = WIRES['openai-chat'];
    const s = await probe('openai-chat', [
      { at: 100, data: w.open },
      { at: 3_100, data: w.answer('a ') + w.answer('b ') + w.answer('c ') },
      { at: 3_101, data: w.close('stop', 303, 300) },
    ]);
    expect(s).toMatchObject({ error: null, answer_tokens: 3, tpot_ms: null, decode_tps: null });
  });
});

describe('no_answer: a stream that ends without one answer token is a failed sample', () => {
  const reasoningApis: ApiId[] = ['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini', 'ollama', 'cohere-chat'];
  for (const api of Object.keys(WIRES) as TextApi[]) {
    it(`${api}: the whole budget spent${reasoningApis.includes(api) ? ' reasoning' : ''}, finish reason length`, async () => {
      const w = WIRES[api];
      const reads = [{ at: 100, data: w.open }];
      if (reasoningApis.includes(api)) for (let i = 0; i < 4; i++) reads.push({ at: 110 + i * 10, data: w.reasoning(`r${i} `) });
      const reported = api === 'openai-chat' || api === 'openai-responses' || api === 'gemini' ? 64 : null;
      reads.push({ at: 200, data: w.close('length', 64, reported) });
      const s = await probe(api, reads, 64);
      expect(s.error).toBe('no_answer');
      expect(s.ttfa_ms).toBeNull();
      expect(s.tpot_ms).toBeNull();
      // Workers AI's own stream names no finish reason: the detail says none.
      if (api !== 'workers-ai') expect(s.finish_reason).not.toBeNull();
      expect(s.error_detail).toContain(`finish_reason ${s.finish_reason ?? 'none'}`);
      if (reported !== null) expect(s.error_detail).toContain('64 reasoning tokens');
      else if (reasoningApis.includes(api)) expect(s.error_detail).toContain('reasoning streamed');
      // The end is the point of failure: what came before it stands (t0 is 0 on the fake clock).
      expect(s.total_ms).toBe(200);
      expect(s.headers_ms).toBe(HEADERS_AT);
      if (reasoningApis.includes(api)) expect(s.ttft_ms).toBe(110);
    });
  }

  it('an empty answer that finishes normally is no_answer too', async () => {
    const w = WIRES['openai-chat'];
    const s = await probe('openai-chat', [
      { at: 100, data: w.open },
      { at: 120, data: w.close('stop', 0, null) },
    ]);
    expect(s).toMatchObject({ error: 'no_answer', ttft_ms: null, finish_reason: 'stop' });
    expect(s.error_detail).toContain('no reasoning reported');
  });

  it('a cut-off stream keeps its own class: the cause is the cut, not the model', async () => {
    const w = WIRES['anthropic-messages'];
    const s = await probe('anthropic-messages', [
      { at: 100, data: w.open },
      { at: 110, data: w.reasoning('r') },
    ]);
    expect(s.error).toBe('truncated');
  });
});

describe('reasoning controls in extraBody', () => {
  it("merge into the request object by object: a thinking budget joins the variant's output limit", async () => {
    const { protocolFor } = await import('../../../shared/probe/protocols/index.ts');
    const built = protocolFor('gemini').buildRequest({
      target: {
        id: 't',
        api: 'gemini',
        url: 'http://127.0.0.1:9/',
        model: 'gemini-2.5-flash',
        extraBody: { generationConfig: { thinkingConfig: { thinkingBudget: 0 } } },
      },
      prompt: 'hi',
      maxTokens: 64,
    });
    expect(JSON.parse(String(built.init.body)).generationConfig).toEqual({ maxOutputTokens: 64, thinkingConfig: { thinkingBudget: 0 } });
    const chat = protocolFor('openai-chat').buildRequest({
      target: {
        id: 't',
        api: 'openai-chat',
        url: 'http://127.0.0.1:9/',
        model: 'o4-mini',
        extraBody: { reasoning_effort: 'low', max_tokens: null },
      },
      prompt: 'hi',
      maxTokens: 64,
    });
    expect(JSON.parse(String(chat.init.body))).toMatchObject({ reasoning_effort: 'low', max_tokens: null, stream: true });
  });
});

describe('every wire format asks for the same encoding in every runtime', () => {
  it('sends accept-encoding: identity, so the CLI and a Worker time the same uncompressed bytes', async () => {
    const { protocolFor } = await import('../../../shared/probe/protocols/index.ts');
    const { API_IDS } = await import('../../../shared/ids.ts');
    for (const api of API_IDS) {
      const built = protocolFor(api).buildRequest({
        target: { id: 't', api, url: 'http://127.0.0.1:9/', model: 'm' },
        prompt: 'hi',
        maxTokens: 4,
      });
      expect(new Headers(built.init.headers).get('accept-encoding'), api).toBe('identity');
    }
  });
});

describe('the first-probe warm-up', () => {
  it('runs a clean stream of every wire format through both parse paths, once per process', async () => {
    const { WARM_UP_STREAMS, warmUp } = await import('../../../shared/probe/warm-up.ts');
    const { protocolFor } = await import('../../../shared/probe/protocols/index.ts');
    const { StreamMeter } = await import('../../../shared/probe/stream-meter.ts');
    const { API_IDS } = await import('../../../shared/ids.ts');
    const { DEFAULT_TIMEOUTS } = await import('../../../shared/constants.ts');
    for (const api of API_IDS) {
      for (const fastPath of [true, false]) {
        const meter = new StreamMeter(protocolFor(api), { fastPath });
        const wire = WARM_UP_STREAMS[api];
        meter.onRead(typeof wire === 'string' ? new TextEncoder().encode(wire) : wire, 1);
        meter.onClose(2);
        meter.settle();
        expect({
          api,
          fastPath,
          protocolError: meter.state.protocolError,
          streamError: meter.state.streamError,
          answer: meter.firstAnswerAt !== null,
          complete: meter.state.endMarker || meter.state.finishReason !== null,
        }).toEqual({ api, fastPath, protocolError: null, streamError: null, answer: true, complete: true });
      }
      await warmUp(protocolFor(api), DEFAULT_TIMEOUTS);
      expect(await warmUp(protocolFor(api), DEFAULT_TIMEOUTS)).toBe(false);
    }
  });
});
