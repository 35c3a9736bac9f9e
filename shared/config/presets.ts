/**
 * Workload presets: input and output sizes of the requests people actually make, so a comparison
 * answers "for my workload". Output lengths follow the field's usual scenarios (code completion 5–30
 * tokens, chat 20–80, summaries 300–1,000); input sizes follow the public benchmarks' steps (about
 * 100, 1k, 10k and 100k tokens). A target runs the presets it lists (`promptVariants` on the target).
 */
import type { PromptVariantConfig } from './types.ts';

export const PROMPT_PRESETS = {
  /** An editor's completion: a file's worth of context, a short insertion. */
  code: { id: 'code', label: 'Code completion: 1,000 tokens of context, 24 out', promptTokens: 1_000, maxTokens: 24 },
  /** A chat turn. */
  chat: { id: 'chat', label: 'Chat: 200-token prompt, 64 tokens out', promptTokens: 200, maxTokens: 64 },
  /** A summary of a long document. */
  summary: { id: 'summary', label: 'Summary: 10,000 tokens in, 500 out', promptTokens: 10_000, maxTokens: 500 },
  /** Retrieval or a long conversation: prefill dominates. */
  'long-context': { id: 'long-context', label: 'Long context: 32,000 tokens in, 64 out', promptTokens: 32_000, maxTokens: 64 },
  /**
   * What a provider's prompt cache is worth: 4,096 tokens (over every provider's smallest cacheable prefix, Gemini
   * 2.5 Pro's included) sent twice a tick, the second pass reusing the prefix. Opt-in per target (`promptCache: true`).
   */
  'prompt-cache': {
    id: 'prompt-cache',
    label: 'Prompt cache: 4,096-token prefix sent twice, 16 out',
    promptTokens: 4_096,
    maxTokens: 16,
    promptCache: true,
  },
} as const satisfies Record<string, PromptVariantConfig>;

export type PresetId = keyof typeof PROMPT_PRESETS;

/** A preset as a prompt variant, optionally resized (then give it an id of its own: another size is another workload). */
export function preset(id: PresetId, overrides: Partial<PromptVariantConfig> = {}): PromptVariantConfig {
  return { ...PROMPT_PRESETS[id], ...overrides };
}
