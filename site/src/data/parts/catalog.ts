/**
 * The catalog: the prompt variants, schedule and simulation flag (GET /api/v1/health), and the regions and targets
 * with what each sampled over the last 24 whole hours (GET /api/v1/regions and /targets), each from its view.
 */
import { withWarmPasses } from '../../../../shared/config/work-list.ts';
import type { PromptVariantInfo, VendorPageDoc } from '../../../../shared/api-types.ts';
import type { SitePart } from './part.ts';

/** What the site reads of the health answer. */
export interface SiteHealth {
  simulated: boolean;
  schedule: string;
  spread?: number;
  prompt_variants: PromptVariantInfo[];
  vendor_status?: VendorPageDoc[] | { error: string };
}

function hostOf(url: string): string {
  try {
    return new URL(url.replace('{REFERENCE_URL}', 'http://127.0.0.1:8788')).host;
  } catch {
    return url;
  }
}

export const catalogPart: SitePart = {
  name: 'catalog',
  async collect({ api }) {
    const health = await api.view('health', 'health').as<SiteHealth>();
    const { regions } = await api.view('regions', 'regions').answer();
    const { targets } = await api.view('targets', 'targets').answer();
    return {
      simulated: health.simulated,
      schedule: health.schedule,
      variant: health.prompt_variants[0],
      variants: health.prompt_variants,
      regions,
      targets,
      health: { spread: health.spread ?? 1, vendor_pages: Array.isArray(health.vendor_status) ? health.vendor_status.length : 0 },
    };
  },
  empty(config) {
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
      simulated: false,
      schedule: config.schedule,
      variant: variants[0],
      variants,
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
      health: { spread: 1, vendor_pages: 0 },
    };
  },
};
