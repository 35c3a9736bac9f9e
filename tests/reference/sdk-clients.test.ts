/** The official SDKs stream from the reference endpoint without error and reassemble text and usage. */
import { describe, expect, inject, it } from 'vitest';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';

const url = inject('referenceUrl');
const FAST = 'decode_ms_per_token=1, prefill_base_ms=5';
const ANSWER = (n: number) => Array.from({ length: n }, (_, i) => ['The', ' keeper', ' climbed', ' the', ' tower', ' and', ' lit', ' a', ' lamp', ' at', ' dusk', '.'][i % 12]).join('');

describe('openai SDK', () => {
  const client = new OpenAI({ apiKey: 'unused', baseURL: `${url}/v1`, maxRetries: 0, defaultHeaders: { 'x-ref-params': FAST } });

  for (const model of ['ref-fast-small', 'ref-slow-large', 'ref-reasoning', 'ref-batching']) {
    it(`chat completions stream (${model})`, async () => {
      const stream = client.chat.completions.stream({ model, messages: [{ role: 'user', content: 'hello' }], max_tokens: 60, stream_options: { include_usage: true } });
      const final = await stream.finalChatCompletion();
      const reasoning = model === 'ref-reasoning' ? 48 : 0;
      expect(final.choices[0].message.content).toBe(ANSWER(60 - reasoning));
      expect(final.choices[0].finish_reason).toBe('length');
      expect(final.usage).toMatchObject({ completion_tokens: 60, completion_tokens_details: { reasoning_tokens: reasoning } });
      expect(final.usage!.prompt_tokens).toBeGreaterThan(0);
    });
  }

  it('responses stream, with reasoning summary', async () => {
    const final = await client.responses.stream({ model: 'ref-reasoning', input: 'hello', max_output_tokens: 60 }).finalResponse();
    expect(final.output_text).toBe(ANSWER(12));
    expect(final.usage).toMatchObject({ output_tokens: 60, output_tokens_details: { reasoning_tokens: 48 } });
    expect(final.output.map((o) => o.type)).toEqual(['reasoning', 'message']);
  });

  it('a non-streamed request gets a whole completion', async () => {
    const done = await client.chat.completions.create({ model: 'ref-fast-small', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 });
    expect(done.choices[0].message.content).toBe(ANSWER(5));
    expect(done.usage?.completion_tokens).toBe(5);
  });
});

describe('anthropic SDK', () => {
  const client = new Anthropic({ apiKey: 'unused', baseURL: url, maxRetries: 0, defaultHeaders: { 'x-ref-params': FAST } });

  it('messages stream with thinking then text', async () => {
    const final = await client.messages.stream({ model: 'ref-reasoning', max_tokens: 60, messages: [{ role: 'user', content: 'hello' }] }).finalMessage();
    expect(final.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    expect(final.content[1].type === 'text' && final.content[1].text).toBe(ANSWER(12));
    expect(final.stop_reason).toBe('max_tokens');
    expect(final.usage.output_tokens).toBe(60);
  });

  it('messages stream with text only', async () => {
    const final = await client.messages.stream({ model: 'ref-fast-small', max_tokens: 7, messages: [{ role: 'user', content: 'hello' }] }).finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: ANSWER(7), citations: null }].map((b) => expect.objectContaining({ type: b.type, text: b.text })));
    expect(final.usage.output_tokens).toBe(7);
  });
});
