/**
 * The catalog: the prompt variants, schedule and simulation flag (GET /api/v1/health), and the regions and targets
 * with what each sampled over the last 24 whole hours (GET /api/v1/regions and /targets), each from its view.
 */
import { withWarmPasses } from '../../../../shared/config/work-list.ts';
import type { PromptVariantInfo, VendorPageDoc } from '../../../../shared/api-types.ts';
import type { SitePart } from './part.ts';
import { localUrl } from '../../../../shared/net/local-ports.ts';
import { NOTHING_SAMPLED, promptVariantInfo, regionInfo, targetInfo } from '../../../../shared/config/catalog-info.ts';

/** What the site reads of the health answer. */
export interface SiteHealth {
  simulated: boolean;
  schedule: string;
  spread?: number;
  prompt_variants: PromptVariantInfo[];
  vendor_status?: VendorPageDoc[] | { error: string };
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
    const variants = withWarmPasses(config.promptVariants).map(promptVariantInfo);
    return {
      simulated: false,
      schedule: config.schedule,
      variant: variants[0],
      variants,
      regions: config.regions.map((r) => regionInfo(r, NOTHING_SAMPLED)),
      targets: config.targets.map((t) => targetInfo(config, t, localUrl('reference'), NOTHING_SAMPLED)),
      health: { spread: 1, vendor_pages: 0 },
    };
  },
};
