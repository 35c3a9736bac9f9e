/** Lookups over the API's percentile groups for the overview and region pages. */
import type { PercentileGroup, SiteData, SiteMetric, SiteSample } from './types.ts';

export function group(data: SiteData, metric: SiteMetric, region: string, target: string): PercentileGroup | undefined {
  return data.percentiles[metric].find((g) => g.region === region && g.target === target);
}

/** The target with the lowest median TTFT in a region, and whether the runner-up's interval overlaps its own. */
export function fastestInRegion(data: SiteData, region: string) {
  const ranked = data.percentiles.ttft_ms
    .filter((g) => g.region === region && g.p50 !== null)
    .sort((a, b) => a.p50! - b.p50!);
  if (ranked.length === 0) return null;
  const [first, second] = ranked;
  const separated = second !== undefined && first.p50_ci_high !== null && second.p50_ci_low !== null && first.p50_ci_high < second.p50_ci_low;
  return { target: first.target!, p50: first.p50!, n: first.n, runnerUp: second?.target ?? null, tied: second !== undefined && !separated };
}

export function targetLabel(data: SiteData, id: string): string {
  return data.targets.find((t) => t.id === id)?.label ?? id;
}

export function regionLabel(data: SiteData, code: string): string {
  return data.regions.find((r) => r.code === code)?.label ?? code;
}

/** Samples of the site's prompt variant: different prompt sizes are never pooled into one figure. */
export function ofVariant(data: SiteData, samples: SiteSample[]): SiteSample[] {
  return samples.filter((s) => s.prompt_variant === data.variant.id);
}

/** "Chat (200 tokens in, 64 out)": what every figure on the site is about. */
export function variantText(data: SiteData): string {
  const v = data.variant;
  const others = data.variants.length - 1;
  return `prompt variant ${v.id} (${v.prompt_tokens} tokens in, up to ${v.max_tokens} out)${others > 0 ? `; ${others} other variant${others > 1 ? 's' : ''} only in "TTFT against prompt size"` : ''}`;
}
