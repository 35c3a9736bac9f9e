/**
 * The status rules: what makes one region × target × prompt variant `degraded` or `down`, judged
 * after each tick from the pair's recent samples against its own baseline. Each rule looks at its
 * own window and needs a minimum number of samples; below it the rule says "not enough data" and
 * cannot flip anything. Percentile rules fire only when the whole 95 % interval of the window's
 * figure is past the threshold (an order statistic, shared/stats/percentile-ci.ts), so one slow
 * outlier never fires a rule. Flapping protection is in pair-state.ts.
 */

import { MINUTE_MS } from '../time.ts';

export interface TtftRule {
  ratio: number;
  windowMinutes: number;
  minSamples: number;
}
export interface ItlRule {
  thresholdMs: number;
  sustainMinutes: number;
  minSamples: number;
}
export interface DecodeRule {
  dropRatio: number;
  windowMinutes: number;
  minSamples: number;
}
export interface ErrorRule {
  rate: number;
  windowMinutes: number;
  minSamples: number;
}

export interface StatusRules {
  /** TTFT p99 above `ratio` × its baseline p99. */
  ttft: TtftRule;
  /** ITL p99 of every probe above `thresholdMs` for at least `sustainMinutes`. */
  itl: ItlRule;
  /** Decode speed (p50) more than `dropRatio` below its baseline p50. */
  decode: DecodeRule;
  /** More than `rate` of the window's probes failed. */
  errors: ErrorRule;
  /** `down` after this many consecutive failed probes. */
  downAfterFailures: number;
  /** Back to a better state only after this many consecutive evaluations that find it. */
  recoverAfter: number;
  /** Successful samples a baseline needs before a rule may compare against it. */
  baselineMinSamples: number;
}

export const DEFAULT_STATUS_RULES: StatusRules = {
  ttft: { ratio: 1.5, windowMinutes: 15, minSamples: 3 },
  itl: { thresholdMs: 100, sustainMinutes: 5, minSamples: 2 },
  decode: { dropRatio: 0.3, windowMinutes: 30, minSamples: 6 },
  errors: { rate: 0.4, windowMinutes: 15, minSamples: 3 },
  downAfterFailures: 3,
  recoverAfter: 2,
  baselineMinSamples: 12,
};

export type StatusRulesConfig = Partial<Omit<StatusRules, 'ttft' | 'itl' | 'decode' | 'errors'>> & {
  ttft?: Partial<TtftRule>;
  itl?: Partial<ItlRule>;
  decode?: Partial<DecodeRule>;
  errors?: Partial<ErrorRule>;
};

export function resolveStatusRules(c: StatusRulesConfig = {}): StatusRules {
  const d = DEFAULT_STATUS_RULES;
  return {
    ttft: { ...d.ttft, ...c.ttft },
    itl: { ...d.itl, ...c.itl },
    decode: { ...d.decode, ...c.decode },
    errors: { ...d.errors, ...c.errors },
    downAfterFailures: c.downAfterFailures ?? d.downAfterFailures,
    recoverAfter: c.recoverAfter ?? d.recoverAfter,
    baselineMinSamples: c.baselineMinSamples ?? d.baselineMinSamples,
  };
}

/**
 * The rules as they apply when each pair is probed only every `spread` ticks (the scheduler spreads
 * work over ticks to stay within a plan): every window widened by that factor, so each still holds
 * its minimum number of probes.
 */
export function rulesForSpread(rules: StatusRules, spread: number): StatusRules {
  if (spread <= 1) return rules;
  return {
    ...rules,
    ttft: { ...rules.ttft, windowMinutes: rules.ttft.windowMinutes * spread },
    itl: { ...rules.itl, sustainMinutes: rules.itl.sustainMinutes * spread },
    decode: { ...rules.decode, windowMinutes: rules.decode.windowMinutes * spread },
    errors: { ...rules.errors, windowMinutes: rules.errors.windowMinutes * spread },
  };
}

/** How far back an evaluation must read to serve every rule (the failure streak at one probe per tick). */
export function lookbackMs(rules: StatusRules, tickMinutes: number, spread: number): number {
  const minutes = Math.max(
    rules.ttft.windowMinutes,
    rules.itl.sustainMinutes,
    rules.decode.windowMinutes,
    rules.errors.windowMinutes,
    rules.downAfterFailures * tickMinutes * spread,
  );
  return minutes * MINUTE_MS;
}
