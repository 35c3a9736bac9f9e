/**
 * The prompt-cache probe's pure parts (MEASUREMENT.md, "Prompt cache"): the configuration's opt-in and second
 * passes, what it costs, the two passes' prompts and requests, the cached tokens each format reports, and the
 * discount computed from hourly blocks against a simulated truth.
 */
import { describe, expect, it } from 'vitest';
import { config } from '../../../observatory.config.ts';
import { type ConfigError, validateConfig } from '../../../shared/config/validate.ts';
import { preset } from '../../../shared/config/presets.ts';
import { firstPassId, jobVariantsOf, storedListOf, targetVariantPairs, warmPassId, workListOf } from '../../../shared/config/work-list.ts';
import { maxSubrequestsPerJob, probesPerTick, subrequestsPerJob } from '../../../shared/config/schedule.ts';
import { vendorTokens } from '../../../shared/config/vendor-tokens.ts';
import { buildCachePrompt, buildPrompt } from '../../../shared/probe/prompt.ts';
import { protocolFor } from '../../../shared/probe/protocols/index.ts';
import { createStreamState } from '../../../shared/probe/stream-state.ts';
import { cacheDiscount, cacheHours, type CacheSample } from '../../../shared/rollup/cache-hours.ts';
import { HOUR_MS } from '../../../shared/time.ts';
import type { ObservatoryConfig } from '../../../shared/config/types.ts';
import type { ProbeTarget } from '../../../shared/types.ts';

const cacheConfig = (): ObservatoryConfig => ({
  ...config,
  bursts: undefined,
  promptVariants: [preset('chat'), preset('prompt-cache')],
  targets: [
    { ...config.targets[0], promptVariants: undefined, bursts: undefined, promptCache: true },
    { ...config.targets[1], promptVariants: undefined, bursts: undefined, promptCache: undefined },
  ],
});

function problems(c: ObservatoryConfig): string[] {
  try {
    validateConfig(c);
    return [];
  } catch (e) {
    return (e as ConfigError).problems;
  }
}

describe('the prompt-cache configuration', () => {
  it('is run only by the targets that opt in, its second pass a variant of its own that no job runs', () => {
    const checked = validateConfig(cacheConfig());
    expect(checked.promptVariants.map((v) => [v.id, v.warmPassOf ?? null])).toEqual([
      ['chat', null],
      ['prompt-cache', null],
      ['prompt-cache-warm', 'prompt-cache'],
    ]);
    const [opted, other] = checked.targets;
    expect(jobVariantsOf(checked, opted).map((v) => v.id)).toEqual(['chat', 'prompt-cache']);
    expect(jobVariantsOf(checked, other).map((v) => v.id)).toEqual(['chat']);
    expect(workListOf(checked, 'weur').map((w) => `${w.target.id}/${w.variant.id}`)).toEqual([
      `${opted.id}/chat`,
      `${opted.id}/prompt-cache`,
      `${other.id}/chat`,
    ]);
    expect(storedListOf(checked, 'weur').map((w) => `${w.target.id}/${w.variant.id}`)).toContain(`${opted.id}/prompt-cache-warm`);
    // Raw or checked, the same pairs.
    expect(targetVariantPairs(cacheConfig())).toEqual(targetVariantPairs(checked));
    expect(
      targetVariantPairs(checked)
        .filter((p) => p.target === opted.id)
        .map((p) => p.variant),
    ).toEqual(['chat', 'prompt-cache', 'prompt-cache-warm']);
    expect(firstPassId(warmPassId('prompt-cache'))).toBe('prompt-cache');
    // Validating twice adds nothing twice.
    expect(validateConfig(checked).promptVariants).toHaveLength(3);
  });

  it('counts both passes: two samples, two requests after at least one round trip, twice the tokens', () => {
    const c = validateConfig(cacheConfig());
    // Per region: chat for both targets, and the prompt-cache job's two passes.
    expect(probesPerTick(c)).toBe(c.regions.length * 4);
    expect(subrequestsPerJob({ rttProbes: 0 }, { promptCache: true })).toBe(3);
    expect(subrequestsPerJob({ rttProbes: 2 }, { promptCache: true })).toBe(4);
    expect(subrequestsPerJob({ rttProbes: 2 }, {})).toBe(3);
    expect(maxSubrequestsPerJob(c)).toBe(2 + Math.max(1, c.rttProbes));
    const [opted, other] = vendorTokens(c).targets;
    const perTickOther = c.regions.length * 200;
    expect(other.inputTokensPerDay % perTickOther).toBe(0);
    const ticks = other.inputTokensPerDay / perTickOther;
    expect(opted.inputTokensPerDay).toBe(ticks * c.regions.length * (200 + 2 * 4_096));
    expect(opted.probesPerDay).toBe(ticks * c.regions.length * 3);
  });

  it('says what is wrong, in words a user can act on', () => {
    const c = cacheConfig();
    expect(problems({ ...c, promptVariants: [preset('chat'), preset('prompt-cache', { promptTokens: 800 })] })).toContain(
      'prompt variant "prompt-cache": a prompt-cache variant needs promptTokens of at least 1200 (providers cache no shorter prefix)',
    );
    expect(problems({ ...c, promptVariants: [preset('chat')] })).toContain(
      `target "${c.targets[0].id}": promptCache is on but no prompt variant has promptCache: true (add preset('prompt-cache'))`,
    );
    expect(problems({ ...c, targets: [c.targets[0], { ...c.targets[1], promptVariants: ['chat', 'prompt-cache'] }] })).toContain(
      `target "${c.targets[1].id}": lists the prompt-cache variant "prompt-cache"; opt in with promptCache: true instead (it costs tokens)`,
    );
    expect(
      problems({ ...c, promptVariants: [...c.promptVariants, { id: 'prompt-cache-warm', label: 'x', promptTokens: 10, maxTokens: 1 }] }),
    ).toContain(
      'prompt variant "prompt-cache": its second passes are stored as "prompt-cache-warm", which another prompt variant already is',
    );
    expect(problems({ ...c, promptVariants: [...c.promptVariants, { ...preset('chat', { id: 'x' }), warmPassOf: 'chat' }] })).toContain(
      'prompt variant "x": warmPassOf is set by the configuration check, not by hand',
    );
  });
});

describe('the two passes', () => {
  const nonce = '0123456789abcdef';
  const first = buildCachePrompt(4_096, nonce, 1);
  const second = buildCachePrompt(4_096, nonce, 2);

  it('share their prefix exactly, differ only in the short tail, and keep the variant size', () => {
    expect(first.text.slice(0, first.cacheBreak)).toBe(second.text.slice(0, second.cacheBreak));
    expect(first.text).not.toBe(second.text);
    expect(first.text.slice(first.cacheBreak).length).toBeLessThan(250);
    expect(first.text.startsWith(`Request ${nonce}.`)).toBe(true);
    expect(first.text.startsWith(buildPrompt(4_096, nonce))).toBe(true);
    expect(buildCachePrompt(4_096, 'fedcba9876543210', 1).text.slice(0, 40)).not.toBe(first.text.slice(0, 40));
  });

  const target = (api: ProbeTarget['api'], url: string): ProbeTarget => ({ id: 't', api, url, model: 'm', apiKey: 'k' });
  const body = (api: ProbeTarget['api'], url: string, cacheBreak?: number) =>
    JSON.parse(
      String(protocolFor(api).buildRequest({ target: target(api, url), prompt: first.text, maxTokens: 8, cacheBreak }).init.body),
    ) as Record<string, any>;

  it('mark Anthropic’s and Bedrock’s breakpoint where the prefix ends, and leave the self-caching formats as they are', () => {
    const anthropic = body('anthropic-messages', 'https://api.anthropic.com/v1/messages', first.cacheBreak);
    expect(anthropic.messages[0].content).toEqual([
      { type: 'text', text: first.text.slice(0, first.cacheBreak), cache_control: { type: 'ephemeral' } },
      { type: 'text', text: first.text.slice(first.cacheBreak) },
    ]);
    expect(body('anthropic-messages', 'https://api.anthropic.com/v1/messages').messages[0].content).toBe(first.text);
    const bedrock = body('bedrock-converse', 'https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse-stream', first.cacheBreak);
    expect(bedrock.messages[0].content).toEqual([
      { text: first.text.slice(0, first.cacheBreak) },
      { cachePoint: { type: 'default' } },
      { text: first.text.slice(first.cacheBreak) },
    ]);
    expect(body('openai-chat', 'https://api.openai.com/v1/chat/completions', first.cacheBreak).messages).toEqual([
      { role: 'user', content: first.text },
    ]);
  });
});

describe('cached tokens as each provider reports them', () => {
  const read = (api: ProbeTarget['api'], event: string, data: object) => {
    const s = createStreamState();
    protocolFor(api).onEvent(event, JSON.stringify(data), s);
    protocolFor(api).settle?.(s);
    return s.cachedTokens;
  };

  it('OpenAI prompt_tokens_details.cached_tokens, Responses input_tokens_details, Anthropic cache_read_input_tokens', () => {
    expect(
      read('openai-chat', '', {
        choices: [],
        usage: { prompt_tokens: 2006, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 1920 } },
      }),
    ).toBe(1920);
    // An OpenAI-compatible server that says nothing of a cache: unknown, not zero.
    expect(read('openai-chat', '', { choices: [], usage: { prompt_tokens: 2006, completion_tokens: 3 } })).toBeNull();
    expect(
      read('openai-responses', 'response.completed', {
        type: 'response.completed',
        response: { status: 'completed', usage: { input_tokens: 2006, input_tokens_details: { cached_tokens: 1024 }, output_tokens: 3 } },
      }),
    ).toBe(1024);
    expect(
      read('anthropic-messages', 'message_start', {
        type: 'message_start',
        message: { usage: { input_tokens: 40, cache_creation_input_tokens: 0, cache_read_input_tokens: 1966, output_tokens: 1 } },
      }),
    ).toBe(1966);
  });

  it('Gemini cachedContentTokenCount (left out when none: zero) and Bedrock cacheReadInputTokens', () => {
    const gemini = (usage: object) => read('gemini', '', { candidates: [{ content: { parts: [{ text: 'a' }] } }], usageMetadata: usage });
    expect(gemini({ promptTokenCount: 2006, candidatesTokenCount: 1, cachedContentTokenCount: 1536 })).toBe(1536);
    expect(gemini({ promptTokenCount: 2006, candidatesTokenCount: 1 })).toBe(0);
    expect(read('bedrock-converse', 'metadata', { usage: { inputTokens: 40, outputTokens: 3, cacheReadInputTokens: 1966 } })).toBe(1966);
    expect(read('bedrock-converse', 'metadata', { usage: { inputTokens: 40, outputTokens: 3 } })).toBe(0);
  });
});

describe('the cache discount', () => {
  // Two passes a tick over 36 hours: the second's TTFT a fixed 60 % of the first's, on a path shared with it that
  // drifts through the day (±40 %) and noise of its own (±5 %); the provider reads 1,920 tokens each time but one.
  // Every fourth first pass has no server time (no split): server time pairs 9 ticks an hour, TTFT 12.
  const start = Date.UTC(2026, 6, 1);
  const samples: CacheSample[] = [];
  const base = { region: 'weur', target: 't', method_version: 5, error: null, server_ms: null } as const;
  const HOURS = 36;
  for (let k = 0; k < HOURS * 12; k++) {
    const tick = start + k * 300_000;
    const path = 1 + 0.4 * Math.sin(k / 9);
    const cold = 1_000 * path * (1 + 0.05 * Math.sin(k * 2.7));
    const warm = 600 * path * (1 + 0.05 * Math.cos(k * 1.9));
    samples.push({
      ...base,
      tick_id: tick,
      prompt_variant: 'pc',
      cache_pass: 1,
      ttft_ms: cold,
      server_ms: k % 4 === 0 ? null : cold - 100,
      cached_tokens: 0,
    });
    samples.push({
      ...base,
      tick_id: tick,
      prompt_variant: 'pc-warm',
      cache_pass: 2,
      ttft_ms: warm,
      server_ms: warm - 100,
      cached_tokens: k === 5 ? 0 : 1_920,
    });
  }
  // Ordinary probes of the same variant ids are no part of it.
  samples.push({ ...base, tick_id: start, prompt_variant: 'pc', cache_pass: null, ttft_ms: 1, cached_tokens: null });

  it('writes one block an hour, pairing the passes by tick, with the reported tokens', () => {
    const hours = cacheHours(samples);
    expect(hours.map((h) => [h.hour, h.prompt_variant, h.block.n])).toEqual(
      Array.from({ length: HOURS }, (_, h) => [start + h * HOUR_MS, 'pc', [12, 9]]),
    );
    // Each figure's own wins: the second pass faster on every tick of both.
    expect(hours[0]).toMatchObject({ reported: 12, hits: 11, cached_sum: 11 * 1_920, block: { aWins: [12, 9], bWins: [0, 0] } });
    expect(hours[0].block.d[0]).toBeCloseTo(Math.log(0.6), 1);
  });

  it('finds the 40 % TTFT discount within its interval, and a larger share of server time', () => {
    const blocks = cacheHours(samples).map((h) => h.block);
    const ttft = cacheDiscount(blocks, 'ttft_ms');
    expect(ttft.verdict).toBe('faster');
    expect(ttft).toMatchObject({ pairs: HOURS * 12, win_rate: 1 });
    expect(cacheDiscount(blocks, 'server_ms')).toMatchObject({ pairs: HOURS * 9, win_rate: 1 });
    expect(ttft.ci_low_pct!).toBeLessThanOrEqual(40);
    expect(ttft.ci_high_pct!).toBeGreaterThanOrEqual(40);
    expect(ttft.discount_pct!).toBeGreaterThan(35);
    expect(ttft.discount_pct!).toBeLessThan(45);
    // server = TTFT − 100 ms: the same saving in ms is a larger share of it.
    expect(cacheDiscount(blocks, 'server_ms').discount_pct!).toBeGreaterThan(ttft.discount_pct!);
    expect(cacheDiscount(blocks.slice(0, 3), 'ttft_ms').verdict).toBe('not_enough_data');
  });
});
