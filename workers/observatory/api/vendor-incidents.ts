/**
 * GET /api/v1/vendor-incidents: the incidents vendors posted on the Statuspages their targets name, set
 * beside the probes' own incidents (shared/status/vendor-incidents.ts): each overlap with its detection
 * lead, the vendor incidents the probes never saw and the probe incidents the vendor never posted.
 * Bounded: at most `limit` vendor incidents and MAX_PROBE_INCIDENTS probe incidents, one row per page.
 */
import { paramsOf } from '../../../shared/api-contract/params.ts';
import { Hono } from 'hono';
import type { VendorIncidentsDoc, VendorPageDoc } from '../../../shared/api-types.ts';
import { statusPagesOf } from '../../../shared/config/validate-vendor-status.ts';
import { compareWithVendors, leadWords, VENDOR_MATCH_SLACK_MS } from '../../../shared/status/vendor-incidents.ts';
import { findTarget, getConfig, targetLabel } from '../config.ts';
import { listIncidents } from '../db/status.ts';
import { listVendorIncidents, readPageStates, type PageState } from '../db/vendor-incidents.ts';
import type { Incident } from '../../../shared/status/incidents.ts';
import type { PagedVendorIncident } from '../../../shared/status/vendor-incidents.ts';
import { badRequest } from './errors.ts';
import { INCIDENT_LIMIT } from './incident-docs.ts';
import type { ReaderEnv } from './public-reads.ts';
import { onlyKnown, parseIntParam, parseWindow, type Window } from './query.ts';
import { MINUTE_MS } from '../../../shared/time.ts';
import { LONGEST_VIEW_ID } from '../../../shared/views/windows.ts';

export const vendorIncidentRoutes = new Hono<ReaderEnv>();

/** Probe incidents read at most (GET /api/v1/incidents's own largest limit). */
export const MAX_PROBE_INCIDENTS = INCIDENT_LIMIT.most;

const METHOD =
  'A vendor incident and a probe incident are one event when the probe incident is of a target naming the page and the two overlap ' +
  '(vendor: started_at, or created_at, to resolved_at or now; probe: opened_at to resolved_at or now), give or take the slack. ' +
  "lead = the vendor's created_at (when it posted) − the probe incident's opened_at (its tick): positive when the probes saw it first. " +
  'Unmatched incidents are listed from the first successful poll of their page on.';

function iso(t: number): string;
function iso(t: number | null): string | null;
function iso(t: number | null): string | null {
  return t === null ? null : new Date(t).toISOString();
}

/** Each page and its poll's state. */
function pageDocs(pages: Array<{ page: string; targets: string[] }>, states: PageState[]): VendorPageDoc[] {
  return pages.map((p) => {
    const s = states.find((x) => x.page === p.page);
    return {
      page: p.page,
      url: s?.url ?? null,
      targets: p.targets,
      watched_since: iso(s?.watched_since ?? null),
      changed_at: iso(s?.changed_at ?? null),
      error: s?.error ? { kind: s.error_kind ?? 'unreachable', message: s.error, since: iso(s.error_since ?? 0) } : null,
    };
  });
}

/** The configured pages' poll states for GET /api/v1/health: one D1 read of a row a page, none without pages. */
export async function vendorPagesHealth(db: D1Database): Promise<VendorPageDoc[] | { error: string }> {
  const pages = statusPagesOf(getConfig().targets);
  if (pages.length === 0) return [];
  try {
    return pageDocs(pages, await readPageStates(db));
  } catch (e) {
    return { error: `poll states unreadable: ${(e as Error).message}` };
  }
}

/** Vendor incidents an answer sets beside the probes' unless asked (`limit`), and at most. */
export const VENDOR_LIMIT = { fallback: 200, most: 500 } as const;
/** The window GET /api/v1/vendor-incidents compares unless asked. */
export const VENDOR_WINDOW = LONGEST_VIEW_ID;

/** What an answer is computed from, as read for its pages (listVendorIncidents, readPageStates and listIncidents). */
export interface VendorReads {
  states: PageState[];
  /** Posted in the window (or unresolved) on the answer's pages, newest first, at most its limit. */
  vendor: PagedVendorIncident[];
  /** The newest MAX_PROBE_INCIDENTS incidents of its target (every target without one), from the window's start less the slack. */
  probes: Incident[];
}

/** The pages an answer compares: those the target names, or every page. */
export const vendorPagesOf = (target?: string) =>
  statusPagesOf(getConfig().targets).filter((p) => target === undefined || p.targets.includes(target));

/** GET /api/v1/vendor-incidents's answer over window `w`, for one target or every one; `reads` null when it names no page. */
export function vendorIncidentsDocument(w: Window, now: number, target: string | undefined, reads: VendorReads | null): VendorIncidentsDoc {
  const pages = vendorPagesOf(target);
  const doc: VendorIncidentsDoc = {
    window: { from: iso(w.from), to: iso(w.to) },
    slack_minutes: VENDOR_MATCH_SLACK_MS / MINUTE_MS,
    method: METHOD,
    pages: [],
    vendor_incidents: [],
    probe_incidents: [],
    matches: [],
    unseen_by_probes: [],
    unposted_by_vendor: [],
  };
  if (pages.length === 0 || reads === null) return doc;

  const { states, vendor } = reads;
  const watched = pages.map((p) => ({ ...p, watched_since: states.find((s) => s.page === p.page)?.watched_since ?? null }));
  const compared = new Set(pages.flatMap((p) => p.targets));
  const probes = reads.probes.filter((i) => compared.has(i.target) && i.opened_at < w.to);
  const result = compareWithVendors(vendor, probes, watched, Math.min(now, w.to));

  doc.pages = pageDocs(pages, states);
  doc.vendor_incidents = vendor.map((v) => ({
    ...v,
    created_at: iso(v.created_at),
    started_at: iso(v.started_at),
    resolved_at: iso(v.resolved_at),
    updated_at: iso(v.updated_at),
    updates: v.updates.map((u) => ({ status: u.status, at: iso(u.at) })),
    targets: pages.find((p) => p.page === v.page)?.targets ?? [],
  }));
  doc.probe_incidents = probes.map((i) => ({
    id: i.id,
    target: i.target,
    target_label: targetLabel(i.target),
    prompt_variant: i.variant,
    status: i.status,
    severity: i.severity,
    scope: i.scope,
    regions: i.regions,
    opened_at: iso(i.opened_at),
    resolved_at: iso(i.resolved_at),
  }));
  doc.matches = result.matches.map(({ variant, ...m }) => ({
    ...m,
    prompt_variant: variant,
    lead_minutes: Math.round(m.lead_ms / MINUTE_MS),
    words: leadWords(m.lead_ms),
  }));
  doc.unseen_by_probes = result.unseen_by_probes;
  doc.unposted_by_vendor = result.unposted_by_vendor;
  return doc;
}

vendorIncidentRoutes.get('/vendor-incidents', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, paramsOf('vendorIncidents'));
  if (!q.has('window') && !q.has('from')) q.set('window', VENDOR_WINDOW);
  const now = Date.now();
  const w = parseWindow(q, now);
  const config = getConfig();
  const target = q.get('target') ?? undefined;
  if (target !== undefined && !findTarget(target))
    throw badRequest(`unknown target "${target.slice(0, 100)}"; known: ${config.targets.map((t) => t.id).join(', ')}`);
  const limit = parseIntParam(q, 'limit', VENDOR_LIMIT.fallback, 1, VENDOR_LIMIT.most);
  const pages = vendorPagesOf(target);
  if (pages.length === 0) return c.json(vendorIncidentsDocument(w, now, target, null));
  const states = await readPageStates(c.env.DB);
  const vendor = await listVendorIncidents(c.env.DB, { from: w.from, to: w.to, pages: pages.map((p) => p.page), limit });
  const probes = await listIncidents(c.env.DB, {
    from: w.from - VENDOR_MATCH_SLACK_MS,
    target,
    limit: MAX_PROBE_INCIDENTS,
    withPoints: false,
  });
  return c.json(vendorIncidentsDocument(w, now, target, { states, vendor, probes }));
});
