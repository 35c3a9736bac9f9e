/**
 * The raw slice: the newest samples of RECENT_HOURS, at most MAX_SAMPLES, PAGE a request (what the cost model
 * counts), behind the timelines of single probes, inter-token latency, the split's residual and the tick-position
 * check. Raw samples are no view: read on the live path with the read token.
 */
import { forEachPage } from '../../../../shared/api-pages.ts';
import { SITE_BUILD_MAX_SAMPLES, SITE_BUILD_RECENT_HOURS, SITE_BUILD_SAMPLE_PAGE } from '../../../../shared/config/unit-costs.ts';
import { HOUR_MS } from '../../../../shared/time.ts';
import { SITE_SAMPLE_FIELDS, type SiteSample } from '../types.ts';
import type { SitePart } from './part.ts';

export const RECENT_HOURS = SITE_BUILD_RECENT_HOURS;
export const MAX_SAMPLES = SITE_BUILD_MAX_SAMPLES;
const PAGE = SITE_BUILD_SAMPLE_PAGE;
const iso = (t: number) => new Date(t).toISOString();

export const samplesPart: SitePart = {
  name: 'samples',
  async collect({ api, now }) {
    const from = now - RECENT_HOURS * HOUR_MS;
    const samples: SiteSample[] = [];
    await forEachPage(
      (cursor) =>
        api
          .live('samples', 'samples', { limit: PAGE, from, to: now, ...(cursor === null ? {} : { cursor }) })
          .as<{ samples: Array<Record<string, unknown>>; next_cursor: number | null }>(),
      (page) => {
        for (const s of page.samples) samples.push(Object.fromEntries(SITE_SAMPLE_FIELDS.map((f) => [f, s[f]])) as SiteSample);
        return samples.length < MAX_SAMPLES;
      },
    );
    return { samples, recent: { from: iso(from), to: iso(now) } };
  },
  empty(_config, now) {
    return { samples: [], recent: { from: iso(now - RECENT_HOURS * HOUR_MS), to: iso(now) } };
  },
};
