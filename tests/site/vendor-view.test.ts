/** The vendors' status pages on the site: both timelines of each overlap, the two lists, and the feed's entries. */
import { describe, expect, it } from 'vitest';
import { overlapTimeline, vendorView } from '../../site/src/data/vendor.ts';
import { vendorEntries, vendorLine } from '../../site/src/data/vendor-feed.ts';
import { atomFeed } from '../../site/src/data/feed.ts';
import type { VendorIncidentDoc, VendorIncidentsDoc, VendorProbeIncidentDoc } from '../../shared/api-types.ts';
import type { SiteData, SiteIncident } from '../../site/src/data/types.ts';

const PAGE = 'https://status.example.com';
const vendor = (id: string, over: Partial<VendorIncidentDoc> = {}): VendorIncidentDoc => ({
  page: PAGE,
  id,
  name: `Elevated errors <${id}> & more`,
  impact: 'major',
  status: 'resolved',
  components: ['Chat API'],
  created_at: '2026-11-03T13:00:00.000Z',
  started_at: '2026-11-03T12:50:00.000Z',
  resolved_at: '2026-11-03T13:30:00.000Z',
  updated_at: '2026-11-03T13:30:00.000Z',
  updates: [
    { status: 'investigating', at: '2026-11-03T13:00:00.000Z' },
    { status: 'identified', at: '2026-11-03T13:10:00.000Z' },
    { status: 'resolved', at: '2026-11-03T13:30:00.000Z' },
  ],
  shortlink: `https://stspg.io/${id}`,
  targets: ['a'],
  ...over,
});
const probe = (id: string, opened: string, resolved: string | null): VendorProbeIncidentDoc => ({
  id,
  target: 'a',
  target_label: 'Target A',
  prompt_variant: 'chat',
  status: resolved ? 'resolved' : 'open',
  severity: 'degraded',
  scope: 'regional',
  regions: ['apac'],
  opened_at: opened,
  resolved_at: resolved,
});
const doc: VendorIncidentsDoc = {
  window: { from: '2026-08-05T00:00:00.000Z', to: '2026-11-04T00:00:00.000Z' },
  slack_minutes: 120,
  method: '…',
  pages: [
    {
      page: PAGE,
      url: PAGE,
      targets: ['a'],
      watched_since: '2026-11-01T00:00:00.000Z',
      changed_at: '2026-11-03T13:30:00.000Z',
      error: null,
    },
  ],
  vendor_incidents: [vendor('v2', { created_at: '2026-11-03T20:00:00.000Z', updated_at: '2026-11-03T20:00:00.000Z' }), vendor('v1')],
  probe_incidents: [probe('p1', '2026-11-03T12:46:00.000Z', '2026-11-03T13:20:00.000Z'), probe('p2', '2026-11-03T23:00:00.000Z', null)],
  matches: [
    {
      page: PAGE,
      vendor_incident: 'v1',
      incident: 'p1',
      target: 'a',
      prompt_variant: 'chat',
      lead_ms: 14 * 60_000,
      lead_minutes: 14,
      words: '14 min before the vendor posted it',
    },
  ],
  unseen_by_probes: [{ page: PAGE, id: 'v2' }],
  unposted_by_vendor: ['p2'],
};
const site = (over: Partial<SiteData> = {}) =>
  ({
    generated_at: '2026-11-04T00:00:00.000Z',
    incidents: [],
    changes: [],
    targets: [],
    vendor_incidents: doc,
    ...over,
  }) as unknown as SiteData;

describe("the vendors' status pages on the site", () => {
  it('puts both timelines of an overlap in one list, oldest first', () => {
    const view = vendorView(site())!;
    expect(view.overlaps).toHaveLength(1);
    expect(view.overlaps[0].timeline.map((r) => [r.at.slice(11, 16), r.side, r.text])).toEqual([
      ['12:46', 'probes', 'opened: degraded, apac'],
      ['12:50', 'vendor', 'began, the vendor says (set when it was posted)'],
      ['13:00', 'vendor', 'posted "Elevated errors <v1> & more" (major impact)'],
      ['13:10', 'vendor', 'identified'],
      ['13:20', 'probes', 'resolved'],
      ['13:30', 'vendor', 'resolved'],
    ]);
    expect(view.unseen.map((v) => v.id)).toEqual(['v2']);
    expect(view.unposted.map((p) => p.id)).toEqual(['p2']);
  });

  it("uses the probe incident's own timeline when the site has it", () => {
    const full = {
      id: 'p1',
      timeline: [
        { at: '2026-11-03T12:46:00.000Z', kind: 'opened', severity: 'degraded', regions: [{ region: 'apac' }] },
        { at: '2026-11-03T12:56:00.000Z', kind: 'escalated', severity: 'down', regions: [{ region: 'apac' }, { region: 'weur' }] },
        { at: '2026-11-03T13:20:00.000Z', kind: 'resolved', severity: 'down', regions: [] },
      ],
    } as unknown as SiteIncident;
    const rows = overlapTimeline(doc.vendor_incidents[1], doc.probe_incidents[0], full).filter((r) => r.side === 'probes');
    expect(rows.map((r) => r.text)).toEqual([
      'opened: degraded, apac',
      'escalated: down, apac, weur',
      'resolved: every region operational again',
    ]);
  });

  it('shows nothing of it for data without it (an older export, or no page configured)', () => {
    expect(vendorView(site({ vendor_incidents: undefined }))).toBeNull();
    expect(vendorEntries(site({ vendor_incidents: undefined }), 'https://o.example')).toEqual([]);
    expect(atomFeed(site({ vendor_incidents: undefined }), 'https://o.example/')).not.toContain('vendor');
  });

  it('gives the feed an entry per vendor incident, escaped, and a line to each probe incident', () => {
    const entries = vendorEntries(site(), 'https://o.example');
    expect(entries.map((e) => e.title)).toEqual([
      'Vendor: "Elevated errors <v1> & more" (status.example.com): the probes saw it 14 min before the vendor posted it',
      'Vendor: "Elevated errors <v2> & more" (status.example.com): not seen by the probes',
    ]);
    expect(entries[0].summary.split('\n')[0]).toBe('Target A (chat): degraded in apac; the vendor: major impact.');
    expect(entries[1].summary).toContain('no probe incident within 2 h of it');
    expect(vendorLine(site(), 'p1')).toEqual([
      'Vendor status page: "Elevated errors <v1> & more"; the probes saw it 14 min before the vendor posted it.',
    ]);
    expect(vendorLine(site(), 'p2')).toEqual(['Vendor status page: the vendor posted no incident for it.']);
    const xml = atomFeed(site(), 'https://o.example/');
    expect(xml).toContain(
      '<title>Vendor: &quot;Elevated errors &lt;v1&gt; &amp; more&quot; (status.example.com): the probes saw it 14 min',
    );
    expect(xml).toContain('<id>urn:llm-observatory:vendor:status.example.com:v2</id>');
    expect(xml).toContain('href="https://o.example/incidents/#vendor-v1-p1"');
    expect(xml).not.toContain('<v1>');
  });
});
