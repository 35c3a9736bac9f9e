/**
 * The vendors' incidents in the Atom feed: an entry per vendor incident, with both timelines when the probes
 * saw it too (and the lead or lag), or saying they did not; and, for a probe incident, what its vendor posted.
 * Entries come back unescaped; feed.ts escapes and frames them.
 */
import type { SiteData } from './types.ts';
import { pageName, vendorView } from './vendor.ts';

export interface FeedEntry {
  id: string;
  title: string;
  updated: string;
  published: string;
  link: string;
  category: string;
  summary: string;
}

export function vendorEntries(data: SiteData, base: string): FeedEntry[] {
  const view = vendorView(data);
  if (!view) return [];
  const host = (page: string) => pageName(view.pages.find((p) => p.page === page) ?? { page, url: null });
  const seen = view.overlaps.map((o) => ({
    id: `urn:llm-observatory:vendor:${host(o.vendor.page)}:${o.vendor.id}:${o.probe.id}`,
    title: `Vendor: "${o.vendor.name}" (${host(o.vendor.page)}): the probes saw it ${o.match.words}`,
    updated: o.vendor.updated_at,
    published: o.vendor.created_at,
    link: `${base}/incidents/#vendor-${o.vendor.id}-${o.probe.id}`,
    category: 'vendor',
    summary: [
      `${o.probe.target_label} (${o.probe.prompt_variant}): ${o.probe.severity} in ${o.probe.regions.join(', ')}; the vendor: ${o.vendor.impact} impact.`,
      ...o.timeline.map((r) => `${r.at} ${r.side}: ${r.text}`),
    ].join('\n'),
  }));
  const unseen = view.unseen.map((v) => ({
    id: `urn:llm-observatory:vendor:${host(v.page)}:${v.id}`,
    title: `Vendor: "${v.name}" (${host(v.page)}): not seen by the probes`,
    updated: v.updated_at,
    published: v.created_at,
    link: v.shortlink ?? `${base}/incidents/#vendor-status`,
    category: 'vendor',
    summary: [
      `${v.impact} impact${v.components.length ? ` on ${v.components.join(', ')}` : ''}, for ${view.labelOf(v.targets)}; no probe incident within ${view.slack_minutes / 60} h of it.`,
      ...v.updates.map((u) => `${u.at} vendor: ${u.status}`),
    ].join('\n'),
  }));
  return [...seen, ...unseen];
}

/** A line for a probe incident's own entry: what its vendor posted, or that it posted nothing. */
export function vendorLine(data: SiteData, incidentId: string): string[] {
  const view = vendorView(data);
  if (!view) return [];
  const matched = view.overlaps.filter((o) => o.probe.id === incidentId);
  if (matched.length > 0) return matched.map((o) => `Vendor status page: "${o.vendor.name}"; the probes saw it ${o.match.words}.`);
  return view.unposted.some((p) => p.id === incidentId) ? ['Vendor status page: the vendor posted no incident for it.'] : [];
}
