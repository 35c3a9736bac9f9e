/**
 * What the configuration asks to be probed, in one place: the probes, the cost model and the read API's
 * estimates all count the same (target, prompt variant) pairs of a region.
 */
import type { ObservatoryConfig, PromptVariantConfig, TargetConfig } from './types.ts';

/** The (target, variant) pairs a region probes each tick, in a stable order: a target's `regions` and `promptVariants` honoured. */
export function workListOf(
  config: Pick<ObservatoryConfig, 'targets' | 'promptVariants'>,
  region: string,
): Array<{ target: TargetConfig; variant: PromptVariantConfig }> {
  const work: Array<{ target: TargetConfig; variant: PromptVariantConfig }> = [];
  for (const target of config.targets) {
    if (target.regions && !target.regions.includes(region)) continue;
    for (const variant of config.promptVariants) {
      if (target.promptVariants && !target.promptVariants.includes(variant.id)) continue;
      work.push({ target, variant });
    }
  }
  return work;
}

/** Every (target, variant) pair some region probes, once each, in configuration order. */
export function targetVariantPairs(config: ObservatoryConfig): Array<{ target: string; variant: string }> {
  const probed = new Set(config.regions.flatMap((r) => workListOf(config, r.code).map((w) => `${w.target.id}|${w.variant.id}`)));
  return config.targets.flatMap((t) =>
    config.promptVariants.filter((v) => probed.has(`${t.id}|${v.id}`)).map((v) => ({ target: t.id, variant: v.id })),
  );
}
