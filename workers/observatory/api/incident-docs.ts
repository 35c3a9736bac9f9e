/**
 * GET /api/v1/incidents's answer and the filter of its query, apart from the route (status.ts) so that the public
 * views (views/incident-views.ts) and the benchmarks compute the same answer without the route's imports (plain
 * TypeScript: no binding, no Durable Object).
 */
import type { ApiWindow, IncidentDoc } from '../../../shared/api-types.ts';
import { describeRegion, type Incident } from '../../../shared/status/incidents.ts';
import { findTarget, getConfig, targetLabel } from '../config.ts';
import { badRequest } from './errors.ts';
import { parseChoice, type Window } from './query.ts';
import { LONGEST_VIEW_ID } from '../../../shared/views/windows.ts';

function iso(t: number): string;
function iso(t: number | null): string | null;
function iso(t: number | null): string | null {
  return t === null ? null : new Date(t).toISOString();
}

/** Incidents an answer lists unless asked (`limit`), and at most. */
export const INCIDENT_LIMIT = { fallback: 50, most: 500 } as const;
/** The window GET /api/v1/incidents lists from unless asked: opened in the last 90 days, or still open. */
export const INCIDENTS_WINDOW = LONGEST_VIEW_ID;

/** GET /api/v1/incidents's answer: the incidents as read (newest first), over the window asked. */
export function incidentsDocument(w: Window, incidents: readonly Incident[]): { window: ApiWindow; incidents: IncidentDoc[] } {
  return {
    window: { from: iso(w.from), to: iso(w.to) },
    incidents: incidents.map((i) => ({
      ...i,
      target_label: targetLabel(i.target),
      opened_at: iso(i.opened_at),
      updated_at: iso(i.updated_at),
      resolved_at: iso(i.resolved_at),
      timeline: i.timeline.map((e) => ({ ...e, at: iso(e.at), regions: e.regions.map((r) => ({ ...r, words: describeRegion(r) })) })),
    })),
  };
}

/** A query's target (a configured one) and status, as GET /api/v1/incidents reads them. */
export function incidentFilter(q: URLSearchParams): { target?: string; status?: 'open' | 'resolved' } {
  const target = q.get('target') ?? undefined;
  if (target !== undefined && !findTarget(target))
    throw badRequest(
      `unknown target "${target}"; known: ${getConfig()
        .targets.map((t) => t.id)
        .join(', ')}`,
    );
  const status = q.has('status') ? parseChoice(q, 'status', ['open', 'resolved'] as const, 'open') : undefined;
  return { target, status };
}
