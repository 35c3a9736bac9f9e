/** The official SDKs stream from the reference endpoint without error and reassemble text and usage. */
import { describe, expect, inject, it } from 'vitest';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';

const url = inject('referenceUrl');
const FAST = 'decode_ms_per_token=1, prefill_base_ms=5';
const REASONING: Record<string, number> = { 'ref-reasoning': 48, 'ref-hidden-reasoning': 300 };
const ANSWER = (n: number) =>
  Array.from(
    { length: n },
    (_, i) => ['The', ' keeper', ' climbed', ' the', ' tower', ' and', ' lit', ' a', ' lamp', ' at', ' dusk', '.'][i % 12],
  ).join('');

describe('openai SDK', () => {
  const client = new OpenAI({ apiKey: 'unused', baseURL: `${url}/v1`, maxRetries: 0, defaultHeaders: { 'x-ref-params': FAST } });

  for (const model of ['ref-fast-small', 'ref-slow-large', 'ref-reasoning', 'ref-hidden-reasoning', 'ref-batching']) {
    it(`chat completions stream (${model})`, async () => {
      const reasoning = REASONING[model] ?? 0;
      const maxTokens = reasoning + 12;
      const stream = client.chat.completions.stream({
        model,
        messages: [{ role: 'user', content: 'hello' }],
        max_tokens: maxTokens,
        stream_options: { include_usage: true },
      });
      const final = await stream.finalChatCompletion();
      expect(final.choices[0].message.content).toBe(ANSWER(12));
      expect(final.choices[0].finish_reason).toBe('length');
      expect(final.usage).toMatchObject({ completion_tokens: maxTokens, completion_tokens_details: { reasoning_tokens: reasoning } });
      expect(final.usage!.prompt_tokens).toBeGreaterThan(0);
    });
  }

  it('chat completions stream whose reasoning took all of max_tokens: no answer, finish_reason length', async () => {
    const final = await client.chat.completions
      .stream({
        model: 'ref-hidden-reasoning',
        messages: [{ role: 'user', content: 'hello' }],
        max_tokens: 100,
        stream_options: { include_usage: true },
      })
      .finalChatCompletion();
    expect(final.choices[0].message.content || '').toBe('');
    expect(final.choices[0].finish_reason).toBe('length');
    expect(final.usage).toMatchObject({ completion_tokens: 100, completion_tokens_details: { reasoning_tokens: 100 } });
  });

  it('chat completions stream at low reasoning effort: half the hidden reasoning, the answer back', async () => {
    const final = await client.chat.completions
      .stream({
        model: 'ref-hidden-reasoning',
        messages: [{ role: 'user', content: 'hello' }],
        max_tokens: 160,
        reasoning_effort: 'low',
        stream_options: { include_usage: true },
      })
      .finalChatCompletion();
    expect(final.choices[0].message.content).toBe(ANSWER(10));
    expect(final.usage).toMatchObject({ completion_tokens: 160, completion_tokens_details: { reasoning_tokens: 150 } });
  });

  it('responses stream, with reasoning summary, incomplete at max_output_tokens', async () => {
    const final = await client.responses.stream({ model: 'ref-reasoning', input: 'hello', max_output_tokens: 60 }).finalResponse();
    expect(final.output_text).toBe(ANSWER(12));
    expect(final.usage).toMatchObject({ output_tokens: 60, output_tokens_details: { reasoning_tokens: 48 } });
    expect(final.output.map((o) => o.type)).toEqual(['reasoning', 'message']);
    expect([final.status, final.incomplete_details?.reason]).toEqual(['incomplete', 'max_output_tokens']);
  });

  it('responses stream with hidden reasoning: counted, no reasoning item', async () => {
    const final = await client.responses
      .stream({ model: 'ref-hidden-reasoning', input: 'hello', max_output_tokens: 312, reasoning: { effort: 'medium' } })
      .finalResponse();
    expect(final.output_text).toBe(ANSWER(12));
    expect(final.usage).toMatchObject({ output_tokens: 312, output_tokens_details: { reasoning_tokens: 300 } });
    expect(final.output.map((o) => o.type)).toEqual(['message']);
  });

  it('responses stream whose reasoning took all of max_output_tokens: no output', async () => {
    const final = await client.responses.stream({ model: 'ref-hidden-reasoning', input: 'hello', max_output_tokens: 100 }).finalResponse();
    expect(final.output_text).toBe('');
    expect(final.output).toEqual([]);
    expect(final.usage).toMatchObject({ output_tokens: 100, output_tokens_details: { reasoning_tokens: 100 } });
    expect(final.incomplete_details?.reason).toBe('max_output_tokens');
  });

  it('a non-streamed request gets a whole completion', async () => {
    const done = await client.chat.completions.create({
      model: 'ref-fast-small',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 5,
    });
    expect(done.choices[0].message.content).toBe(ANSWER(5));
    expect(done.usage?.completion_tokens).toBe(5);
  });
});

describe('anthropic SDK', () => {
  const client = new Anthropic({ apiKey: 'unused', baseURL: url, maxRetries: 0, defaultHeaders: { 'x-ref-params': FAST } });

  it('messages stream with thinking then text', async () => {
    const final = await client.messages
      .stream({ model: 'ref-reasoning', max_tokens: 60, messages: [{ role: 'user', content: 'hello' }] })
      .finalMessage();
    expect(final.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    expect(final.content[1].type === 'text' && final.content[1].text).toBe(ANSWER(12));
    expect(final.stop_reason).toBe('max_tokens');
    expect(final.usage.output_tokens).toBe(60);
  });

  it('messages stream with hidden thinking: text only, thinking counted in output_tokens', async () => {
    const final = await client.messages
      .stream({ model: 'ref-hidden-reasoning', max_tokens: 312, messages: [{ role: 'user', content: 'hello' }] })
      .finalMessage();
    expect(final.content.map((b) => b.type)).toEqual(['text']);
    expect(final.content[0].type === 'text' && final.content[0].text).toBe(ANSWER(12));
    expect(final.usage.output_tokens).toBe(312);
  });

  it('messages stream whose thinking took all of max_tokens: thinking only, stop_reason max_tokens', async () => {
    const final = await client.messages
      .stream({ model: 'ref-reasoning', max_tokens: 20, messages: [{ role: 'user', content: 'hello' }] })
      .finalMessage();
    expect(final.content.map((b) => b.type)).toEqual(['thinking']);
    expect(final.stop_reason).toBe('max_tokens');
    expect(final.usage.output_tokens).toBe(20);
  });

  it('messages stream with a thinking budget', async () => {
    const final = await client.messages
      .stream(
        {
          model: 'ref-reasoning',
          max_tokens: 1_100,
          thinking: { type: 'enabled', budget_tokens: 1_024 },
          messages: [{ role: 'user', content: 'hello' }],
        },
        { headers: { 'x-ref-params': `${FAST}, decode_ms_per_token=0, reasoning_tokens=2000` } },
      )
      .finalMessage();
    expect(final.content[1].type === 'text' && final.content[1].text).toBe(ANSWER(1_100 - 1_024));
  });

  it('messages stream with text only', async () => {
    const final = await client.messages
      .stream({ model: 'ref-fast-small', max_tokens: 7, messages: [{ role: 'user', content: 'hello' }] })
      .finalMessage();
    expect(final.content).toEqual(
      [{ type: 'text', text: ANSWER(7), citations: null }].map((b) => expect.objectContaining({ type: b.type, text: b.text })),
    );
    expect(final.usage.output_tokens).toBe(7);
  });
});
