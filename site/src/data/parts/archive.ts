/** The Parquet archive's manifest, summed up (../archive.ts): beside the API (its /archive route) unless SITE_ARCHIVE_URL says. */
import { fetchArchiveSummary } from '../archive.ts';
import type { SitePart } from './part.ts';

export const archivePart: SitePart = {
  name: 'archive',
  async collect({ apiBase, fetch }) {
    const base = process.env.SITE_ARCHIVE_URL || `${apiBase.replace(/\/$/, '')}/archive`;
    return { archive: await fetchArchiveSummary(apiBase, base, fetch) };
  },
  empty() {
    return {};
  },
};
