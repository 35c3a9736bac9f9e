/**
 * Incidents opened in the longest view's window (or still open), with the probes behind each chart, and the
 * vendors' status pages beside them when a target names one: each from its public view (GET /api/v1/incidents,
 * /vendor-incidents), as every anonymous reader reads them.
 */
import type { VendorIncidentsDoc } from '../../../../shared/api-types.ts';
import { SITE_VENDOR_INCIDENTS } from '../../../../shared/config/vendor-status-costs.ts';
import type { SiteIncident } from '../types.ts';
import type { SitePart } from './part.ts';

/** Incidents the site lists at most: the newest of the window's. */
const SITE_INCIDENTS = 200;

export const incidentsPart: SitePart = {
  name: 'incidents',
  async collect({ api, data }) {
    const { incidents } = await api.view<{ incidents: SiteIncident[] }>('incidents', `/incidents?limit=${SITE_INCIDENTS}&points=true`);
    // Asked for only when a target names a status page (health counts them).
    const vendor_incidents =
      (data.health?.vendor_pages ?? 0) > 0
        ? await api.view<VendorIncidentsDoc>('vendor_incidents', `/vendor-incidents?limit=${SITE_VENDOR_INCIDENTS}`)
        : undefined;
    return { incidents, ...(vendor_incidents ? { vendor_incidents } : {}) };
  },
  empty() {
    return { incidents: [] };
  },
  fallback: { incidents: [] },
};
