/**
 * The reasoning controls of each wire format, read from the request body as the vendors define
 * them; an invalid value is a 400 in the format's error shape, like any bad input.
 */
import { RequestError } from './request-error.ts';
import { EFFORTS, type Effort, type ReasoningControl } from './reasoning-tokens.ts';

/** Anthropic rejects a thinking budget below this. */
export const ANTHROPIC_MIN_THINKING_BUDGET = 1_024;
/** Gemini's thinkingBudget for "let the model decide" (the profile's own reasoning). */
export const GEMINI_DYNAMIC_THINKING = -1;
/** The largest thinkingBudget any Gemini model accepts (2.5 Pro). */
export const GEMINI_MAX_THINKING_BUDGET = 32_768;

const absent = (v: unknown) => v === undefined || v === null;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function effort(value: unknown, name: string): ReasoningControl {
  if (absent(value)) return null;
  if (!(EFFORTS as readonly unknown[]).includes(value))
    throw new RequestError(400, `invalid value for ${name}: ${JSON.stringify(value)}; supported values: ${EFFORTS.join(', ')}`);
  return { effort: value as Effort };
}

export const readReasoningControl = {
  /** `reasoning_effort`: "minimal" | "low" | "medium" | "high". */
  openaiChat: (body: Record<string, unknown>): ReasoningControl => effort(body.reasoning_effort, 'reasoning_effort'),

  /** `reasoning: { effort }`. */
  openaiResponses(body: Record<string, unknown>): ReasoningControl {
    if (absent(body.reasoning)) return null;
    if (!isObject(body.reasoning)) throw new RequestError(400, 'reasoning must be an object');
    return effort(body.reasoning.effort, 'reasoning.effort');
  },

  /** `thinking: { type: "enabled", budget_tokens }` (at least 1,024 and below max_tokens) or `{ type: "disabled" }`. */
  anthropic(body: Record<string, unknown>, maxTokens: number): ReasoningControl {
    const thinking = body.thinking;
    if (absent(thinking)) return null;
    if (!isObject(thinking)) throw new RequestError(400, 'thinking must be an object');
    if (thinking.type === 'disabled') return { budgetTokens: 0 };
    if (thinking.type !== 'enabled') throw new RequestError(400, 'thinking.type must be "enabled" or "disabled"');
    const budget = thinking.budget_tokens;
    if (typeof budget !== 'number' || !Number.isInteger(budget) || budget < ANTHROPIC_MIN_THINKING_BUDGET) {
      throw new RequestError(400, `thinking.budget_tokens must be an integer of at least ${ANTHROPIC_MIN_THINKING_BUDGET}`);
    }
    if (budget >= maxTokens) throw new RequestError(400, 'max_tokens must be greater than thinking.budget_tokens');
    return { budgetTokens: budget };
  },

  /**
   * Bedrock Converse: `additionalModelRequestFields` goes to the model as it is, so Claude's
   * `thinking: { type, budget_tokens }` there, with Anthropic's rules against inferenceConfig.maxTokens.
   */
  bedrock(additionalModelRequestFields: unknown, maxTokens: number): ReasoningControl {
    if (absent(additionalModelRequestFields)) return null;
    if (!isObject(additionalModelRequestFields)) throw new RequestError(400, 'additionalModelRequestFields must be an object');
    return readReasoningControl.anthropic(additionalModelRequestFields, maxTokens);
  },

  /** `generationConfig.thinkingConfig.thinkingBudget`: -1 dynamic, 0 off, otherwise a cap. */
  gemini(generationConfig: Record<string, unknown>): ReasoningControl {
    const config = generationConfig.thinkingConfig;
    if (absent(config)) return null;
    if (!isObject(config)) throw new RequestError(400, 'generationConfig.thinkingConfig must be an object');
    const budget = config.thinkingBudget;
    if (absent(budget)) return null;
    if (
      typeof budget !== 'number' ||
      !Number.isInteger(budget) ||
      budget < GEMINI_DYNAMIC_THINKING ||
      budget > GEMINI_MAX_THINKING_BUDGET
    ) {
      throw new RequestError(
        400,
        `thinkingConfig.thinkingBudget must be an integer from ${GEMINI_DYNAMIC_THINKING} (dynamic) to ${GEMINI_MAX_THINKING_BUDGET}`,
      );
    }
    return budget === GEMINI_DYNAMIC_THINKING ? null : { budgetTokens: budget };
  },
};
