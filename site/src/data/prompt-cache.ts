/**
 * What a target's prompt cache is worth, as the target page shows it (MEASUREMENT.md, "Prompt cache"): per
 * region, the paired discount of the second pass on TTFT and on server time (GET /api/v1/prompt-cache), beside
 * the two passes' median TTFT of the default window.
 */
import type { CacheDiscount } from '../../../shared/rollup/cache-hours.ts';
import { warmPassId } from '../../../shared/config/work-list.ts';
import { fmt } from '../format.ts';
import { DEFAULT_WINDOW, type SiteData } from './types.ts';

export interface PromptCacheRow {
  region: string;
  prompt_variant: string;
  first_ttft_p50: number | null;
  second_ttft_p50: number | null;
  ttft: CacheDiscount;
  server: CacheDiscount;
  cached_tokens: { reported: number; hits: number; hit_rate: number | null; mean: number | null };
}

/** A pass's median TTFT in the region over the default window (null without samples). */
function medianTtft(data: SiteData, variant: string, region: string, target: string): number | null {
  const view = data.variant_windows[variant]?.find((w) => w.id === DEFAULT_WINDOW);
  const g = view?.percentiles.ttft_ms.find((x) => x.region === region && x.target === target);
  return g?.p50 ?? null;
}

/** The target's prompt caches, in the site's region order. */
export function promptCacheRows(data: SiteData, target: string): PromptCacheRow[] {
  const order = data.regions.map((r) => r.code);
  return data.prompt_caches
    .filter((c) => c.target === target)
    .sort((a, b) => order.indexOf(a.region) - order.indexOf(b.region) || a.prompt_variant.localeCompare(b.prompt_variant))
    .map((c) => ({
      region: c.region,
      prompt_variant: c.prompt_variant,
      first_ttft_p50: medianTtft(data, c.prompt_variant, c.region, target),
      second_ttft_p50: medianTtft(data, warmPassId(c.prompt_variant), c.region, target),
      ttft: c.ttft,
      server: c.server,
      cached_tokens: c.cached_tokens,
    }));
}

/** "62 % [58 %, 66 %]", or the reason there is none. */
export function discountText(d: CacheDiscount): string {
  if (d.discount_pct === null) return 'no paired ticks yet';
  const value = `${fmt(d.discount_pct)} %`;
  return d.ci_low_pct === null || d.ci_high_pct === null ? value : `${value} [${fmt(d.ci_low_pct)} %, ${fmt(d.ci_high_pct)} %]`;
}

/** The verdict in words: what a reader may conclude from the TTFT discount. */
export function cacheVerdictWords(d: CacheDiscount, marginPct = 5): string {
  switch (d.verdict) {
    case 'faster':
      return `the second pass is faster: the cache saves ${fmt(d.discount_pct!)} % of TTFT`;
    case 'slower':
      return 'the second pass is slower: no cache benefit seen';
    case 'no_difference':
      return `no meaningful difference (within ±${fmt(marginPct)} %): the prefix seems not to be cached`;
    default:
      return d.more_ticks === null ? 'not enough data' : `not enough data: about ${d.more_ticks.toLocaleString('en-US')} more paired ticks`;
  }
}
