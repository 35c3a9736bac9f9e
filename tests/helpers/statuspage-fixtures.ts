/**
 * Statuspage answers for the tests, without a server: what the loopback stand-in (statuspage-server.ts) can be
 * told to answer, and Statuspage v2 incidents in the documented shape (tests/fixtures/statuspage/README.md).
 * Imports nothing from Node, so tests inside workerd use it too.
 */
export type StatuspageFixture =
  | { mode: 'incidents'; incidents: unknown[]; etag?: string; lastModified?: string }
  | { mode: 'malformed' }
  | { mode: 'huge'; bytes: number; declareLength?: boolean }
  | { mode: 'slow-headers'; delayMs: number; incidents?: unknown[] }
  | { mode: 'slow-body'; delayMs: number; incidents?: unknown[] }
  | { mode: 'status'; status: number };

export interface StatuspageHit {
  at: number;
  ifNoneMatch: string | null;
  ifModifiedSince: string | null;
  answered: number;
}

/** A Statuspage v2 incident as incidents.json lists it, every field the format has (docs: tests/fixtures/statuspage/README.md). */
export function statuspageIncident(o: {
  id: string;
  name?: string;
  impact?: string;
  status?: string;
  created: string;
  started?: string;
  resolved?: string | null;
  components?: string[];
  /** [status, ISO time] of each update, oldest first (default: one "investigating" at `created`). */
  updates?: Array<[string, string]>;
}): Record<string, unknown> {
  const updates = o.updates ?? [['investigating', o.created]];
  const components = (o.components ?? ['API']).map((name, i) => ({
    id: `comp${i}`,
    name,
    status: 'operational',
    created_at: '2015-07-30T18:55:43.739-07:00',
    updated_at: o.created,
    position: i + 1,
    description: null,
    showcase: true,
    start_date: null,
    group_id: null,
    page_id: 'page0test',
    group: false,
    only_show_if_degraded: false,
  }));
  const last = updates.at(-1)![1];
  return {
    id: o.id,
    name: o.name ?? `Incident ${o.id}`,
    status: o.status ?? (o.resolved ? 'resolved' : 'investigating'),
    created_at: o.created,
    updated_at: last,
    monitoring_at: null,
    resolved_at: o.resolved ?? null,
    impact: o.impact ?? 'major',
    shortlink: `https://stspg.io/${o.id}`,
    started_at: o.started ?? o.created,
    page_id: 'page0test',
    // Newest first, as Statuspage lists them.
    incident_updates: updates
      .map(([status, at], i) => ({
        id: `${o.id}-u${i}`,
        status,
        body: `Update ${i} (${status}).`,
        incident_id: o.id,
        created_at: at,
        updated_at: at,
        display_at: at,
        affected_components: components.map((c) => ({ code: c.id, name: c.name, old_status: 'operational', new_status: 'major_outage' })),
        deliver_notifications: true,
        custom_tweet: null,
        tweet_id: null,
      }))
      .reverse(),
    components,
  };
}
