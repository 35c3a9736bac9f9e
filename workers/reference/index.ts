/**
 * The reference LLM endpoint: OpenAI Chat Completions, OpenAI Responses, Anthropic Messages,
 * Gemini, Amazon Bedrock ConverseStream (a binary AWS event stream; Bearer or SigV4:
 * routes/bedrock.ts) and Azure OpenAI (both URL forms, with content filter chunks:
 * routes/azure-openai.ts) streaming, with a latency model whose truth is known and every failure
 * mode on demand. Models: profiles.ts (MODELS); faults: faults.ts (FAULTS); reasoning controls
 * honoured from the body: reasoning-controls.ts, reasoning-tokens.ts; Server-Timing claims:
 * timing-claims.ts.
 */
import { Hono } from 'hono';
import { handleCompletion, limitsFrom } from './handle-completion.ts';
import { parseRequest } from './request.ts';
import { openaiChatFormat } from './formats/openai-chat.ts';
import { openaiResponsesFormat } from './formats/openai-responses.ts';
import { anthropicFormat } from './formats/anthropic-messages.ts';
import { geminiFormat } from './formats/gemini.ts';
import { MODELS } from './profiles.ts';
import { FAULTS } from './faults.ts';
import { EFFORT_SHARE } from './reasoning-tokens.ts';
import { bedrockRoutes, EXCEPTION_HEADER } from './routes/bedrock.ts';
import { azureRoutes } from './routes/azure-openai.ts';

const app = new Hono<{ Bindings: Env }>();

const describe = () => ({
  service: 'llm-reference',
  endpoints: [
    'POST /v1/chat/completions',
    'POST /v1/responses',
    'POST /v1/messages',
    'POST /v1beta/models/{model}:streamGenerateContent?alt=sse',
    'POST /model/{modelId}/converse-stream',
    'POST /openai/deployments/{deployment}/chat/completions?api-version=2024-10-21',
    'POST /openai/v1/chat/completions',
    'GET /v1/models',
  ],
  models: MODELS,
  faults: FAULTS,
  overrides: `x-ref-params: name=value, … (profile fields); x-ref-fault: <fault> or model suffix ~<fault>; ${EXCEPTION_HEADER}: the Bedrock exception of error-event`,
  scheduled_faults:
    'x-ref-scheduled-fault (or SCHEDULED_FAULTS): region=apac|enam; every=60; at=20; for=15; slow_ms=1500; fault=http-503 — keyed to x-ref-region and x-ref-tick',
  reasoning: {
    controls:
      'Chat (and Azure) reasoning_effort; Responses reasoning.effort; Anthropic thinking {type, budget_tokens}; Gemini generationConfig.thinkingConfig.thinkingBudget; Bedrock additionalModelRequestFields.thinking {type, budget_tokens}',
    effort_share: EFFORT_SHARE,
  },
});

/** A cheap round-trip target: its Server-Timing is the (tiny) time spent on it. */
function timed(body: unknown): Response {
  const started = performance.now();
  const response = Response.json(body);
  response.headers.set('server-timing', `app;dur=${(performance.now() - started).toFixed(2)}`);
  return response;
}

app.get('/', () => timed(describe()));
app.get('/healthz', () => timed({ ok: true }));
app.get('/v1/models', () =>
  timed({ object: 'list', data: Object.keys(MODELS).map((id) => ({ id, object: 'model', created: 0, owned_by: 'reference' })) }),
);
app.get('/v1beta/models/:model', (c) =>
  timed({ name: `models/${c.req.param('model')}`, supportedGenerationMethods: ['streamGenerateContent'] }),
);

app.post('/v1/chat/completions', (c) => handleCompletion(c.req.raw, limitsFrom(c.env), openaiChatFormat, parseRequest.openaiChat));
app.post('/v1/responses', (c) => handleCompletion(c.req.raw, limitsFrom(c.env), openaiResponsesFormat, parseRequest.openaiResponses));
app.post('/v1/messages', (c) => handleCompletion(c.req.raw, limitsFrom(c.env), anthropicFormat, parseRequest.anthropic));
app.post('/v1beta/models/:target', async (c) => {
  const [model, method] = c.req.param('target').split(':');
  if (method !== 'streamGenerateContent' && method !== 'generateContent') {
    return Response.json({ error: { code: 404, message: `unknown method "${method}"`, status: 'NOT_FOUND' } }, { status: 404 });
  }
  return handleCompletion(c.req.raw, limitsFrom(c.env), geminiFormat, (body) =>
    parseRequest.gemini(body, model, method === 'streamGenerateContent'),
  );
});

app.route('/', bedrockRoutes);
app.route('/', azureRoutes);

app.notFound((c) => c.json({ error: { message: `no route for ${c.req.method} ${new URL(c.req.url).pathname}`, type: 'not_found' } }, 404));
app.onError((_err, c) => c.json({ error: { message: 'internal error', type: 'server_error' } }, 500));

export default app satisfies ExportedHandler<Env>;
