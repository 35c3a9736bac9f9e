/**
 * Latency against price (docs/MEASUREMENT.md, "Latency against price"): for a workload (input tokens in, output tokens
 * out), each region × target's expected time of one request, from its measured medians and their 95 % intervals, and
 * its cost at the target's list price. Pure: the site, the API and tests compute the same figures from the same inputs.
 */
import type { PercentileGroup, TargetPrice } from '../api-types.ts';
import { SCENARIOS, scenarioTokens, type Scenario } from '../config/scenarios.ts';

/** What one request of a workload is: tokens in (the prompt variant's) and tokens out (the scenario's judged length). */
export interface Workload {
  inputTokens: number;
  outputTokens: number;
}

/** The median and 95 % interval of a figure, as a percentile group holds them. */
type Median = Pick<PercentileGroup, 'p50' | 'p50_ci_low' | 'p50_ci_high' | 'n'>;

export interface ExpectedTime {
  /** Milliseconds: time to the first answer token + (output tokens − 1) × TPOT, from the medians. */
  ms: number;
  /** The same from the intervals' low ends, and from their high ends; null when either figure has too few samples for one. */
  low_ms: number | null;
  high_ms: number | null;
}

/**
 * The expected time of a request with `outputTokens` tokens out: the first answer token's median, then each further
 * token at the median TPOT (the first token's time is in the first). Null when a median is missing or no token is asked for.
 */
export function expectedTime(ttfa: Median | undefined, tpot: Median | undefined, outputTokens: number): ExpectedTime | null {
  if (!ttfa || !tpot || ttfa.p50 === null || tpot.p50 === null || !(outputTokens >= 1)) return null;
  const k = outputTokens - 1;
  const bounded = ttfa.p50_ci_low !== null && ttfa.p50_ci_high !== null && tpot.p50_ci_low !== null && tpot.p50_ci_high !== null;
  return {
    ms: ttfa.p50 + k * tpot.p50,
    low_ms: bounded ? ttfa.p50_ci_low! + k * tpot.p50_ci_low! : null,
    high_ms: bounded ? ttfa.p50_ci_high! + k * tpot.p50_ci_high! : null,
  };
}

/** US dollars for one request of the workload at a list price per million tokens (no cache discount, no batch discount). */
export function requestCost(price: Pick<TargetPrice, 'input_per_mtokens' | 'output_per_mtokens'>, w: Workload): number {
  return (w.inputTokens * price.input_per_mtokens + w.outputTokens * price.output_per_mtokens) / 1e6;
}

/** The scenario a variant's own output length falls in (or the nearest by its judged length): whose paired totals judge it. */
export function scenarioFor(maxTokens: number, scenarios: readonly Scenario[] = SCENARIOS): Scenario {
  const within = scenarios.find((s) => maxTokens >= s.minTokens && maxTokens <= s.maxTokens);
  if (within) return within;
  return [...scenarios].sort((a, b) => Math.abs(scenarioTokens(a) - maxTokens) - Math.abs(scenarioTokens(b) - maxTokens))[0];
}

/** A variant's workload for a scenario: the variant's prompt in, the scenario's judged length out. */
export function workloadOf(variant: { prompt_tokens: number }, scenario: Scenario): Workload {
  return { inputTokens: variant.prompt_tokens, outputTokens: scenarioTokens(scenario) };
}

/** One region × target × variant on the latency–price plane. */
export interface PricePoint extends ExpectedTime {
  region: string;
  target: string;
  variant: string;
  input_tokens: number;
  output_tokens: number;
  /** US dollars per request at the target's list price; null without a price. */
  cost_usd: number | null;
  ttfa_n: number;
  tpot_n: number;
}

/**
 * Every region × target with both medians for the variant, and its cost when the target has a price. Groups that name
 * a prompt variant must name this one (a site's groups are already of one variant and may name none).
 */
export function pricePoints(input: {
  variant: string;
  workload: Workload;
  regions: readonly string[];
  targets: ReadonlyArray<{ id: string; price?: TargetPrice | null }>;
  ttfa: readonly PercentileGroup[];
  tpot: readonly PercentileGroup[];
}): PricePoint[] {
  const find = (groups: readonly PercentileGroup[], region: string, target: string) =>
    groups.find(
      (g) => g.region === region && g.target === target && (g.prompt_variant === undefined || g.prompt_variant === input.variant),
    );
  const out: PricePoint[] = [];
  for (const region of input.regions)
    for (const t of input.targets) {
      const ttfa = find(input.ttfa, region, t.id);
      const tpot = find(input.tpot, region, t.id);
      const time = expectedTime(ttfa, tpot, input.workload.outputTokens);
      if (!time) continue;
      out.push({
        region,
        target: t.id,
        variant: input.variant,
        input_tokens: input.workload.inputTokens,
        output_tokens: input.workload.outputTokens,
        ...time,
        cost_usd: t.price ? requestCost(t.price, input.workload) : null,
        ttfa_n: ttfa!.n,
        tpot_n: tpot!.n,
      });
    }
  return out;
}
