/**
 * The big clouds' shapes of the formats the probe already speaks: Azure OpenAI's two URL forms and its
 * content-filter chunks (never tokens), Claude and Gemini on Vertex AI, and Cloudflare Workers AI's own
 * stream. Each stream below is built the way the vendor documents it; each is read through the real probe.
 */
import { describe, expect, it } from 'vitest';
import { runProbe } from '../../../shared/probe/probe.ts';
import { protocolFor } from '../../../shared/probe/protocols/index.ts';
import type { ProbeTarget } from '../../../shared/types.ts';

const sse = (events: unknown[]) => events.map((e) => `data: ${typeof e === 'string' ? e : JSON.stringify(e)}\n\n`).join('');

/** A fetch that records the request and answers with `body`, one read per event, each read 10 ms after the last on `clock`. */
function wire(body: string, headers: Record<string, string> = {}) {
  const sent: Array<{ url: string; init: RequestInit }> = [];
  let t = 0;
  const now = () => t;
  const fetch = async (url: string, init?: RequestInit) => {
    sent.push({ url, init: init! });
    t += 50;
    const reads = body.split(/(?<=\n\n)/);
    let i = 0;
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(c) {
          if (i >= reads.length) return c.close();
          t += 10;
          c.enqueue(new TextEncoder().encode(reads[i++]));
        },
      },
      { highWaterMark: 0 },
    );
    return new Response(stream, { headers: { 'content-type': 'text/event-stream', ...headers } });
  };
  return { sent, fetch, now };
}

const FILTERS = {
  hate: { filtered: false, severity: 'safe' },
  self_harm: { filtered: false, severity: 'safe' },
  sexual: { filtered: false, severity: 'safe' },
  violence: { filtered: false, severity: 'safe' },
};

/** Azure OpenAI's stream: the prompt's filter results first (no choices), filter results on each choice, a filter-only chunk at the end. */
const AZURE_STREAM = sse([
  { choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: [{ prompt_index: 0, content_filter_results: FILTERS }] },
  {
    choices: [
      {
        content_filter_results: {},
        delta: { content: '', refusal: null, role: 'assistant' },
        finish_reason: null,
        index: 0,
        logprobs: null,
      },
    ],
    created: 1,
    id: 'chatcmpl-1',
    model: 'gpt-4o-mini-2024-07-18',
    object: 'chat.completion.chunk',
    system_fingerprint: 'fp',
  },
  ...['Hel', 'lo', '!'].map((text) => ({
    choices: [{ content_filter_results: FILTERS, delta: { content: text }, finish_reason: null, index: 0, logprobs: null }],
    created: 1,
    id: 'chatcmpl-1',
    model: 'gpt-4o-mini-2024-07-18',
    object: 'chat.completion.chunk',
  })),
  {
    choices: [{ content_filter_results: {}, delta: {}, finish_reason: 'stop', index: 0, logprobs: null }],
    created: 1,
    id: 'chatcmpl-1',
    model: 'gpt-4o-mini-2024-07-18',
    object: 'chat.completion.chunk',
  },
  {
    choices: [
      {
        content_filter_offsets: { check_offset: 0, start_offset: 0, end_offset: 6 },
        content_filter_results: FILTERS,
        finish_reason: null,
        index: 0,
      },
    ],
    created: 0,
    id: '',
    model: '',
    object: '',
  },
  '[DONE]',
]);

const prompt = { id: 'p', promptTokens: 16, maxTokens: 8 };

describe('Azure OpenAI', () => {
  const urls = [
    'https://my-resource.openai.azure.com/openai/deployments/gpt-4o-mini/chat/completions?api-version=2024-10-21',
    'https://my-resource.openai.azure.com/openai/v1/chat/completions',
  ];
  for (const url of urls)
    it(`${new URL(url).pathname}: the URL as given, the key in api-key, filter chunks never tokens`, async () => {
      for (const fastPath of [true, false]) {
        const w = wire(AZURE_STREAM, { 'x-ms-region': 'Sweden Central', 'apim-request-id': 'a1' });
        const target: ProbeTarget = {
          id: 'azure',
          api: 'openai-chat',
          url,
          model: 'gpt-4o-mini',
          auth: { type: 'header', name: 'api-key', value: 'k-0123456789abcdef' },
        };
        const { sample, text } = await runProbe({ target, prompt, fetch: w.fetch, now: w.now, fastPath, collectText: true });
        expect(w.sent[0].url).toBe(url);
        expect((w.sent[0].init.headers as Record<string, string>)['api-key']).toBe('k-0123456789abcdef');
        expect(sample.error).toBeNull();
        expect(text!.answer).toBe('Hello!');
        // Three token reads; the filter chunks before and after them are not tokens: TTFT is the first content read's.
        expect(sample.chunks).toBe(3);
        expect(sample.output_tokens).toBe(3);
        expect(sample.tokens_exact).toBe(false);
        // Headers at 50 ms; the reads at 60 (prompt filters), 70 (role), 80 (first token).
        expect(sample.ttft_ms).toBe(80);
        expect(sample.finish_reason).toBe('stop');
        expect([sample.served_by, sample.served_by_source]).toEqual(['Sweden Central', 'x-ms-region']);
      }
    });
});

describe('Vertex AI', () => {
  it('Gemini: the regional URL as given, the token as a bearer, the region where it was served', async () => {
    const url =
      'https://europe-west4-aiplatform.googleapis.com/v1/projects/p/locations/europe-west4/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse';
    const w = wire(
      sse([
        { candidates: [{ content: { role: 'model', parts: [{ text: 'Hi' }] } }], modelVersion: 'gemini-2.5-flash' },
        {
          candidates: [{ content: { role: 'model', parts: [{ text: ' there' }] }, finishReason: 'STOP' }],
          usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 2, totalTokenCount: 11 },
        },
      ]),
    );
    const request = protocolFor('gemini').buildRequest({
      target: { id: 'v', api: 'gemini', url, model: 'gemini-2.5-flash' },
      prompt: 'x',
      maxTokens: 8,
    });
    expect(request.url).toBe(url);
    expect(request.init.headers).not.toHaveProperty('x-goog-api-key');
    const { sample } = await runProbe({
      target: { id: 'v', api: 'gemini', url, model: 'gemini-2.5-flash' },
      prompt,
      fetch: w.fetch,
      now: w.now,
    });
    expect(sample).toMatchObject({
      error: null,
      output_tokens: 2,
      input_tokens: 9,
      served_by: 'europe-west4',
      served_by_source: 'url.host',
    });
  });

  it('Claude: streamRawPredict with the version in the body, no model there, no Anthropic key header', () => {
    const url =
      'https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict';
    const request = protocolFor('anthropic-messages').buildRequest({
      target: { id: 'c', api: 'anthropic-messages', url, model: 'claude-sonnet-4-5@20250929', apiKey: 'not-sent' },
      prompt: 'Say hi',
      maxTokens: 8,
    });
    expect(request.url).toBe(url);
    expect(JSON.parse(request.init.body as string)).toEqual({
      anthropic_version: 'vertex-2023-10-16',
      max_tokens: 8,
      messages: [{ role: 'user', content: 'Say hi' }],
      stream: true,
    });
    const headers = request.init.headers as Record<string, string>;
    expect(headers['x-api-key']).toBeUndefined();
    expect(headers['anthropic-version']).toBeUndefined();
    // The Anthropic API itself is unchanged.
    const direct = protocolFor('anthropic-messages').buildRequest({
      target: { id: 'a', api: 'anthropic-messages', url: 'https://api.anthropic.com/v1/messages', model: 'claude', apiKey: 'k' },
      prompt: 'Say hi',
      maxTokens: 8,
    });
    expect(JSON.parse(direct.init.body as string).model).toBe('claude');
    expect((direct.init.headers as Record<string, string>)['x-api-key']).toBe('k');
  });
});

describe('Cloudflare Workers AI', () => {
  const url = 'https://api.cloudflare.com/client/v4/accounts/0123abcd/ai/run/{model}';
  const model = '@cf/meta/llama-3.1-8b-instruct';
  const stream = sse([
    { response: 'Hel', p: 'abcdefgh' },
    { response: 'lo\u00e9 "q"', p: 'ab' },
    { response: '!' },
    { response: '', usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } },
    '[DONE]',
  ]);

  it('runs the model at its own path (not percent-encoded), streams `response` tokens, reads usage; fast path and full parse agree', async () => {
    const request = protocolFor('workers-ai').buildRequest({
      target: { id: 'w', api: 'workers-ai', url, model, apiKey: 'cf-token' },
      prompt: 'Hi',
      maxTokens: 8,
    });
    expect(request.url).toBe('https://api.cloudflare.com/client/v4/accounts/0123abcd/ai/run/@cf/meta/llama-3.1-8b-instruct');
    expect(JSON.parse(request.init.body as string)).toEqual({ messages: [{ role: 'user', content: 'Hi' }], max_tokens: 8, stream: true });
    expect((request.init.headers as Record<string, string>).authorization).toBe('Bearer cf-token');
    const samples = [];
    for (const fastPath of [true, false]) {
      const w = wire(stream);
      const { sample, text } = await runProbe({
        target: { id: 'w', api: 'workers-ai', url, model },
        prompt,
        fetch: w.fetch,
        now: w.now,
        fastPath,
        collectText: true,
      });
      expect(text!.answer).toBe('Hello\u00e9 "q"!');
      samples.push(sample);
    }
    for (const s of samples)
      expect(s).toMatchObject({ error: null, chunks: 3, output_tokens: 3, input_tokens: 12, tokens_exact: true, ttft_ms: 60 });
    expect(samples[0].timeline).toEqual(samples[1].timeline);
  });

  it('refuses a model name that would reach outside its path, and reports an error event as stream_error', async () => {
    expect(() =>
      protocolFor('workers-ai').buildRequest({
        target: { id: 'w', api: 'workers-ai', url, model: '../../../zones?x=1' },
        prompt: 'Hi',
        maxTokens: 8,
      }),
    ).toThrow(/not a Workers AI model name/);
    const w = wire(sse([{ response: 'a' }, { errors: [{ message: 'AiError: capacity temporarily exceeded', code: 3040 }] }]));
    const { sample } = await runProbe({ target: { id: 'w', api: 'workers-ai', url, model }, prompt, fetch: w.fetch, now: w.now });
    expect(sample.error).toBe('stream_error');
    expect(sample.error_detail).toContain('capacity temporarily exceeded');
  });
});
