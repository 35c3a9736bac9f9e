/**
 * The paired verdicts of the default window (GET /api/v1/compare, from its views: every figure, every prompt
 * variant, each family Holm-corrected as the API does), and what each opted-in target's prompt cache is worth over
 * the same window (GET /api/v1/prompt-cache, from its view). The site computes none of it.
 */
import type { CompareDoc, PromptCachesDoc } from '../../../../shared/api-types.ts';
import { firstPassId } from '../../../../shared/config/work-list.ts';
import { PAIRED_FIGURES } from '../../../../shared/rollup/paired-hours.ts';
import { pairedViewsOf } from '../paired.ts';
import { DEFAULT_WINDOW } from '../types.ts';
import type { SitePart } from './part.ts';

export const comparisonsPart: SitePart = {
  name: 'comparisons',
  async collect({ api, data }) {
    // The variants compared: each first pass (a prompt cache's second passes are compared with their first, below).
    const variants = data.variants!.map((v) => v.id).filter((id) => firstPassId(id) === id);
    const answers: CompareDoc[] = [];
    for (const figure of PAIRED_FIGURES)
      answers.push(
        await api.view(`compare_${figure}`, 'compare', { window: DEFAULT_WINDOW, figure, variant: variants.join(',') }).as<CompareDoc>(),
      );
    const { caches: prompt_caches } = await api.view('prompt_cache', 'promptCache', { window: DEFAULT_WINDOW }).as<PromptCachesDoc>();
    return { paired: pairedViewsOf(answers), prompt_caches };
  },
  empty() {
    return { paired: {}, prompt_caches: [] };
  },
  fallback: { prompt_caches: [] },
};
