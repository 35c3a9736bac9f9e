/**
 * The views of GET /api/v1/vendor-incidents over its default window (90 days), at its default limit and at the most
 * it takes (what the site build asks): the whole answer, and one per configured target (`target=`), each served
 * whole. A target's answer is not a subset of the whole one's lines
 * (its own pages, their newest incidents, its own matches), so each is computed apart, from one read of the
 * pages' states, one of each page's newest incidents and one of each target × status's newest probe incidents.
 * Marked when a poll writes a page's incidents or state, when the status keeper writes incidents, and each hour
 * with the history (the window's start moves).
 */
import { VENDOR_MATCH_SLACK_MS } from '../../../shared/status/vendor-incidents.ts';
import { statusPagesOf } from '../../../shared/config/validate-vendor-status.ts';
import { findTarget, getConfig } from '../config.ts';
import { newestIncidentsPerKey } from '../db/status.ts';
import { newestVendorIncidentsPerPage, readPageStates } from '../db/vendor-incidents.ts';
import { parseWindow } from '../api/query.ts';
import { MAX_PROBE_INCIDENTS, VENDOR_LIMIT, VENDOR_WINDOW, vendorIncidentsDocument, vendorPagesOf } from '../api/vendor-incidents.ts';
import { onlyParams, type BuiltView, type ViewMatcher, type ViewPart } from './view-part.ts';

/** The limits the views hold: the route's default and its most. */
const VIEW_LIMITS: readonly number[] = [VENDOR_LIMIT.fallback, VENDOR_LIMIT.most];

export const vendorViewName = (target: string | undefined, limit: number) =>
  `vendor-incidents/${VENDOR_WINDOW}${target ? `@target=${target}` : ''}${limit === VENDOR_LIMIT.fallback ? '' : `@limit=${limit}`}`;

const matchVendorIncidents: ViewMatcher = (q) => {
  if (!onlyParams(q, ['window', 'target', 'limit'])) return null;
  if ((q.get('window') ?? VENDOR_WINDOW) !== VENDOR_WINDOW) return null;
  const raw = q.get('limit');
  const limit = raw === null ? VENDOR_LIMIT.fallback : VIEW_LIMITS.find((l) => String(l) === raw);
  // A target not configured, or another limit, is the live route's (with its own 400 for a bad one).
  const target = q.get('target') ?? undefined;
  if ((target !== undefined && !findTarget(target)) || limit === undefined) return null;
  return { view: vendorViewName(target, limit) };
};

export const vendorIncidentViews: ViewPart = {
  name: 'vendor-incidents',
  routes: { '/api/v1/vendor-incidents': matchVendorIncidents },
  async build({ db, now }) {
    const w = parseWindow(new URLSearchParams({ window: VENDOR_WINDOW }), now);
    const pages = statusPagesOf(getConfig().targets).map((p) => p.page);
    // Without a page nothing is compared, and nothing read.
    const read =
      pages.length === 0
        ? null
        : {
            states: await readPageStates(db),
            vendor: await newestVendorIncidentsPerPage(db, { from: w.from, to: w.to, pages, perPage: Math.max(...VIEW_LIMITS) }),
            probes: await newestIncidentsPerKey(db, {
              from: w.from - VENDOR_MATCH_SLACK_MS,
              perKey: MAX_PROBE_INCIDENTS,
              withPoints: false,
            }),
          };
    const views: BuiltView[] = [];
    for (const target of [undefined, ...getConfig().targets.map((t) => t.id)])
      for (const limit of VIEW_LIMITS) {
        const named = new Set(vendorPagesOf(target).map((p) => p.page));
        // As the route reads them for the target's pages: the newest of those pages' incidents, and of its probe incidents.
        const reads =
          read === null || named.size === 0
            ? null
            : {
                states: read.states,
                vendor: read.vendor.filter((v) => named.has(v.page)).slice(0, limit),
                probes: read.probes.filter((i) => target === undefined || i.target === target).slice(0, MAX_PROBE_INCIDENTS),
              };
        views.push({ name: vendorViewName(target, limit), doc: vendorIncidentsDocument(w, now, target, reads) });
      }
    return views;
  },
};
