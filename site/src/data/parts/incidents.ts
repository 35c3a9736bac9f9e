/**
 * Incidents opened in the longest view's window (or still open), with the probes behind each chart, and the
 * vendors' status pages beside them when a target names one: each from its public view (GET /api/v1/incidents,
 * /vendor-incidents), as every anonymous reader reads them.
 */
import { SITE_VENDOR_INCIDENTS } from '../../../../shared/config/vendor-status-costs.ts';
import type { SiteIncident } from '../types.ts';
import type { SitePart } from './part.ts';

/** Incidents the site lists at most: the newest of the window's. */
const SITE_INCIDENTS = 200;

export const incidentsPart: SitePart = {
  name: 'incidents',
  async collect({ api, data }) {
    const { incidents } = await api
      .view('incidents', 'incidents', { limit: SITE_INCIDENTS, points: true })
      .as<{ incidents: SiteIncident[] }>();
    // Asked for only when a target names a status page (health counts them).
    const vendor_incidents =
      (data.health?.vendor_pages ?? 0) > 0
        ? await api.view('vendor_incidents', 'vendorIncidents', { limit: SITE_VENDOR_INCIDENTS }).answer()
        : undefined;
    return { incidents, ...(vendor_incidents ? { vendor_incidents } : {}) };
  },
  empty() {
    return { incidents: [] };
  },
  fallback: { incidents: [] },
};
