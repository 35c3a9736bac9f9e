/**
 * Incidents opened in the longest view's window (or still open), with the probes behind each chart, and the
 * vendors' status pages beside them when a target names one.
 */
import type { VendorIncidentsDoc } from '../../../../shared/api-types.ts';
import { SITE_VENDOR_DAYS, SITE_VENDOR_INCIDENTS } from '../../../../shared/config/vendor-status-costs.ts';
import { DAY_MS } from '../../../../shared/time.ts';
import { LONGEST_VIEW_DAYS } from '../../../../shared/views/windows.ts';
import type { SiteIncident } from '../types.ts';
import type { SitePart } from './part.ts';

export const incidentsPart: SitePart = {
  name: 'incidents',
  async collect({ api, now, data }) {
    const today = Math.floor(now / DAY_MS) * DAY_MS;
    const { incidents } = await api.live<{ incidents: SiteIncident[] }>(
      'incidents',
      `/incidents?from=${today - LONGEST_VIEW_DAYS * DAY_MS}&to=${now}&limit=200&points=true`,
    );
    // Asked for only when a target names a status page (health counts them).
    const vendor_incidents =
      (data.health?.vendor_pages ?? 0) > 0
        ? await api.live<VendorIncidentsDoc>(
            'vendor_incidents',
            `/vendor-incidents?from=${today - SITE_VENDOR_DAYS * DAY_MS}&to=${now}&limit=${SITE_VENDOR_INCIDENTS}`,
          )
        : undefined;
    return { incidents, ...(vendor_incidents ? { vendor_incidents } : {}) };
  },
  empty() {
    return { incidents: [] };
  },
  fallback: { incidents: [] },
};
