/**
 * The site's data, loaded once per build: from a JSON export when SITE_DATA_FILE is set, otherwise
 * from the read API at SITE_API_URL (default: the local API of `npm run dev`).
 */
import { readFile } from 'node:fs/promises';
import { collectSiteData, SiteDataError } from './collect.ts';
import { SITE_PARTS } from './parts/index.ts';
import { pendingFromEnv } from './pending.ts';
import type { SiteData } from './types.ts';
import { localUrl } from '../../../shared/net/local-ports.ts';

export const DEFAULT_API_URL = localUrl('api');

let loading: Promise<SiteData> | null = null;

async function load(): Promise<SiteData> {
  const data = await loadSource();
  const pending = pendingFromEnv(process.env.SITE_PENDING);
  return pending.length > 0 ? { ...data, pending } : data;
}

async function loadSource(): Promise<SiteData> {
  const file = process.env.SITE_DATA_FILE;
  if (file) {
    try {
      const data = JSON.parse(await readFile(file, 'utf8')) as Partial<SiteData>;
      // One made before variants had their own views holds the first variant's only.
      const variant_windows = data.variant_windows ?? (data.variant && data.windows ? { [data.variant.id]: data.windows } : {});
      // An export made before a part existed lacks its fields: the part says what shows instead ("no status yet").
      const fallbacks = Object.assign({}, ...SITE_PARTS.map((p) => p.fallback ?? {})) as Partial<SiteData>;
      const filled = Object.fromEntries(Object.entries(fallbacks).map(([k, v]) => [k, data[k as keyof SiteData] ?? v]));
      return { ...data, ...filled, variant_windows, source: file } as SiteData;
    } catch (e) {
      throw new SiteDataError(`cannot read the data export ${file}: ${(e as Error).message}`);
    }
  }
  return collectSiteData(process.env.SITE_API_URL ?? DEFAULT_API_URL);
}

export function siteData(): Promise<SiteData> {
  loading ??= load();
  return loading;
}
