/**
 * The observatory's configuration: the one file to edit. Checked at startup (and by `npm run check`);
 * every problem is reported at once.
 *
 * - regions: one Durable Object per region, created near its locationHint.
 * - targets: what to probe. API keys are Worker secrets, named here by `apiKeySecret` and set with
 *   `npx wrangler secret put NAME --env production`; locally a line NAME=… in .dev.vars beside wrangler.toml, which
 *   npm run dev and npm start read (docs/PROVIDERS.md "Local keys"). A key never belongs in this file, in D1, in logs
 *   or on the site.
 * - promptVariants: fixed input and output sizes; every probe's prompt also carries a fresh nonce.
 *
 * The defaults probe the bundled reference endpoint ({REFERENCE_URL}), so everything works locally
 * without any account or key. To measure a vendor, add a target such as:
 *
 *   { id: 'openai-gpt-4o-mini', label: 'GPT-4o mini', provider: 'OpenAI', api: 'openai-chat',
 *     url: 'https://api.openai.com/v1/chat/completions', model: 'gpt-4o-mini', apiKeySecret: 'OPENAI_API_KEY' },
 */
import type { ObservatoryConfig } from './shared/config/types.ts';
import { preset } from './shared/config/presets.ts';

type Target = ObservatoryConfig['targets'][number];
/**
 * Demo prices for the reference targets, so the compare page's latency against price has something to show: made up,
 * not any vendor's. A real target gives its vendor's list price, dated, with the pricing page as its source, e.g.
 *   price: { inputPerMTokens: 0.15, outputPerMTokens: 0.6, currency: 'USD', asOf: '2026-12-01', source: 'https://openai.com/api/pricing/' }
 * The reference endpoint bills nothing: npm run capacity counts no money for these.
 */
const demoPrice = (inputPerMTokens: number, outputPerMTokens: number): Target['price'] => ({
  inputPerMTokens,
  outputPerMTokens,
  currency: 'USD',
  asOf: '2026-12-01',
  source: 'demo: an illustrative price, not a real vendor price',
});
const reference = (id: string, label: string, api: Target['api'], path: string, extra: Partial<Target> = {}): Target => ({
  id: `reference-${id}`,
  label,
  provider: 'Reference endpoint',
  api,
  url: `{REFERENCE_URL}${path}`,
  model: `ref-${id}`,
  reference: true,
  promptVariants: ['chat'],
  ...extra,
});

export const config: ObservatoryConfig = {
  // Every 5 minutes. Must equal [triggers] crons in wrangler.toml.
  schedule: '*/5 * * * *',
  plan: 'free',
  // simulatedRttMs: only for the local demo (npm start), the distance each region is made to have.
  regions: [
    { code: 'weur', label: 'Western Europe', locationHint: 'weur', simulatedRttMs: 20 },
    { code: 'enam', label: 'Eastern North America', locationHint: 'enam', simulatedRttMs: 80 },
    { code: 'apac', label: 'Asia-Pacific', locationHint: 'apac', simulatedRttMs: 160 },
  ],
  targets: [
    // vendor_timing=1: also reports a vLLM-style time to first token in the body, so residual_ms is shown.
    // Every target runs the chat preset; these also code completion, and the fast one long context, so TTFT
    // against prompt size has three sizes to fit its prefill rate to.
    reference('fast-small', 'Reference · fast small model', 'openai-chat', '/v1/chat/completions', {
      headers: { 'x-ref-params': 'vendor_timing=1' },
      promptVariants: ['chat', 'code', 'long-context'],
      bursts: true,
      price: demoPrice(0.15, 0.6),
    }),
    // Also runs the prompt-cache probe (its 4,096-token prefix sent twice a tick, marked with cache_control): the demo's
    // cache discount. Real vendors bill both passes; npm run capacity counts them.
    reference('slow-large', 'Reference · slow large model', 'anthropic-messages', '/v1/messages', {
      promptVariants: ['chat', 'code'],
      promptCache: true,
      price: demoPrice(3, 15),
    }),
    // Streams its reasoning (summaries) before the answer; a low effort keeps it inside the 64-token budget.
    reference('reasoning', 'Reference · reasoning model', 'openai-responses', '/v1/responses', {
      reasoning: true,
      extraBody: { reasoning: { effort: 'low' } },
      price: demoPrice(1.1, 4.4),
    }),
    // Its queue and decode slow down as concurrent requests rise: the concurrency probes show the curve.
    reference('batching', 'Reference · batching server', 'gemini', '/v1beta/models/{model}:streamGenerateContent?alt=sse', {
      promptVariants: ['chat', 'code'],
      bursts: true,
      price: demoPrice(0.3, 2.5),
    }),
    // Thinks without streaming it (counted in usage only), like OpenAI's reasoning models on Chat Completions.
    // Its 300 reasoning tokens would use up the 64-token budget (no answer): a minimal effort leaves 30 for thinking.
    reference('hidden-reasoning', 'Reference · hidden reasoning model', 'openai-chat', '/v1/chat/completions', {
      reasoning: true,
      extraBody: { reasoning_effort: 'minimal' },
      price: demoPrice(1.25, 10),
    }),
    // AWS Bedrock's ConverseStream: AWS's binary event stream, signed with SigV4. Locally it signs with the reference
    // endpoint's public test credentials (wrangler.toml [vars]), which the endpoint verifies; deployed, where those are
    // not set, a reference target falls back to the endpoint's key as a Bedrock API key.
    reference('bedrock', 'Reference · Bedrock ConverseStream', 'bedrock-converse', '/model/{model}/converse-stream', {
      model: 'ref-fast-small',
      auth: {
        type: 'aws-sigv4',
        region: 'us-east-1',
        accessKeyIdSecret: 'REFERENCE_AWS_ACCESS_KEY_ID',
        secretAccessKeySecret: 'REFERENCE_AWS_SECRET_ACCESS_KEY',
      },
      price: demoPrice(0.2, 0.8),
    }),
    // Azure OpenAI's deployment URL: the key in api-key, content-filter chunks in the stream, x-ms-region in the headers.
    // Deliberately unpriced: the compare page's latency against price says which targets it leaves out for want of one.
    reference('azure', 'Reference · Azure OpenAI', 'openai-chat', '/openai/deployments/{model}/chat/completions?api-version=2024-10-21', {
      model: 'ref-fast-small',
      auth: { type: 'header', name: 'api-key', secret: 'REFERENCE_KEY' },
    }),
  ],
  // Workload presets (shared/config/presets.ts: code, chat, summary, long-context) or your own { id, label,
  // promptTokens, maxTokens }. Each is reported on its own (never pooled); the site shows the first by default,
  // the others a click away. A target runs every variant unless it lists its own (promptVariants on the target).
  // preset('prompt-cache') runs only on targets with promptCache: true; its second passes are stored as 'prompt-cache-warm'.
  promptVariants: [preset('chat'), preset('code'), preset('long-context'), preset('prompt-cache')],
  // Concurrency probes, hourly at minute 2 (between ticks; also in wrangler.toml's crons): each region starts
  // 1, 4, 8 and 16 simultaneous streams of the first variant to each target with bursts: true. Real vendors
  // bill every stream: npm run capacity counts them.
  bursts: { schedule: '2 * * * *', levels: [1, 4, 8, 16] },
  timeouts: { headersMs: 30_000, firstTokenMs: 60_000, idleMs: 20_000, totalMs: 120_000 },
  // Probes a region runs at once, never two of one target (a Worker keeps at most 6 connections waiting for headers).
  concurrency: 3,
  rttProbes: 2,
  // Raw samples for 14 days (exact percentiles, timelines); hourly rollups for 400 (long windows, at constant cost).
  retentionDays: 14,
  rollupRetentionDays: 400,
  probeSecondsEstimate: 4,
  // Status rules: the defaults of shared/status/rules.ts (README "Status and alerts"), e.g.
  // status: { ttft: { ratio: 2 }, downAfterFailures: 5 },
  notifications: {
    reminderMinutes: 60,
    channels: [
      // The local demo's sink: npm start sets DEMO_WEBHOOK_URL and the signing key; unset when deployed, so inactive there.
      { name: 'demo-sink', type: 'webhook', url: '{DEMO_WEBHOOK_URL}', signingSecret: 'DEMO_WEBHOOK_SIGNING_KEY' },
      // Your own, secrets set with `npx wrangler secret put NAME --env production` (locally in .dev.vars, as a {VAR} URL's variable is):
      // { name: 'ops-slack', type: 'slack', urlSecret: 'SLACK_WEBHOOK_URL' },
      // { name: 'pager', type: 'ntfy', url: 'https://ntfy.sh/my-llm-alerts', events: ['opened', 'escalated'] },
    ],
  },
};
