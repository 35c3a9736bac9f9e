/**
 * The configuration as the read API describes it (GET /api/v1/health's prompt variants, /regions, /targets), defined
 * once: the API adds what was sampled, and the site's empty state (no read API yet) uses the same with nothing sampled.
 */
import type { PromptVariantInfo, RegionInfo, TargetInfo } from '../api-types.ts';
import type { ObservatoryConfig, PromptVariantConfig, RegionConfig, TargetConfig } from './types.ts';
import { regionsOfTarget } from './work-list.ts';
import { targetPrice } from '../price/target-price.ts';

/** What a region or target sampled over the window asked; nothing for the empty state. */
export interface Sampled {
  samples: number;
  /** Epoch ms of the newest sample's start, or null. */
  last: number | null;
}

export const NOTHING_SAMPLED: Sampled = { samples: 0, last: null };

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

/** A prompt variant as the health answer lists it (a prompt-cache variant's second pass after it, as the config has them). */
export const promptVariantInfo = (v: PromptVariantConfig): PromptVariantInfo => ({
  id: v.id,
  label: v.label,
  prompt_tokens: v.promptTokens,
  max_tokens: v.maxTokens,
  ...(v.promptCache ? { prompt_cache: true as const } : {}),
  ...(v.warmPassOf ? { warm_pass_of: v.warmPassOf } : {}),
});

export const regionInfo = (r: RegionConfig, sampled: Sampled, colos: RegionInfo['colos'] = []): RegionInfo => ({
  code: r.code,
  label: r.label,
  location_hint: r.locationHint,
  samples: sampled.samples,
  last_sample_at: iso(sampled.last),
  colos,
});

/** The host a target's URL names, `{REFERENCE_URL}` read as `referenceUrl`; the URL itself if it does not parse. */
export function endpointHost(url: string, referenceUrl: string): string {
  try {
    return new URL(url.replace('{REFERENCE_URL}', referenceUrl)).host;
  } catch {
    return url;
  }
}

export const targetInfo = (
  config: Pick<ObservatoryConfig, 'regions'>,
  t: TargetConfig,
  referenceUrl: string,
  sampled: Sampled,
): TargetInfo => ({
  id: t.id,
  label: t.label,
  provider: t.provider,
  api: t.api,
  model: t.model,
  endpoint_host: endpointHost(t.url, referenceUrl),
  reference: t.reference === true,
  prompt_cache: t.promptCache === true,
  regions: regionsOfTarget(config, t),
  samples: sampled.samples,
  last_sample_at: iso(sampled.last),
  price: targetPrice(t),
});
