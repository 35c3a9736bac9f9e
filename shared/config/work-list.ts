/**
 * What the configuration asks to be probed, in one place: the probes, the cost model and the read API's
 * estimates all count the same (target, prompt variant) pairs of a region.
 */
import type { ObservatoryConfig, PromptVariantConfig, TargetConfig } from './types.ts';

/** The id under which a prompt-cache variant's second passes are stored (MEASUREMENT.md, "Prompt cache"). */
const WARM_SUFFIX = '-warm';
export const warmPassId = (variantId: string): string => `${variantId}${WARM_SUFFIX}`;

/** The prompt-cache variant whose second passes are stored under `id` (the inverse of warmPassId). */
export const firstPassId = (id: string): string => (id.endsWith(WARM_SUFFIX) ? id.slice(0, -WARM_SUFFIX.length) : id);

/** "Prompt cache, second pass: 4,096-token prefix …": its short name (before the colon) says which pass it is. */
function warmLabel(label: string): string {
  const colon = label.indexOf(':');
  return colon < 0 ? `${label}, second pass` : `${label.slice(0, colon)}, second pass${label.slice(colon)}`;
}

/**
 * Each prompt-cache variant followed by its second pass, a variant of its own (`warmPassOf`), so that every
 * reader of the configuration (percentiles, status, the site) sees the two passes as two workloads.
 */
export function withWarmPasses(variants: readonly PromptVariantConfig[]): PromptVariantConfig[] {
  // Idempotent: a list that has its second passes already is returned as it is.
  if (variants.some((v) => v.warmPassOf)) return [...variants];
  return variants.flatMap((v) =>
    v.promptCache
      ? [
          v,
          {
            id: warmPassId(v.id),
            label: warmLabel(v.label),
            promptTokens: v.promptTokens,
            maxTokens: v.maxTokens,
            warmPassOf: v.id,
          },
        ]
      : [v],
  );
}

/**
 * The variants a target's jobs run: its own list (or every variant); a prompt-cache variant only when the
 * target opts in (`promptCache: true`), whatever its list says; never a second pass (its first pass's job sends it).
 */
export function jobVariantsOf(config: Pick<ObservatoryConfig, 'promptVariants'>, target: TargetConfig): PromptVariantConfig[] {
  return config.promptVariants.filter((v) => {
    if (v.warmPassOf) return false;
    if (v.promptCache) return target.promptCache === true;
    return !target.promptVariants || target.promptVariants.includes(v.id);
  });
}

/** Requests (and samples) one job of the variant makes: two for a prompt-cache variant, one otherwise. */
export const requestsPerJob = (variant: Pick<PromptVariantConfig, 'promptCache'>): number => (variant.promptCache ? 2 : 1);

/** True when the target runs in the region: its own `regions` if it names them, every configured region otherwise. */
export const runsIn = (target: Pick<TargetConfig, 'regions'>, region: string): boolean =>
  !target.regions || target.regions.includes(region);

/** The regions a target runs in, in the configuration's order. */
export const regionsOfTarget = (config: Pick<ObservatoryConfig, 'regions'>, target: Pick<TargetConfig, 'regions'>): string[] =>
  config.regions.map((r) => r.code).filter((code) => runsIn(target, code));

/** The (target, variant) pairs a region probes each tick, in a stable order: a target's `regions` and `promptVariants` honoured. */
export function workListOf(
  config: Pick<ObservatoryConfig, 'targets' | 'promptVariants'>,
  region: string,
): Array<{ target: TargetConfig; variant: PromptVariantConfig }> {
  const work: Array<{ target: TargetConfig; variant: PromptVariantConfig }> = [];
  for (const target of config.targets) {
    if (!runsIn(target, region)) continue;
    for (const variant of jobVariantsOf(config, target)) work.push({ target, variant });
  }
  return work;
}

/** The (target, variant) pairs a region stores samples of each tick: its work list, each prompt-cache job's second pass after it. */
export function storedListOf(
  config: Pick<ObservatoryConfig, 'targets' | 'promptVariants'>,
  region: string,
): Array<{ target: TargetConfig; variant: PromptVariantConfig }> {
  const variants = withWarmPasses(config.promptVariants);
  return workListOf(config, region).flatMap((w) => {
    const warm = w.variant.promptCache ? variants.find((v) => v.warmPassOf === w.variant.id) : undefined;
    return warm ? [w, { target: w.target, variant: warm }] : [w];
  });
}

/** Every (target, variant) pair some region stores samples of (second passes included), once each, in configuration order. */
export function targetVariantPairs(config: ObservatoryConfig): Array<{ target: string; variant: string }> {
  const probed = new Set(config.regions.flatMap((r) => storedListOf(config, r.code).map((w) => `${w.target.id}|${w.variant.id}`)));
  return config.targets.flatMap((t) =>
    withWarmPasses(config.promptVariants)
      .filter((v) => probed.has(`${t.id}|${v.id}`))
      .map((v) => ({ target: t.id, variant: v.id })),
  );
}
