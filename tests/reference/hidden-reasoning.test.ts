/**
 * Reasoning that is counted but not streamed (ref-hidden-reasoning, reasoning_streamed=0), next to
 * streamed reasoning (ref-reasoning), and what happens when reasoning takes all of max_tokens
 * (budget exhaustion and the `no-answer` fault), in all four wire formats.
 */
import { describe, expect, inject, it } from 'vitest';
import { APIS, EVENTS_BEFORE_ANSWER, LENGTH_FINISH, answerText, observe, reasoningText, type Api, type Observed } from './wire-client.ts';

const url = inject('referenceUrl');
/** No waiting anywhere: these tests look at what is sent, not when. */
const INSTANT = 'queue_base_ms=0, prefill_base_ms=0, prefill_ms_per_token=0, decode_ms_per_token=0';
const HIDDEN_REASONING = 300;
const STREAMED_REASONING = 48;

/** Usage says `output` tokens were generated, `reasoning` of them reasoning, in each format's own fields. */
function expectUsage(api: Api, o: Observed, output: number, reasoning: number): void {
  expect(o.outputTokens).toBe(output);
  if (api === 'anthropic-messages')
    expect(o.reasoningTokens).toBeNull(); // output_tokens includes thinking
  else expect(o.reasoningTokens).toBe(reasoning);
  if (api === 'gemini') expect(o.answerTokens).toBe(output - reasoning); // candidatesTokenCount: the answer only
}

function expectLengthFinish(api: Api, o: Observed): void {
  expect(o.finish).toBe(LENGTH_FINISH[api]);
  if (api === 'openai-responses') expect([o.end, o.responseStatus]).toEqual(['response.incomplete', 'incomplete']);
}

describe.each(APIS)('%s', (api) => {
  describe('hidden reasoning', () => {
    it('is decoded and counted in usage, but nothing is sent for it', async () => {
      const o = await observe(url, api, { model: 'ref-hidden-reasoning', maxTokens: HIDDEN_REASONING + 40, params: INSTANT });
      expect(o.status).toBe(200);
      expect(o.reasoning).toBe('');
      expect(o.raw).not.toContain(reasoningText(3));
      expect(o.answer).toBe(answerText(40));
      expect(o.eventsBeforeAnswer).toBe(EVENTS_BEFORE_ANSWER[api]);
      expectUsage(api, o, HIDDEN_REASONING + 40, HIDDEN_REASONING);
      expectLengthFinish(api, o);
    });

    it('takes its decode time before the first answer token, on an open but silent stream', async () => {
      // 100 hidden tokens at exactly 4 ms each, nothing else: the first answer is due 400 ms in.
      const hidden = 100;
      const decodeMs = 4;
      const expected = hidden * decodeMs;
      const params = `${INSTANT}, decode_ms_per_token=${decodeMs}, decode_jitter=0, kv_growth_per_1k=0, reasoning_tokens=${hidden}`;
      const o = await observe(url, api, { model: 'ref-hidden-reasoning', maxTokens: hidden + 2, params });
      expect(o.answer).toBe(answerText(2));
      // Loose on purpose (a busy machine only makes timers late): at least half the thinking time
      // after the headers, and within ten times it.
      expect(o.firstAnswerMs! - o.headersMs).toBeGreaterThanOrEqual(expected / 2);
      expect(o.firstAnswerMs!).toBeLessThan(expected * 10);
    });
  });

  it('streamed reasoning is counted the same way', async () => {
    const o = await observe(url, api, { model: 'ref-reasoning', maxTokens: STREAMED_REASONING + 12, params: INSTANT });
    expect(o.reasoning).toBe(reasoningText(STREAMED_REASONING));
    expect(o.answer).toBe(answerText(12));
    expectUsage(api, o, STREAMED_REASONING + 12, STREAMED_REASONING);
    expectLengthFinish(api, o);
  });

  describe('when reasoning takes the whole budget, no answer at all', () => {
    it('reasoning wants more than max_tokens: all of it is reasoning, the stream ends normally', async () => {
      const o = await observe(url, api, { model: 'ref-reasoning', maxTokens: 20, params: INSTANT });
      expect(o.reasoning).toBe(reasoningText(20));
      expect(o.answer).toBe('');
      expectUsage(api, o, 20, 20);
      expectLengthFinish(api, o);
    });

    it('exactly max_tokens of reasoning leaves no answer token; one more token leaves one', async () => {
      const exact = await observe(url, api, { model: 'ref-reasoning', maxTokens: STREAMED_REASONING, params: INSTANT });
      expect(exact.answer).toBe('');
      expectUsage(api, exact, STREAMED_REASONING, STREAMED_REASONING);
      const oneMore = await observe(url, api, { model: 'ref-reasoning', maxTokens: STREAMED_REASONING + 1, params: INSTANT });
      expect(oneMore.answer).toBe(answerText(1));
    });

    it('hidden reasoning beyond max_tokens: nothing but the opening and the end', async () => {
      const o = await observe(url, api, { model: 'ref-hidden-reasoning', maxTokens: 256, params: INSTANT });
      expect(o.reasoning + o.answer).toBe('');
      expect(o.raw).not.toContain(reasoningText(3));
      expectUsage(api, o, 256, 256);
      expectLengthFinish(api, o);
    });

    it('the no-answer fault forces it whatever the budget (header or model suffix)', async () => {
      const byHeader = await observe(url, api, { model: 'ref-fast-small', maxTokens: 12, params: INSTANT, fault: 'no-answer' });
      expect(byHeader.reasoning).toBe(reasoningText(12));
      expect(byHeader.answer).toBe('');
      expectUsage(api, byHeader, 12, 12);
      expectLengthFinish(api, byHeader);

      const hidden = await observe(url, api, { model: 'ref-hidden-reasoning~no-answer', maxTokens: 1_000, params: INSTANT });
      expect(hidden.reasoning + hidden.answer).toBe('');
      expectUsage(api, hidden, 1_000, 1_000);
      expectLengthFinish(api, hidden);
    });

    it('a larger max_tokens gets the answer back', async () => {
      const o = await observe(url, api, { model: 'ref-hidden-reasoning', maxTokens: HIDDEN_REASONING + 20, params: INSTANT });
      expect(o.answer).toBe(answerText(20));
    });
  });
});
