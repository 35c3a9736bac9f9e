/**
 * The prefill rate measured end to end against a model with a known one (a timing claim: it runs with the
 * timing files, after the rest): real probes of the reference
 * endpoint at three prompt sizes, their split's server time fitted against the prompt tokens the
 * endpoint reported (Theil–Sen, as the site does), recover the endpoint's prefill_ms_per_token.
 */
import { describe, expect, inject, it } from 'vitest';
import { runProbe } from '../../shared/probe/probe.ts';
import { theilSen } from '../../shared/stats/line-fit.ts';

const url = inject('referenceUrl');
/** 0.05 ms per prompt token (50 ms per 1,000) after a fixed 30 ms; nothing else varies with the prompt. */
const PREFILL_MS_PER_TOKEN = 0.05;
const PARAMS = `queue_base_ms=0, queue_per_concurrent_ms=0, prefill_base_ms=30, prefill_ms_per_token=${PREFILL_MS_PER_TOKEN}, decode_ms_per_token=1, decode_jitter=0, vendor_timing=1`;

describe('prefill rate on the reference endpoint', () => {
  it('is recovered from server time against reported prompt tokens', async () => {
    const points: Array<[number, number]> = [];
    const configured: Array<[number, number]> = [];
    for (const promptTokens of [1_000, 8_000, 32_000]) {
      for (let i = 0; i < 3; i++) {
        const { sample } = await runProbe({
          target: {
            id: 'ref',
            api: 'openai-chat',
            url: `${url}/v1/chat/completions`,
            model: 'ref-fast-small',
            headers: { 'x-ref-params': PARAMS },
          },
          prompt: { id: `p${promptTokens}`, promptTokens, maxTokens: 4 },
        });
        expect(sample.error, JSON.stringify(sample.error_detail)).toBeNull();
        expect(sample.server_ms).not.toBeNull();
        points.push([sample.input_tokens!, sample.server_ms!]);
        configured.push([promptTokens, sample.server_ms!]);
      }
    }
    const fit = theilSen(points)!;
    console.log(
      `prefill fit: ${(fit.slope * 1_000).toFixed(2)} ms per 1,000 tokens [${(fit.slope_low! * 1_000).toFixed(2)}–${(fit.slope_high! * 1_000).toFixed(2)}], overhead ${fit.intercept.toFixed(1)} ms (known: ${PREFILL_MS_PER_TOKEN * 1_000}, 30)`,
    );
    // The known rate lies within the fit's 95 % interval (widened by 5 % for the server's own CPU per prompt byte),
    // and the estimate within half of it: a wrong figure or unit (characters for tokens) is 4 times off. A quiet
    // machine lands within 1 %; beside two busy loops 9 probes have given 53 and 62 ms per 1,000 tokens, each
    // interval holding 50. Fitting the configured sizes instead of the reported tokens (6 % lower) is caught below.
    expect(fit.slope_low!).toBeLessThanOrEqual(PREFILL_MS_PER_TOKEN * 1.05);
    expect(fit.slope_high!).toBeGreaterThanOrEqual(PREFILL_MS_PER_TOKEN * 0.95);
    expect(Math.abs(fit.slope - PREFILL_MS_PER_TOKEN) / PREFILL_MS_PER_TOKEN).toBeLessThan(0.5);
    expect(Math.abs(fit.intercept - 30)).toBeLessThan(150);
    // The variant's configured size is approximate (the endpoint counts about 4 characters a token): fitted
    // against it, the rate comes out lower by that ratio, which is why the site prefers the reported tokens.
    const ratio = points[0][0] / configured[0][0];
    expect(ratio).toBeLessThan(1);
    expect(theilSen(configured)!.slope).toBeCloseTo(fit.slope * ratio, 2);
  }, 60_000);
});
