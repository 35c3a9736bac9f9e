/**
 * Prompt variants on the site: every page is about one variant (its figures never pool prompt sizes),
 * the configuration's first at the page's own address and every other under `variants/<id>/`.
 */
import { DEFAULT_WINDOW, type PromptVariant, type SiteData } from './types.ts';

/** The same data, its figures those of another variant. */
export function scopedTo(data: SiteData, variantId: string): SiteData {
  const variant = data.variants.find((v) => v.id === variantId);
  const windows = data.variant_windows[variantId];
  if (!variant || !windows) throw new Error(`no prompt variant "${variantId}" in the site's data`);
  return { ...data, variant, windows, percentiles: windows.find((w) => w.id === DEFAULT_WINDOW)!.percentiles };
}

export function isDefaultVariant(data: SiteData, variant: PromptVariant): boolean {
  return data.variants[0]?.id === variant.id;
}

/** A page's address for a variant: `base` itself for the first, `base` + `variants/<id>/` otherwise. */
export function variantPath(data: SiteData, base: string, variant: PromptVariant): string {
  return isDefaultVariant(data, variant) ? base : `${base}variants/${encodeURIComponent(variant.id)}/`;
}

/** The variants other than the first, for getStaticPaths. */
export function otherVariants(data: SiteData): PromptVariant[] {
  return data.variants.slice(1);
}

/** "200 tokens in, up to 64 out": a variant in words. */
export function variantWords(v: PromptVariant): string {
  return `${v.prompt_tokens.toLocaleString('en-US')} tokens in, up to ${v.max_tokens.toLocaleString('en-US')} out`;
}

/** "Code completion" from "Code completion: 1,000 tokens of context, 24 out": a selector's short name (the label before its colon). */
export function shortName(v: PromptVariant): string {
  return v.label.split(':')[0].trim() || v.id;
}
