/**
 * The site's data before any probe: every configured region, target and prompt variant, and no
 * sample. What `npm run deploy -- --dry-run` builds when no read API answers, so the build and the
 * static-assets Worker are checked without one.
 */
import { withWarmPasses } from '../../../shared/config/work-list.ts';
import type { ObservatoryConfig } from '../../../shared/config/types.ts';
import { HISTOGRAM_RELATIVE_ERROR } from '../../../shared/stats/exp-histogram.ts';
import { HOUR_MS } from '../../../shared/rollup/rollup.ts';
import { RECENT_HOURS, windowViews } from './collect.ts';
import { DEFAULT_WINDOW, type SiteData } from './types.ts';

const iso = (t: number) => new Date(t).toISOString();

function hostOf(url: string): string {
  try {
    return new URL(url.replace('{REFERENCE_URL}', 'http://127.0.0.1:8788')).host;
  } catch {
    return url;
  }
}

export function emptySiteData(config: ObservatoryConfig, now = Date.now()): SiteData {
  const windows = windowViews([], [], now);
  const main = windows.find((w) => w.id === DEFAULT_WINDOW)!;
  // As GET /api/v1/health lists them: each prompt-cache variant's second pass after it.
  const variants = withWarmPasses(config.promptVariants).map((v) => ({
    id: v.id,
    label: v.label,
    prompt_tokens: v.promptTokens,
    max_tokens: v.maxTokens,
    ...(v.promptCache ? { prompt_cache: true as const } : {}),
    ...(v.warmPassOf ? { warm_pass_of: v.warmPassOf } : {}),
  }));
  return {
    generated_at: iso(now),
    source: 'no data: an empty state built from observatory.config.ts',
    window: main.window,
    simulated: false,
    schedule: config.schedule,
    variant: variants[0],
    variants,
    variant_windows: Object.fromEntries(variants.map((v) => [v.id, windows])),
    regions: config.regions.map((r) => ({
      code: r.code,
      label: r.label,
      location_hint: r.locationHint,
      samples: 0,
      last_sample_at: null,
      colos: [],
    })),
    targets: config.targets.map((t) => ({
      id: t.id,
      label: t.label,
      provider: t.provider,
      api: t.api,
      model: t.model,
      endpoint_host: hostOf(t.url),
      reference: t.reference === true,
      prompt_cache: t.promptCache === true,
      regions: t.regions ?? config.regions.map((r) => r.code),
      samples: 0,
      last_sample_at: null,
    })),
    percentiles: main.percentiles,
    windows,
    relative_error: HISTOGRAM_RELATIVE_ERROR,
    recent: { from: iso(now - RECENT_HOURS * HOUR_MS), to: iso(now) },
    samples: [],
    status: null,
    incidents: [],
    bursts: null,
    paired: {},
    changes: [],
    profiles: {},
    prompt_caches: [],
    status_history: { hours: [], days: [] },
    maintenance: [],
    uptime: [],
    api_requests: {},
    d1_rows_read: {},
    d1_rows_read_total: 0,
  };
}
