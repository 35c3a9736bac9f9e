/**
 * What probing costs at the vendors: tokens per day per target (the prompt's input tokens, and at
 * most the variant's output tokens) for the regular ticks and the concurrency bursts, and, where a
 * target gives its list price, the money.
 */
import { capacity } from './capacity.ts';
import { burstRunsPerDay, burstStreamsPerRun } from './bursts.ts';
import { jobVariantsOf, regionsOfTarget, requestsPerJob } from './work-list.ts';
import type { ObservatoryConfig } from './types.ts';

export interface TargetTokens {
  target: string;
  probesPerDay: number;
  /** Of those, streams of the concurrency bursts (at most: a rate limit stops a run's escalation). */
  burstStreamsPerDay: number;
  inputTokensPerDay: number;
  /** At most: each probe asks for the variant's maxTokens, and most run to it. */
  outputTokensPerDay: number;
  /** US dollars per day at the target's list price, or null without one (and for a reference target, which bills nothing). */
  dollarsPerDay: number | null;
}

export function vendorTokens(config: ObservatoryConfig): { targets: TargetTokens[]; dollarsPerDay: number; unpriced: string[] } {
  const c = capacity(config);
  const ticksPerDay = c.ticksPerDay / c.spread;
  const variants = new Map(config.promptVariants.map((v) => [v.id, v]));
  const burstVariant = variants.get(config.bursts?.variant ?? config.promptVariants[0]?.id) ?? config.promptVariants[0];
  const targets = config.targets.map((t): TargetTokens => {
    const regions = regionsOfTarget(config, t).length;
    // A prompt-cache job sends its prompt twice (the second pass billed at the vendor's cached rate, counted here at the full one).
    const own = jobVariantsOf(config, t);
    const perTick = {
      probes: regions * own.reduce((n, v) => n + requestsPerJob(v), 0),
      input: regions * own.reduce((n, v) => n + requestsPerJob(v) * v.promptTokens, 0),
      output: regions * own.reduce((n, v) => n + requestsPerJob(v) * v.maxTokens, 0),
    };
    const bursts = t.bursts && config.bursts ? regions * burstRunsPerDay(config.bursts) * burstStreamsPerRun(config.bursts) : 0;
    const input = perTick.input * ticksPerDay + bursts * burstVariant.promptTokens;
    const output = perTick.output * ticksPerDay + bursts * burstVariant.maxTokens;
    return {
      target: t.id,
      probesPerDay: perTick.probes * ticksPerDay + bursts,
      burstStreamsPerDay: bursts,
      inputTokensPerDay: input,
      outputTokensPerDay: output,
      // The reference endpoint bills nothing: its targets' prices are the demo's illustrations.
      dollarsPerDay: t.price && !t.reference ? (input * t.price.inputPerMTokens + output * t.price.outputPerMTokens) / 1e6 : null,
    };
  });
  return {
    targets,
    dollarsPerDay: targets.reduce((n, t) => n + (t.dollarsPerDay ?? 0), 0),
    unpriced: config.targets.filter((t) => !t.price && !t.reference).map((t) => t.id),
  };
}
