/**
 * Azure OpenAI on the reference endpoint, with the `openai` package as the oracle: its AzureOpenAI
 * client streams from the deployment URL (api-key auth, api-version), and, as Microsoft documents
 * for the v1 API, its OpenAI client from /openai/v1 (Bearer; AzureOpenAI would rewrite every chat
 * request to /deployments/{model}). Beside it a plain fetch reads Azure's content filter chunks.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import OpenAI, { AzureOpenAI } from 'openai';
import { startWorker, type RunningWorker } from '../../scripts/worker-runtime.ts';
import { answerText } from './wire-client.ts';

const url = inject('referenceUrl');
const lockedUrl = inject('lockedReferenceUrl');
const TOKEN = 'ref-test-token-123';
const API_VERSION = '2024-10-21';
const INSTANT = 'queue_base_ms=0, prefill_base_ms=0, prefill_ms_per_token=0, decode_ms_per_token=0';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SAFE = { filtered: false, severity: 'safe' };
const COMPLETION_FILTERS = { hate: SAFE, self_harm: SAFE, sexual: SAFE, violence: SAFE };
const messages = [{ role: 'user' as const, content: 'hello' }];

const deploymentClient = (deployment: string, apiKey = TOKEN) =>
  new AzureOpenAI({
    endpoint: lockedUrl,
    apiKey,
    apiVersion: API_VERSION,
    deployment,
    maxRetries: 0,
    defaultHeaders: { 'x-ref-params': INSTANT },
  });
const v1Client = new OpenAI({
  baseURL: `${lockedUrl}/openai/v1`,
  apiKey: TOKEN,
  maxRetries: 0,
  defaultHeaders: { 'x-ref-params': INSTANT },
});

/** The data events of a raw stream, parsed ([DONE] as the string). */
async function rawEvents(path: string, body: object, auth: Record<string, string> = { 'api-key': TOKEN }) {
  const response = await fetch(lockedUrl + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-ref-params': INSTANT, ...auth },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const events = text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length))
    .map((data) => (data === '[DONE]' ? data : JSON.parse(data)));
  return { response, events };
}

const streamed = { stream: true as const, stream_options: { include_usage: true } };
const textOf = (events: any[]) =>
  events
    .filter((e) => e !== '[DONE]')
    .flatMap((e) => e.choices)
    .map((c: any) => c.delta?.content ?? '')
    .join('');

function expectAzureHeaders(headers: Headers, region = 'Sweden Central') {
  expect(headers.get('x-ms-region')).toBe(region);
  expect(headers.get('apim-request-id')).toMatch(UUID);
  expect(headers.get('x-request-id')).toMatch(UUID);
  expect(headers.get('azureml-model-session')).toBeTruthy();
}

describe('AzureOpenAI client, deployment URL', () => {
  for (const [deployment, maxTokens, answer] of [
    ['ref-fast-small', 20, 20],
    ['ref-reasoning', 60, 12],
    ['ref-hidden-reasoning', 310, 10],
  ] as const) {
    it(`streams ${deployment}: the SDK's text is the text the reference sent, usage as sent`, async () => {
      const { data: stream, response } = await deploymentClient(deployment)
        .chat.completions.create({ model: deployment, messages, max_tokens: maxTokens, ...streamed })
        .withResponse();
      expectAzureHeaders(response.headers);
      let text = '';
      let usage: OpenAI.CompletionUsage | undefined;
      let finish: string | null = null;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
        usage = chunk.usage ?? usage;
      }
      expect(text).toBe(answerText(answer));
      expect(finish).toBe('length');
      expect(usage).toMatchObject({ completion_tokens: maxTokens, completion_tokens_details: { reasoning_tokens: maxTokens - answer } });

      const { events } = await rawEvents(`/openai/deployments/${deployment}/chat/completions?api-version=${API_VERSION}`, {
        messages,
        max_tokens: maxTokens,
        ...streamed,
      });
      expect(textOf(events)).toBe(text);
    });
  }

  it('the SDK stream helper assembles the completion, filter chunks and all', async () => {
    const final = await deploymentClient('ref-fast-small')
      .chat.completions.stream({ model: 'ref-fast-small', messages, max_tokens: 7, stream_options: { include_usage: true } })
      .finalChatCompletion();
    expect(final.choices[0].message.content).toBe(answerText(7));
    expect(final.choices[0].finish_reason).toBe('length');
    expect(final.usage?.completion_tokens).toBe(7);
  });

  it('honours reasoning_effort as on OpenAI', async () => {
    const final = await deploymentClient('ref-hidden-reasoning')
      .chat.completions.stream({
        model: 'ref-hidden-reasoning',
        messages,
        max_tokens: 160,
        reasoning_effort: 'low',
        stream_options: { include_usage: true },
      })
      .finalChatCompletion();
    expect(final.choices[0].message.content).toBe(answerText(10));
    expect(final.usage?.completion_tokens_details?.reasoning_tokens).toBe(150);
  });

  it('a wrong api-key is a 401 in Azure words; an injected 429 is a RateLimitError with Azure body', async () => {
    await expect(
      deploymentClient('ref-fast-small', 'wrong').chat.completions.create({
        model: 'ref-fast-small',
        messages,
        max_tokens: 2,
        stream: true,
      }),
    ).rejects.toMatchObject({ status: 401, error: { code: '401', message: expect.stringContaining('Access denied') } });
    await expect(
      deploymentClient('ref-fast-small~http-429').chat.completions.create({ model: 'x', messages, max_tokens: 2, stream: true }),
    ).rejects.toBeInstanceOf(OpenAI.RateLimitError);
  });
});

describe('the v1 URL (/openai/v1/chat/completions, the model in the body)', () => {
  it('streams through the OpenAI client, text as the reference sent it', async () => {
    const final = await v1Client.chat.completions
      .stream({ model: 'ref-reasoning', messages, max_tokens: 60, stream_options: { include_usage: true } })
      .finalChatCompletion();
    expect(final.choices[0].message.content).toBe(answerText(12));
    const { response, events } = await rawEvents('/openai/v1/chat/completions', {
      model: 'ref-reasoning',
      messages,
      max_tokens: 60,
      ...streamed,
    });
    expectAzureHeaders(response.headers);
    expect(textOf(events)).toBe(final.choices[0].message.content);
  });

  it('takes the key as api-key or Bearer, and wants the model in the body', async () => {
    const body = { model: 'ref-fast-small', messages, max_tokens: 2, ...streamed };
    expect((await rawEvents('/openai/v1/chat/completions', body)).response.status).toBe(200);
    const bearer = await rawEvents('/openai/v1/chat/completions', body, { authorization: `Bearer ${TOKEN}` });
    expect(bearer.response.status).toBe(200);
    expect((await rawEvents('/openai/v1/chat/completions', body, { 'api-key': 'wrong' })).response.status).toBe(401);
    expect((await rawEvents('/openai/v1/chat/completions', body, {})).response.status).toBe(401);
    const noModel = await rawEvents('/openai/v1/chat/completions', { messages, max_tokens: 2 });
    expect(noModel.response.status).toBe(400);
  });
});

describe('the stream, read raw', () => {
  it("carries Azure's content filter chunks around OpenAI's", async () => {
    const { response, events } = await rawEvents(`/openai/deployments/ref-fast-small/chat/completions?api-version=${API_VERSION}`, {
      messages,
      max_tokens: 9,
      ...streamed,
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const [prompt, role, ...rest] = events;
    // First: no choices, the prompt's filter results.
    expect(prompt).toMatchObject({
      choices: [],
      prompt_filter_results: [
        { prompt_index: 0, content_filter_results: { ...COMPLETION_FILTERS, jailbreak: { filtered: false, detected: false } } },
      ],
    });
    expect(role.choices[0]).toMatchObject({ delta: { role: 'assistant' }, content_filter_results: {} });
    const content = rest.slice(0, 9);
    expect(content.map((e: any) => e.choices[0].delta.content).join('')).toBe(answerText(9));
    for (const e of content) expect(e.choices[0]).toHaveProperty('content_filter_results');
    const filtered = content.filter((e: any) => Object.keys(e.choices[0].content_filter_results).length > 0);
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered.length).toBeLessThan(content.length); // the rest carry {}
    for (const e of filtered) expect(e.choices[0].content_filter_results).toEqual(COMPLETION_FILTERS);
    const [finish, trailing, usage, done] = rest.slice(9);
    expect(finish.choices[0]).toMatchObject({ delta: {}, finish_reason: 'length', content_filter_results: {} });
    expect(trailing.choices).toEqual([{ index: 0, delta: {}, finish_reason: null, content_filter_results: COMPLETION_FILTERS }]);
    expect(usage).toMatchObject({ choices: [], usage: { completion_tokens: 9 } });
    expect(done).toBe('[DONE]');
    expect(rest).toHaveLength(13);
  });

  it('a deployment URL without api-version is a 404 Resource not found, as Azure answers', async () => {
    const r = await fetch(`${lockedUrl}/openai/deployments/ref-fast-small/chat/completions`, {
      method: 'POST',
      headers: { 'api-key': TOKEN, 'content-type': 'application/json' },
      body: JSON.stringify({ messages, max_tokens: 2 }),
    });
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual({ error: { code: '404', message: 'Resource not found' } });
    expectAzureHeaders(r.headers);
  });

  it('an open endpoint needs no key here either', async () => {
    const r = await fetch(`${url}/openai/deployments/ref-fast-small/chat/completions?api-version=${API_VERSION}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-ref-params': INSTANT },
      body: JSON.stringify({ messages, max_tokens: 2, stream: true }),
    });
    expect(r.status).toBe(200);
    expect(
      textOf(
        (await r.text())
          .split('\n\n')
          .filter((b) => b.startsWith('data: {'))
          .map((b) => JSON.parse(b.slice(6))),
      ),
    ).toBe(answerText(2));
  });
});

describe('x-ms-region names the configured region', () => {
  let elsewhere: RunningWorker;
  beforeAll(async () => {
    elsewhere = await startWorker({
      config: 'workers/reference/wrangler.toml',
      bindings: { REFERENCE_OPEN: 'true', REFERENCE_AZURE_REGION: 'East US 2' },
    });
  }, 120_000);
  afterAll(() => elsewhere?.stop());

  it('REFERENCE_AZURE_REGION', async () => {
    const r = await fetch(`${elsewhere.url}/openai/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-ref-params': INSTANT },
      body: JSON.stringify({ model: 'ref-fast-small', messages, max_tokens: 2, stream: true }),
    });
    await r.text();
    expectAzureHeaders(r.headers, 'East US 2');
  });
});
