/**
 * How many reasoning tokens a request generates: the profile's reasoning_tokens, scaled by the
 * request's reasoning effort or capped by its thinking budget, then bounded by max_tokens.
 */
import type { Fault } from './faults.ts';
import type { Profile } from './profiles.ts';

/** OpenAI's reasoning efforts (Chat `reasoning_effort`, Responses `reasoning.effort`). */
export const EFFORTS = ['minimal', 'low', 'medium', 'high'] as const;
export type Effort = (typeof EFFORTS)[number];

/**
 * What each effort multiplies the profile's reasoning_tokens by (then rounded). medium is OpenAI's
 * default, so it leaves the profile as it is; high thinks twice as long, minimal a tenth:
 *   effort     share   ref-reasoning (48)   ref-hidden-reasoning (300)
 *   minimal    0.1      5                    30
 *   low        0.5     24                   150
 *   medium     1       48                   300
 *   high       2       96                   600
 */
export const EFFORT_SHARE: Record<Effort, number> = { minimal: 0.1, low: 0.5, medium: 1, high: 2 };

/** A request's say over reasoning: an effort, or a budget that caps the tokens (0 turns reasoning off). */
export type ReasoningControl = { effort: Effort } | { budgetTokens: number } | null;

/** Reasoning tokens the model wants for this request; only reasoning models are affected by a control. */
export function wantedReasoningTokens(profile: Profile, control: ReasoningControl): number {
  const tokens = profile.reasoning_tokens;
  if (tokens === 0 || control === null) return tokens;
  if ('effort' in control) return Math.round(tokens * EFFORT_SHARE[control.effort]);
  return Math.min(tokens, control.budgetTokens);
}

/**
 * Reasoning tokens generated, out of the max_tokens the request generates in all. When the model
 * wants max_tokens or more, the whole budget goes to reasoning and no answer token is left, as
 * vendors do; the `no-answer` fault forces that whatever the budget.
 */
export function plannedReasoningTokens(profile: Profile, control: ReasoningControl, maxTokens: number, fault: Fault | null): number {
  if (fault === 'no-answer') return maxTokens;
  return Math.min(wantedReasoningTokens(profile, control), maxTokens);
}
