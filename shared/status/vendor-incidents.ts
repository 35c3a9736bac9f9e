/**
 * How early did the probes see it? A vendor's incident (from its Statuspage) and a probe incident
 * (shared/status/incidents.ts) are the same event when they are of the same target (one that names the
 * page) and overlap in time, give or take VENDOR_MATCH_SLACK_MS. For each such pair, the detection lead:
 * when the vendor posted its incident (created_at) minus when the probes' incident opened (its tick),
 * positive when the probes saw it first. What has no partner is listed too: vendor incidents the probes
 * never saw, and probe incidents the vendor never posted; each only from when the page was first polled
 * (before that, the vendor's list of its 50 newest incidents may not reach back). Pure.
 */
import { HOUR_MS } from '../time.ts';
import type { VendorIncident } from './statuspage.ts';
import { MINUTE_MS } from '../time.ts';

/** How far apart two incidents may lie and still be one event: a vendor that posts late, or resolves early. */
export const VENDOR_MATCH_SLACK_MS = 2 * HOUR_MS;

/** A vendor incident and the page it came from (its configured address, the targets' `statusPage`). */
export interface PagedVendorIncident extends VendorIncident {
  page: string;
}

/** What matching needs of a probe incident. */
export interface ProbeIncidentSpan {
  id: string;
  target: string;
  variant: string;
  opened_at: number;
  resolved_at: number | null;
}

export interface WatchedPage {
  page: string;
  /** The targets naming it. */
  targets: string[];
  /** Its first successful poll; null: never polled successfully (nothing of it is compared). */
  watched_since: number | null;
}

export interface VendorMatch {
  page: string;
  vendor_incident: string;
  incident: string;
  target: string;
  variant: string;
  /** Vendor's created_at minus the probe incident's opened_at: positive when the probes saw it first. */
  lead_ms: number;
}

export interface VendorComparison {
  /** Newest vendor incident first, then by the probe incident's opening. */
  matches: VendorMatch[];
  /** Vendor incidents (page, id) no probe incident overlapped, since their page was watched. */
  unseen_by_probes: Array<{ page: string; id: string }>;
  /** Probe incidents (of targets naming a page) no vendor incident overlapped, since the page was watched. */
  unposted_by_vendor: string[];
}

/** When the vendor says it began (or posted it, when it says no start), and when it ended (now while open). */
function vendorSpan(v: VendorIncident, now: number): [number, number] {
  const start = Math.min(v.started_at ?? v.created_at, v.created_at);
  return [start, Math.max(start, v.resolved_at ?? now)];
}

export function overlaps(a: [number, number], b: [number, number], slackMs = VENDOR_MATCH_SLACK_MS): boolean {
  return a[0] <= b[1] + slackMs && b[0] <= a[1] + slackMs;
}

export function compareWithVendors(
  vendor: readonly PagedVendorIncident[],
  probes: readonly ProbeIncidentSpan[],
  pages: readonly WatchedPage[],
  now: number,
  slackMs = VENDOR_MATCH_SLACK_MS,
): VendorComparison {
  const pageOf = new Map(pages.map((p) => [p.page, p]));
  const matches: VendorMatch[] = [];
  const matchedProbes = new Set<string>();
  const unseen: Array<{ page: string; id: string }> = [];
  const newestFirst = [...vendor].sort((a, b) => b.created_at - a.created_at || a.id.localeCompare(b.id));
  for (const v of newestFirst) {
    const page = pageOf.get(v.page);
    if (!page) continue;
    const span = vendorSpan(v, now);
    const partners = probes
      .filter((p) => page.targets.includes(p.target) && overlaps(span, [p.opened_at, Math.max(p.opened_at, p.resolved_at ?? now)], slackMs))
      .sort((a, b) => a.opened_at - b.opened_at || a.id.localeCompare(b.id));
    for (const p of partners) {
      matchedProbes.add(p.id);
      matches.push({
        page: v.page,
        vendor_incident: v.id,
        incident: p.id,
        target: p.target,
        variant: p.variant,
        lead_ms: v.created_at - p.opened_at,
      });
    }
    if (partners.length === 0 && page.watched_since !== null && span[0] >= page.watched_since) unseen.push({ page: v.page, id: v.id });
  }
  const watchedFrom = (target: string): number | null => {
    const since = pages.filter((p) => p.targets.includes(target) && p.watched_since !== null).map((p) => p.watched_since!);
    return since.length === 0 ? null : Math.min(...since);
  };
  const unposted = [...probes]
    .sort((a, b) => b.opened_at - a.opened_at || a.id.localeCompare(b.id))
    .filter((p) => {
      if (matchedProbes.has(p.id)) return false;
      const since = watchedFrom(p.target);
      return since !== null && p.opened_at >= since;
    })
    .map((p) => p.id);
  return { matches, unseen_by_probes: unseen, unposted_by_vendor: unposted };
}

/** "14 min before the vendor posted it", "3 min after", "as the vendor posted it". */
export function leadWords(leadMs: number): string {
  const minutes = Math.round(Math.abs(leadMs) / MINUTE_MS);
  if (minutes === 0) return 'within a minute of the vendor posting it';
  const span = minutes >= 120 ? `${Math.round((minutes / 60) * 10) / 10} h` : `${minutes} min`;
  return leadMs > 0 ? `${span} before the vendor posted it` : `${span} after the vendor posted it`;
}
