/**
 * The vendors' status pages beside the probes' incidents, as the incidents page and the feed show them: each
 * overlap with both timelines in one list (time, whose event, what), and the two lists of what has no partner.
 */
import type { VendorIncidentDoc, VendorMatchDoc, VendorPageDoc, VendorProbeIncidentDoc } from '../../../shared/api-types.ts';
import type { SiteData, SiteIncident } from './types.ts';

export interface TimelineRow {
  at: string;
  side: 'vendor' | 'probes';
  text: string;
}

export interface VendorOverlap {
  vendor: VendorIncidentDoc;
  probe: VendorProbeIncidentDoc;
  match: VendorMatchDoc;
  timeline: TimelineRow[];
}

export interface VendorView {
  /** Each page, with the labels of the targets naming it. */
  pages: Array<VendorPageDoc & { labels: string[] }>;
  /** Target ids as their labels, comma-separated. */
  labelOf: (targets: readonly string[]) => string;
  slack_minutes: number;
  overlaps: VendorOverlap[];
  unseen: VendorIncidentDoc[];
  unposted: VendorProbeIncidentDoc[];
}

/** Both incidents' events, oldest first (the vendor's first when two fall on the same instant). */
export function overlapTimeline(vendor: VendorIncidentDoc, probe: VendorProbeIncidentDoc, full: SiteIncident | undefined): TimelineRow[] {
  const rows: TimelineRow[] = [];
  if (vendor.started_at && vendor.started_at < vendor.created_at)
    rows.push({ at: vendor.started_at, side: 'vendor', text: 'began, the vendor says (set when it was posted)' });
  rows.push({ at: vendor.created_at, side: 'vendor', text: `posted "${vendor.name}" (${vendor.impact} impact)` });
  for (const u of vendor.updates) if (u.at > vendor.created_at) rows.push({ at: u.at, side: 'vendor', text: u.status });
  if (vendor.resolved_at && !vendor.updates.some((u) => u.status === 'resolved'))
    rows.push({ at: vendor.resolved_at, side: 'vendor', text: 'resolved' });
  if (full)
    for (const e of full.timeline)
      rows.push({
        at: e.at,
        side: 'probes',
        text:
          e.kind === 'resolved'
            ? 'resolved: every region operational again'
            : `${e.kind}: ${e.severity}, ${e.regions.map((r) => r.region).join(', ')}`,
      });
  else {
    rows.push({ at: probe.opened_at, side: 'probes', text: `opened: ${probe.severity}, ${probe.regions.join(', ')}` });
    if (probe.resolved_at) rows.push({ at: probe.resolved_at, side: 'probes', text: 'resolved' });
  }
  return rows.sort((a, b) => Date.parse(a.at) - Date.parse(b.at) || (a.side === b.side ? 0 : a.side === 'vendor' ? -1 : 1));
}

/** Null when no target names a status page (or the data predate them). */
export function vendorView(data: SiteData): VendorView | null {
  const doc = data.vendor_incidents;
  if (!doc || doc.pages.length === 0) return null;
  const vendorOf = (page: string, id: string) => doc.vendor_incidents.find((v) => v.page === page && v.id === id);
  const probeOf = (id: string) => doc.probe_incidents.find((p) => p.id === id);
  const overlaps = doc.matches.flatMap((match): VendorOverlap[] => {
    const vendor = vendorOf(match.page, match.vendor_incident);
    const probe = probeOf(match.incident);
    if (!vendor || !probe) return [];
    return [
      {
        vendor,
        probe,
        match,
        timeline: overlapTimeline(
          vendor,
          probe,
          data.incidents.find((i) => i.id === probe.id),
        ),
      },
    ];
  });
  const label = (id: string) => data.targets.find((t) => t.id === id)?.label ?? id;
  return {
    pages: doc.pages.map((p) => ({ ...p, labels: p.targets.map(label) })),
    labelOf: (targets) => targets.map(label).join(', '),
    slack_minutes: doc.slack_minutes,
    overlaps,
    unseen: doc.unseen_by_probes.flatMap((u) => vendorOf(u.page, u.id) ?? []),
    unposted: doc.unposted_by_vendor.flatMap((id) => probeOf(id) ?? []),
  };
}

/** A page's name for people: its host (or the {VAR} it is configured as). */
export function pageName(p: { page: string; url: string | null }): string {
  try {
    return new URL(p.url ?? p.page).host;
  } catch {
    return p.page;
  }
}
