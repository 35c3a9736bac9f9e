/**
 * The configuration the Workers tests run with (aliased over observatory.config.ts): the reference
 * endpoint behind an API key held in a Worker secret, a target that always fails, and a target whose
 * secret is missing.
 */
import type { ObservatoryConfig } from '../../shared/config/types.ts';

const QUICK = 'decode_ms_per_token=1, prefill_base_ms=5, queue_base_ms=0';

export const config: ObservatoryConfig = {
  schedule: '*/5 * * * *',
  plan: 'free',
  regions: [
    { code: 'weur', label: 'Western Europe', locationHint: 'weur' },
    { code: 'enam', label: 'Eastern North America', locationHint: 'enam' },
    { code: 'apac', label: 'Asia-Pacific', locationHint: 'apac' },
  ],
  targets: [
    // Both take part in the concurrency probes; the chat model's replicas accept 4 concurrent requests, then answer 429
    // (its streams last 200 ms, so a level's streams overlap even when a busy machine spreads their starts).
    {
      id: 'ref-chat',
      label: 'Reference chat',
      provider: 'Reference',
      api: 'openai-chat',
      url: '{REFERENCE_URL}/v1/chat/completions',
      model: 'ref-fast-small',
      apiKeySecret: 'REFERENCE_KEY',
      headers: { 'x-ref-params': `${QUICK}, decode_ms_per_token=40, max_concurrent=4` },
      reference: true,
      bursts: true,
      // The catalog carries it (tests/workers/api.test.ts); the others are unpriced.
      price: { inputPerMTokens: 0.15, outputPerMTokens: 0.6, currency: 'USD', asOf: '2026-12-01', source: 'test price' },
    },
    {
      id: 'ref-messages',
      label: 'Reference messages',
      provider: 'Reference',
      api: 'anthropic-messages',
      url: '{REFERENCE_URL}/v1/messages',
      model: 'ref-slow-large',
      apiKeySecret: 'REFERENCE_KEY',
      headers: { 'x-ref-params': QUICK },
      reference: true,
      bursts: true,
      // Both share a vendor status page (tests/workers/vendor-status.test.ts): unset here, so inactive in every other test.
      statusPage: '{VENDOR_STATUS_URL}',
    },
    {
      id: 'ref-broken',
      label: 'Always failing',
      provider: 'Reference',
      api: 'openai-chat',
      url: '{REFERENCE_URL}/v1/chat/completions',
      model: 'ref-fast-small',
      apiKeySecret: 'REFERENCE_KEY',
      headers: { 'x-ref-fault': 'http-500' },
      reference: true,
      statusPage: '{VENDOR_STATUS_URL}',
    },
    {
      id: 'ref-no-key',
      label: 'Missing secret',
      provider: 'Reference',
      api: 'openai-chat',
      url: '{REFERENCE_URL}/v1/chat/completions',
      model: 'ref-fast-small',
      apiKeySecret: 'ABSENT_KEY',
      regions: ['weur'],
    },
  ],
  promptVariants: [{ id: 'tiny', label: 'Tiny', promptTokens: 40, maxTokens: 6 }],
  // Run only when a test fires this cron (tests/workers/bursts.test.ts).
  bursts: { schedule: '2 * * * *', levels: [1, 4, 8, 16] },
  // Bounds a starved machine does not reach: the whole suite on 2 cores can hold a loopback answer for seconds, and a
  // probe timed out there would be a failure the status tests count (an incident that does not resolve, an hour
  // 'partial'). No test here waits for them to pass (tests/workers/token-stall.test.ts sets its own).
  timeouts: { headersMs: 15_000, firstTokenMs: 15_000, idleMs: 15_000, totalMs: 30_000 },
  concurrency: 1,
  rttProbes: 1,
  // The tests' ticks lie in January 2026: their samples must count as within raw retention.
  retentionDays: 3_650,
  rollupRetentionDays: 3_650,
  probeSecondsEstimate: 1,
  // Each rolled-up hour goes to a stand-in collector on loopback (tests/helpers/otlp-collector.ts).
  otlp: { endpoint: '{OTLP_ENDPOINT}', header: 'authorization', secret: 'OTLP_TOKEN' },
  // The status tests are about outages (the error and down rules): a busy machine's stalls must not fire the latency
  // rules on these tiny streams. Under load the TTFT of a 6-token answer can pass 1.5× a baseline measured seconds
  // earlier on a quieter machine (seen: another region degraded mid-test, a second incident, an hour 'partial').
  // The latency rules themselves are held by tests/shared/status/status-rules.test.ts.
  status: { itl: { thresholdMs: 2_000 }, ttft: { ratio: 20 }, decode: { dropRatio: 0.99 } },
  // Every channel type, all at the loopback receiver (tests/helpers/notify-receiver.ts); secrets in vitest.config.ts.
  notifications: {
    reminderMinutes: 60,
    channels: [
      { name: 'hook', type: 'webhook', url: '{NOTIFY_URL}/hook', signingSecret: 'WEBHOOK_SECRET' },
      { name: 'slack', type: 'slack', urlSecret: 'SLACK_URL' },
      { name: 'discord', type: 'discord', urlSecret: 'DISCORD_URL', events: ['opened', 'resolved'] },
      { name: 'telegram', type: 'telegram', botTokenSecret: 'TELEGRAM_TOKEN', chatId: '-1001234567890', apiBase: '{NOTIFY_URL}/telegram' },
      { name: 'ntfy', type: 'ntfy', url: '{NOTIFY_URL}/ntfy/observatory-alerts', tokenSecret: 'NTFY_TOKEN' },
      { name: 'mail', type: 'email', binding: 'EMAIL', from: 'observatory@example.com', to: 'oncall@example.com', events: ['opened'] },
    ],
  },
};
