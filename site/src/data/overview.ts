/** Lookups over the API's percentile groups for the overview and region pages. */
import type { PercentileGroup, SiteData, SiteMetric, SiteSample } from './types.ts';
import { variantWords } from './variants.ts';

/** Anything holding percentiles by metric: the site's default view (SiteData) or any window's. */
type WithPercentiles = Pick<SiteData, 'percentiles'>;

/**
 * The percentiles of one region × target. The split's parts come per split_source, never pooled
 * (a header claim and a round trip are different measurements): the source most samples had.
 */
export function group(data: WithPercentiles, metric: SiteMetric, region: string, target: string): PercentileGroup | undefined {
  const groups = data.percentiles[metric].filter((g) => g.region === region && g.target === target);
  return groups.length <= 1 ? groups[0] : groups.reduce((a, b) => (b.n > a.n ? b : a));
}

/** The `data-api` key of a shown figure: request, region, target, field, and the split source where there is one. */
export function apiKey(metric: SiteMetric, g: PercentileGroup | undefined, region: string, target: string, field: string): string {
  const source = g?.split_source !== undefined ? `|${g.split_source ?? ''}` : '';
  return `percentiles_${metric}|${region}|${target}|${field}${source}`;
}

/**
 * The target with the lowest median time to the first *answer* token in a region (the first token
 * for most models; for a reasoning model, after its thinking), and whether the runner-up's interval
 * overlaps its own. The compare page ranks by the same figure.
 */
export function fastestInRegion(data: WithPercentiles, region: string) {
  const ranked = data.percentiles.ttfa_ms.filter((g) => g.region === region && g.p50 !== null).sort((a, b) => a.p50! - b.p50!);
  if (ranked.length === 0) return null;
  const [first, second] = ranked;
  const separated =
    second !== undefined && first.p50_ci_high !== null && second.p50_ci_low !== null && first.p50_ci_high < second.p50_ci_low;
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

/** "prompt variant chat (200 tokens in, up to 64 out)": what every figure of a page is about. */
export function variantText(data: SiteData): string {
  const v = data.variant;
  const others = data.variants.length - 1;
  return `prompt variant ${v.id} (${variantWords(v)})${others > 0 ? `; ${others} other variant${others > 1 ? 's have their' : ' has its'} own page${others > 1 ? 's' : ''}, never pooled with this one` : ''}`;
}
