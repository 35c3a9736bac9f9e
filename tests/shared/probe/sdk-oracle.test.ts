/**
 * The official SDKs as independent oracles: they parse the same recordings with their own SSE code
 * and reassemble the final message; the probe's reconstructed text must equal theirs.
 */
import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { runProbe } from '../../../shared/probe/probe.ts';
import { apiIdOf, fixtureNames, loadFixture, replayFetch, splitBody, type Fixture } from '../../helpers/fixtures.ts';

const okStreams = (api: string) =>
  fixtureNames()
    .map(loadFixture)
    .filter((f) => f.api === api && f.response.status === 200 && !/error/.test(f.name));

function sdkFetch(f: Fixture): typeof fetch {
  const replay = replayFetch(f, splitBody(f.response.body, 61));
  return ((_input: unknown, init?: RequestInit) => replay('', init)) as typeof fetch;
}

async function probeText(f: Fixture) {
  const { text } = await runProbe({
    target: { id: 'o', api: apiIdOf(f), url: 'http://127.0.0.1:9/', model: 'm' },
    prompt: { id: 'p', promptTokens: 64, maxTokens: 16 },
    fetch: replayFetch(f, splitBody(f.response.body, 29)),
    collectText: true,
  });
  return text!;
}

describe('openai SDK agrees on chat completions', () => {
  // Outside the OpenAI schema the SDK accumulates: Magistral's array-valued content, and Mistral's
  // tool calls without `index` (the SDK drops them; the fixture suite checks both by hand).
  const outsideSchema = ['magistral', 'mistral-chat-completions-tool-call'];
  for (const f of okStreams('chat-completions').filter((f) => !outsideSchema.some((n) => f.name.includes(n)))) {
    it(f.name, async () => {
      const client = new OpenAI({ apiKey: 'test', baseURL: 'http://127.0.0.1:9/v1', fetch: sdkFetch(f), maxRetries: 0 });
      const stream = client.chat.completions.stream({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
      const final = await stream.finalChatCompletion();
      const message = final.choices[0].message;
      const args = (message.tool_calls ?? []).map((c) => (c.type === 'function' ? c.function.arguments : '')).join('');
      const text = await probeText(f);
      expect(text.answer).toBe(message.content ?? '');
      expect(text.tool).toBe(args);
    });
  }
});

describe('openai SDK agrees on the Responses API', () => {
  for (const f of okStreams('responses')) {
    it(f.name, async () => {
      const client = new OpenAI({ apiKey: 'test', baseURL: 'http://127.0.0.1:9/v1', fetch: sdkFetch(f), maxRetries: 0 });
      const stream = client.responses.stream({ model: 'm', input: 'x' });
      const final = await stream.finalResponse();
      const args = final.output.map((o) => (o.type === 'function_call' ? o.arguments : '')).join('');
      const text = await probeText(f);
      expect(text.answer).toBe(final.output_text);
      expect(text.tool).toBe(args);
      expect(final.usage?.output_tokens).toBeGreaterThan(0);
    });
  }
});

describe('anthropic SDK agrees on messages', () => {
  for (const f of okStreams('messages')) {
    it(f.name, async () => {
      const client = new Anthropic({ apiKey: 'test', baseURL: 'http://127.0.0.1:9', fetch: sdkFetch(f), maxRetries: 0 });
      const final = await client.messages.stream({ model: 'm', max_tokens: 16, messages: [{ role: 'user', content: 'x' }] }).finalMessage();
      const answer = final.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      const thinking = final.content.map((b) => (b.type === 'thinking' ? b.thinking : '')).join('');
      const tools = final.content.filter((b) => b.type === 'tool_use').map((b) => JSON.stringify((b as { input: unknown }).input));
      const text = await probeText(f);
      expect(text.answer).toBe(answer);
      expect(text.reasoning).toBe(thinking);
      // The SDK parses the argument fragments into an object; the probe keeps the raw fragments.
      expect(tools.join('')).toBe(text.tool === '' ? tools.join('') : JSON.stringify(JSON.parse(text.tool)));
    });
  }
});
