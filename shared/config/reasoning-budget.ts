/**
 * Warnings for targets whose output budget makes `no_answer` likely: a reasoning model spends its
 * reasoning tokens out of the same max_tokens as its answer, so with a small budget and no control
 * of its reasoning it often ends with no answer at all (MEASUREMENT.md `no_answer`).
 */
import type { ObservatoryConfig, TargetConfig } from './types.ts';
import { jobVariantsOf } from './work-list.ts';

/** Below this many output tokens, an unbounded reasoning model often thinks through its whole budget. */
export const REASONING_MIN_MAX_TOKENS = 1_024;

/** Model names of families known to reason before they answer (a target can also say `reasoning: true`). */
const REASONING_MODEL =
  /(^|[/:-])(o\d|gpt-5|gpt-oss|deepseek-r|deepseek-reasoner|qwq|qwen3|magistral|gemini-(2\.5|3)|claude-(opus|sonnet)-4|claude-3-7|grok-[34]|r1\b)|reason|think/i;

/** Efforts low enough that a few hundred tokens usually remain for the answer. */
const LOW_EFFORTS = new Set(['none', 'minimal', 'low']);

export function isReasoningTarget(t: TargetConfig): boolean {
  return t.reasoning ?? REASONING_MODEL.test(t.model);
}

/** The reasoning bound a target's extraBody sets, as vendors name it: true when it keeps reasoning below `maxTokens`. */
function boundsReasoning(body: Record<string, unknown> | undefined, maxTokens: number): boolean {
  if (!body) return false;
  const b = body as Record<string, any>;
  const effort = b.reasoning_effort ?? b.reasoning?.effort;
  if (typeof effort === 'string' && LOW_EFFORTS.has(effort)) return true;
  if (b.reasoning?.max_tokens !== undefined) return Number(b.reasoning.max_tokens) < maxTokens;
  if (b.thinking?.type === 'disabled' || b.think === false) return true;
  const budget = b.thinking?.budget_tokens ?? b.generationConfig?.thinkingConfig?.thinkingBudget;
  return typeof budget === 'number' && budget >= 0 && budget < maxTokens;
}

export interface BudgetWarning {
  target: string;
  variant: string;
  message: string;
}

export function reasoningBudgetWarnings(config: ObservatoryConfig): BudgetWarning[] {
  const warnings: BudgetWarning[] = [];
  for (const t of config.targets) {
    if (!isReasoningTarget(t)) continue;
    for (const v of jobVariantsOf(config, t)) {
      if (v.maxTokens >= REASONING_MIN_MAX_TOKENS || boundsReasoning(t.extraBody, v.maxTokens)) continue;
      warnings.push({
        target: t.id,
        variant: v.id,
        message:
          `target ${t.id} looks like a reasoning model, and prompt variant ${v.id} allows only ${v.maxTokens} output tokens with no bound on its reasoning: ` +
          `many probes will end with no answer (error no_answer). Set a low effort or a thinking budget in extraBody ` +
          `(reasoning_effort: 'low', reasoning: { effort: 'low' }, thinking: { type: 'enabled', budget_tokens: N }, generationConfig.thinkingConfig.thinkingBudget), ` +
          `or raise maxTokens to at least ${REASONING_MIN_MAX_TOKENS}${t.reasoning === undefined ? '; if it does not reason, set reasoning: false' : ''}.`,
      });
    }
  }
  return warnings;
}
