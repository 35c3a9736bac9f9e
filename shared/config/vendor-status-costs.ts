/**
 * What the vendor status pages (`statusPage` on targets) cost a day, for the capacity model (capacity.ts adds
 * each figure as a term of its own). Nothing at all without a page. The poll writes only what changed, so its
 * writes follow the vendors' activity, taken here as a busy vendor's: VENDOR_INCIDENTS_PER_PAGE_DAY incidents a
 * day per page, each posted and updated VENDOR_UPDATES_PER_INCIDENT times (each update one changed poll).
 */
import { DAY_MS, MINUTE_MS } from '../time.ts';
import { VENDOR_POLL_MS } from '../status/statuspage.ts';
import { tickMinutesOf } from './schedule.ts';
import type { ObservatoryConfig } from './types.ts';
import { statusPagesOf } from './validate-vendor-status.ts';
import { LONGEST_VIEW_DAYS } from '../views/windows.ts';

/** Assumed vendor activity per page (a large vendor posts a few incidents a week to one a day). */
export const VENDOR_INCIDENTS_PER_PAGE_DAY = 1;
export const VENDOR_UPDATES_PER_INCIDENT = 4;
/** A changed incident: its row and its created_at index entry; with each changed poll, the page's state row. */
export const VENDOR_ROWS_WRITTEN_PER_CHANGE = 2;
export const VENDOR_STATE_ROWS_WRITTEN_PER_CHANGE = 1;
/** Each poll in the poller (workers/observatory/vendor-status-poller.ts): the cron's hand-over and the alarm; the duty kept, its alarm, its removal. */
export const VENDOR_DO_REQUESTS_PER_POLL = 2;
export const VENDOR_DO_ROWS_WRITTEN_PER_POLL = 3;
/** The retention delete of an incident: its row and its index entry. */
export const VENDOR_ROWS_DELETED_PER_INCIDENT = 2;
/** Vendor incidents a site build asks for at most (site/src/data/collect.ts), and the days it asks about. */
export const SITE_VENDOR_INCIDENTS = 500;
export const SITE_VENDOR_DAYS = LONGEST_VIEW_DAYS;

export function vendorStatusCosts(config: ObservatoryConfig) {
  const pages = statusPagesOf(config.targets).length;
  const tickMs = (tickMinutesOf(config.schedule) ?? 5) * MINUTE_MS;
  const pollsPerDay = pages === 0 ? 0 : DAY_MS / Math.max(tickMs, VENDOR_POLL_MS);
  const changesPerDay = pages * VENDOR_INCIDENTS_PER_PAGE_DAY * VENDOR_UPDATES_PER_INCIDENT;
  return {
    pages,
    pollsPerDay,
    d1RowsWrittenPerDay:
      changesPerDay * (VENDOR_ROWS_WRITTEN_PER_CHANGE + VENDOR_STATE_ROWS_WRITTEN_PER_CHANGE) +
      pages * VENDOR_INCIDENTS_PER_PAGE_DAY * VENDOR_ROWS_DELETED_PER_INCIDENT,
    // Each poll reads every page's state row (one query).
    d1RowsReadPerDay: pollsPerDay * pages,
    // A build asks for the vendor incidents' view once, when a page is configured (no D1 row).
    siteBuildRequests: pages === 0 ? 0 : 1,
    doRequestsPerDay: pollsPerDay * VENDOR_DO_REQUESTS_PER_POLL,
    doRowsWrittenPerDay: pollsPerDay * VENDOR_DO_ROWS_WRITTEN_PER_POLL,
    // The cron only hands the tick to the poller (one RPC); the poller's alarm fetches each page.
    subrequestsPerCron: pages === 0 ? 0 : 1,
    subrequestsPerPollerAlarm: pages,
  };
}
