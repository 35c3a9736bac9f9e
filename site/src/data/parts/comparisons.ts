/**
 * The paired verdicts of the last SITE_PAIRED_DAYS (from the hourly blocks), and what each opted-in target's
 * prompt cache is worth over the same days.
 */
import type { PromptCacheDoc, PromptCachesDoc } from '../../../../shared/api-types.ts';
import { COMPARISONS_PER_REQUEST, SITE_PAIRED_DAYS } from '../../../../shared/config/read-limits.ts';
import { DAY_MS, HOUR_MS } from '../../../../shared/time.ts';
import { pairedViews, type PairedRow } from '../paired.ts';
import type { SitePart } from './part.ts';

const iso = (t: number) => new Date(t).toISOString();

export const comparisonsPart: SitePart = {
  name: 'comparisons',
  async collect({ api, now, data }) {
    const lastHour = Math.floor(now / HOUR_MS) * HOUR_MS;
    const from = lastHour - SITE_PAIRED_DAYS * DAY_MS;
    const rows = await api.liveRows<PairedRow>('paired_hours', `/paired-hours?from=${from}&to=${lastHour}`);
    const paired = pairedViews(rows, { from: iso(from), to: iso(lastHour) });
    // Per region, a few targets a request.
    const prompt_caches: PromptCacheDoc[] = [];
    const cacheTargets = data.targets!.filter((t) => t.prompt_cache).map((t) => t.id);
    const perRequest = Math.max(1, Math.floor(COMPARISONS_PER_REQUEST.free / 2));
    for (const region of data.regions!)
      for (let i = 0; i < cacheTargets.length; i += perRequest) {
        const targets = cacheTargets.slice(i, i + perRequest).join(',');
        const answer = await api.live<PromptCachesDoc>(
          'prompt_cache',
          `/prompt-cache?region=${region.code}&target=${targets}&from=${from}&to=${lastHour}`,
        );
        prompt_caches.push(...answer.caches);
      }
    return { paired, prompt_caches };
  },
  empty() {
    return { paired: {}, prompt_caches: [] };
  },
  fallback: { prompt_caches: [] },
};
