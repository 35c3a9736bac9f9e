/**
 * One part of what the site shows: the fields of SiteData it fills, from the read API (`collect`), before any
 * probe (`empty`, a site built from the configuration alone), and in an export made before it existed (`fallback`).
 * collect.ts, empty.ts and load.ts loop over the parts (index.ts) in order; a part may read what earlier ones filled.
 */
import type { ObservatoryConfig } from '../../../../shared/config/types.ts';
import type { ApiReader } from '../api-reader.ts';
import type { SiteData } from '../types.ts';

export interface CollectContext {
  api: ApiReader;
  now: number;
  /** Where the read API is (for what lies beside it, as the archive). */
  apiBase: string;
  /** How to reach it (a test inside workerd passes its own). */
  fetch: typeof fetch;
  /** What the parts before this one filled. */
  data: Partial<SiteData>;
}

export interface SitePart {
  name: string;
  collect(ctx: CollectContext): Promise<Partial<SiteData>>;
  empty(config: ObservatoryConfig, now: number, data: Partial<SiteData>): Partial<SiteData>;
  /** What an older export lacking this part's fields shows instead. */
  fallback?: Partial<SiteData>;
}
