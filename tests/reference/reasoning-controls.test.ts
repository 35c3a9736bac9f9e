/**
 * Reasoning controls honoured from the request body, as the vendors define them: OpenAI Chat
 * `reasoning_effort`, Responses `reasoning.effort`, Anthropic `thinking.budget_tokens`, Gemini
 * `generationConfig.thinkingConfig.thinkingBudget`; invalid values are a 400 in the format's shape.
 */
import { describe, expect, inject, it } from 'vitest';
import { answerText, observe, reasoningText, type Api, type Ask } from './wire-client.ts';

const url = inject('referenceUrl');
const INSTANT = 'queue_base_ms=0, prefill_base_ms=0, prefill_ms_per_token=0, decode_ms_per_token=0';

/** Each effort's reasoning tokens: the profile's (48 or 300) times minimal 0.1, low 0.5, medium 1, high 2, rounded. */
const EFFORT_CASES: Array<{ effort: string; model: string; reasoning: number }> = [
  { effort: 'minimal', model: 'ref-reasoning', reasoning: 5 },
  { effort: 'low', model: 'ref-reasoning', reasoning: 24 },
  { effort: 'medium', model: 'ref-reasoning', reasoning: 48 },
  { effort: 'high', model: 'ref-reasoning', reasoning: 96 },
  { effort: 'minimal', model: 'ref-hidden-reasoning', reasoning: 30 },
  { effort: 'low', model: 'ref-hidden-reasoning', reasoning: 150 },
  { effort: 'high', model: 'ref-hidden-reasoning', reasoning: 600 },
  { effort: 'high', model: 'ref-fast-small', reasoning: 0 }, // only reasoning models are affected
];
const EFFORT_BODY: Record<'openai-chat' | 'openai-responses', (effort: string) => Record<string, unknown>> = {
  'openai-chat': (effort) => ({ reasoning_effort: effort }),
  'openai-responses': (effort) => ({ reasoning: { effort } }),
};

describe('reasoning effort (OpenAI Chat and Responses)', () => {
  const maxTokens = 700;
  for (const api of ['openai-chat', 'openai-responses'] as const) {
    for (const c of EFFORT_CASES) {
      it(`${api}: ${c.model} at ${c.effort} effort reasons ${c.reasoning} tokens`, async () => {
        const o = await observe(url, api, { model: c.model, maxTokens, params: INSTANT, extra: EFFORT_BODY[api](c.effort) });
        expect(o.reasoningTokens).toBe(c.reasoning);
        expect(o.outputTokens).toBe(maxTokens);
        expect(o.answer).toBe(answerText(maxTokens - c.reasoning));
      });
    }
    it(`${api}: a lower effort brings back the answer that a small max_tokens left out`, async () => {
      const ask: Ask = { model: 'ref-hidden-reasoning', maxTokens: 256, params: INSTANT };
      expect((await observe(url, api, ask)).answer).toBe('');
      const low = await observe(url, api, { ...ask, extra: EFFORT_BODY[api]('low') });
      expect(low.answer).toBe(answerText(256 - 150));
    });
  }
});

/** A thinking budget caps the reasoning the profile wants (never raises it); 0 or "disabled" turns it off. */
const BUDGET_CASES: Array<{
  api: Api;
  name: string;
  extra: Record<string, unknown>;
  params?: string;
  maxTokens: number;
  reasoning: number;
}> = [
  {
    api: 'anthropic-messages',
    name: 'budget below what the model wants',
    extra: { thinking: { type: 'enabled', budget_tokens: 1_024 } },
    params: 'reasoning_tokens=2000',
    maxTokens: 1_100,
    reasoning: 1_024,
  },
  {
    api: 'anthropic-messages',
    name: 'budget above what the model wants',
    extra: { thinking: { type: 'enabled', budget_tokens: 1_500 } },
    maxTokens: 2_000,
    reasoning: 48,
  },
  { api: 'anthropic-messages', name: 'thinking disabled', extra: { thinking: { type: 'disabled' } }, maxTokens: 60, reasoning: 0 },
  {
    api: 'gemini',
    name: 'budget below what the model wants',
    extra: { generationConfig: { thinkingConfig: { thinkingBudget: 10 } } },
    maxTokens: 60,
    reasoning: 10,
  },
  {
    api: 'gemini',
    name: 'budget above what the model wants',
    extra: { generationConfig: { thinkingConfig: { thinkingBudget: 1_000 } } },
    maxTokens: 60,
    reasoning: 48,
  },
  {
    api: 'gemini',
    name: 'budget 0 turns thinking off',
    extra: { generationConfig: { thinkingConfig: { thinkingBudget: 0 } } },
    maxTokens: 60,
    reasoning: 0,
  },
  {
    api: 'gemini',
    name: 'budget -1 lets the model decide',
    extra: { generationConfig: { thinkingConfig: { thinkingBudget: -1 } } },
    maxTokens: 60,
    reasoning: 48,
  },
];

describe('thinking budgets (Anthropic and Gemini)', () => {
  for (const c of BUDGET_CASES) {
    it(`${c.api}: ${c.name} → ${c.reasoning} reasoning tokens`, async () => {
      const o = await observe(url, c.api, {
        model: 'ref-reasoning',
        maxTokens: c.maxTokens,
        params: [INSTANT, c.params].filter(Boolean).join(', '),
        extra: c.extra,
      });
      expect(o.status).toBe(200);
      expect(o.outputTokens).toBe(c.maxTokens);
      expect(o.answer).toBe(answerText(c.maxTokens - c.reasoning));
      expect(o.reasoning).toBe(reasoningText(c.reasoning)); // ref-reasoning streams it, so it can be counted
      if (c.api === 'gemini') expect(o.reasoningTokens).toBe(c.reasoning);
    });
  }

  it('gemini: a budget brings back the answer hidden reasoning left out; a budget does not affect a non-reasoning model', async () => {
    const budget = { generationConfig: { thinkingConfig: { thinkingBudget: 100 } } };
    expect((await observe(url, 'gemini', { model: 'ref-hidden-reasoning', maxTokens: 256, params: INSTANT, extra: budget })).answer).toBe(
      answerText(156),
    );
    const plain = await observe(url, 'gemini', { model: 'ref-fast-small', maxTokens: 20, params: INSTANT, extra: budget });
    expect([plain.reasoningTokens, plain.answer]).toEqual([0, answerText(20)]);
  });
});

/** Bad control values: a 400 with a clear message, in the format's own error shape. */
const INVALID: Array<{ api: Api; name: string; extra: Record<string, unknown>; maxTokens?: number; message: string }> = [
  { api: 'openai-chat', name: 'unknown effort', extra: { reasoning_effort: 'max' }, message: 'reasoning_effort' },
  { api: 'openai-chat', name: 'effort not a string', extra: { reasoning_effort: 3 }, message: 'reasoning_effort' },
  { api: 'openai-responses', name: 'unknown effort', extra: { reasoning: { effort: 'extreme' } }, message: 'reasoning.effort' },
  { api: 'openai-responses', name: 'reasoning not an object', extra: { reasoning: 'high' }, message: 'reasoning must be an object' },
  {
    api: 'anthropic-messages',
    name: 'budget below 1024',
    extra: { thinking: { type: 'enabled', budget_tokens: 500 } },
    maxTokens: 2_000,
    message: 'at least 1024',
  },
  {
    api: 'anthropic-messages',
    name: 'budget not below max_tokens',
    extra: { thinking: { type: 'enabled', budget_tokens: 2_000 } },
    maxTokens: 2_000,
    message: 'max_tokens must be greater than thinking.budget_tokens',
  },
  {
    api: 'anthropic-messages',
    name: 'budget missing',
    extra: { thinking: { type: 'enabled' } },
    maxTokens: 2_000,
    message: 'budget_tokens',
  },
  { api: 'anthropic-messages', name: 'unknown thinking type', extra: { thinking: { type: 'sometimes' } }, message: 'thinking.type' },
  {
    api: 'gemini',
    name: 'budget below -1',
    extra: { generationConfig: { thinkingConfig: { thinkingBudget: -2 } } },
    message: 'thinkingBudget',
  },
  {
    api: 'gemini',
    name: 'fractional budget',
    extra: { generationConfig: { thinkingConfig: { thinkingBudget: 1.5 } } },
    message: 'thinkingBudget',
  },
  {
    api: 'gemini',
    name: 'budget above the largest',
    extra: { generationConfig: { thinkingConfig: { thinkingBudget: 40_000 } } },
    message: 'thinkingBudget',
  },
];

/** Where each format puts an error's message, and what it says a bad request is. */
const ERROR_SHAPE: Record<Api, (body: any) => [string, string]> = {
  'openai-chat': (b) => [b.error.message, b.error.type],
  'openai-responses': (b) => [b.error.message, b.error.type],
  'anthropic-messages': (b) => [b.error.message, `${b.type}/${b.error.type}`],
  gemini: (b) => [b.error.message, `${b.error.code}/${b.error.status}`],
};
const BAD_REQUEST: Record<Api, string> = {
  'openai-chat': 'invalid_request_error',
  'openai-responses': 'invalid_request_error',
  'anthropic-messages': 'error/invalid_request_error',
  gemini: '400/INVALID_ARGUMENT',
};

describe('invalid reasoning controls', () => {
  for (const c of INVALID) {
    it(`${c.api}: ${c.name} → 400`, async () => {
      const o = await observe(url, c.api, { model: 'ref-reasoning', maxTokens: c.maxTokens ?? 60, extra: c.extra });
      expect(o.status).toBe(400);
      const [message, kind] = ERROR_SHAPE[c.api](o.error);
      expect(message).toContain(c.message);
      expect(kind).toBe(BAD_REQUEST[c.api]);
    });
  }
});
