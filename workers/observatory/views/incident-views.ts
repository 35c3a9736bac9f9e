/**
 * The views of GET /api/v1/incidents over its default window (opened in the last 90 days, or still open): one
 * without the incidents' points and one with them (`points=true`), so a request reads one object. Each holds, for
 * every target × status, its newest INCIDENT_LIMIT.most incidents, newest first: what any request of that window
 * selects, whatever its `target`, `status` and `limit`, is the first `limit` lines that pass its filter. Built
 * from one read of the incidents; marked when the status keeper writes incidents to D1, and each hour with the
 * history (the window's start moves).
 */
import { parseBoolean, parseIntParam, parseWindow, type Window } from '../api/query.ts';
import { INCIDENT_LIMIT, INCIDENTS_WINDOW, incidentFilter, incidentsDocument } from '../api/incident-docs.ts';
import { newestIncidentsPerKey } from '../db/status.ts';
import type { Incident } from '../../../shared/status/incidents.ts';
import { INCIDENT_LIST, incidentLines } from './status-lists.ts';
import { keysFirst, onlyParams, type BuiltView, type ViewMatcher, type ViewPart } from './view-part.ts';

export const incidentViewName = (points: boolean) => `incidents/${INCIDENTS_WINDOW}${points ? '@points' : ''}`;

const matchIncidents: ViewMatcher = (q) => {
  if (!onlyParams(q, ['window', 'target', 'status', 'limit', 'points'])) return null;
  if ((q.get('window') ?? INCIDENTS_WINDOW) !== INCIDENTS_WINDOW) return null;
  const { target, status } = incidentFilter(q);
  const limit = parseIntParam(q, 'limit', INCIDENT_LIMIT.fallback, 1, INCIDENT_LIMIT.most);
  return { view: incidentViewName(parseBoolean(q, 'points', false)), filter: incidentLines(target, status, limit) };
};

const doc = (w: Window, incidents: readonly Incident[]) => {
  const d = incidentsDocument(w, incidents);
  return { ...d, incidents: d.incidents.map((i) => keysFirst(i, INCIDENT_LIST.keys)) };
};

export const incidentViews: ViewPart = {
  name: 'incidents',
  routes: { '/api/v1/incidents': matchIncidents },
  async build({ db, now }) {
    const w = parseWindow(new URLSearchParams({ window: INCIDENTS_WINDOW }), now);
    const incidents = await newestIncidentsPerKey(db, { from: w.from, perKey: INCIDENT_LIMIT.most, withPoints: true });
    const views: BuiltView[] = [
      // Without points, as the route reads them: an empty list each.
      {
        name: incidentViewName(false),
        doc: doc(
          w,
          incidents.map((i) => ({ ...i, points: [] })),
        ),
        list: INCIDENT_LIST,
      },
      { name: incidentViewName(true), doc: doc(w, incidents), list: INCIDENT_LIST },
    ];
    return views;
  },
};
