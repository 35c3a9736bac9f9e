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
  /** Each update's text (default: a few words naming it). */
  body?: (i: number, status: string) => string;
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
        body: o.body ? o.body(i, status) : `Update ${i} (${status}).`,
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

const HOUR_MS = 3_600_000;
const UPDATE_STATUSES = ['investigating', 'identified', 'monitoring', 'monitoring', 'monitoring', 'resolved'];
const PARAGRAPH =
  'We are continuing to investigate elevated error rates and latency affecting requests to the API in some regions. ' +
  'Some customers may see failed or slow requests; retries may succeed. Our engineers have identified a contributing ' +
  'change and are rolling it back. We will provide another update within the next 30 minutes or as soon as we know more. ';

/**
 * A busy vendor's incidents list as large as real ones run (about 530 KB): the 50 incidents Statuspage lists, each with
 * 6 updates of a paragraph and a half and 6 affected components (each component listed on the incident and on every update).
 */
export function realisticIncidentsList(newest = Date.UTC(2026, 10, 3, 12)): { page: unknown; incidents: unknown[] } {
  const components = ['API', 'Chat Completions', 'Responses', 'Embeddings', 'Batch', 'Playground'];
  const incidents = Array.from({ length: 50 }, (_, k) => {
    const created = newest - k * 30 * HOUR_MS;
    return statuspageIncident({
      id: `real${k.toString(36).padStart(8, '0')}`,
      name: `Elevated error rates on the API for some customers (${k})`,
      created: new Date(created).toISOString(),
      resolved: new Date(created + 3 * HOUR_MS).toISOString(),
      components,
      updates: UPDATE_STATUSES.map((status, i): [string, string] => [status, new Date(created + i * 30 * 60_000).toISOString()]),
      body: (i) => `${PARAGRAPH}${PARAGRAPH.slice(0, 221)}(${i})`,
    });
  });
  return { page: { id: 'page0test', name: 'Test vendor', url: 'https://status.example.com' }, incidents };
}

/**
 * Hostile incidents lists, each as many entries as fit `bytes` (the poll's byte cap, say) of the smallest valid shape:
 * tiny incidents; one incident with a host of updates; one with a host of components.
 */
export const craftedIncidentsList = {
  tinyIncidents(bytes: number): { incidents: unknown[] } {
    const one = (i: number) => ({ id: `t${i}`, created_at: '2026-01-01T00:00:00Z' });
    return { incidents: Array.from({ length: fitting(bytes, JSON.stringify(one(100_000)).length) }, (_, i) => one(i)) };
  },
  manyUpdates(bytes: number): { incidents: unknown[] } {
    const update = (i: number) => ({ status: 'investigating', display_at: `2026-01-01T00:${String(i % 60).padStart(2, '0')}:00Z` });
    const n = fitting(bytes - 200, JSON.stringify(update(0)).length);
    return {
      incidents: [{ id: 'u1', created_at: '2026-01-01T00:00:00Z', incident_updates: Array.from({ length: n }, (_, i) => update(i)) }],
    };
  },
  manyComponents(bytes: number): { incidents: unknown[] } {
    const component = (i: number) => ({ name: `c${i}` });
    const n = fitting(bytes - 200, JSON.stringify(component(100_000)).length);
    return { incidents: [{ id: 'c1', created_at: '2026-01-01T00:00:00Z', components: Array.from({ length: n }, (_, i) => component(i)) }] };
  },
  /**
   * As much as a body may list within `bytes` and the count caps (`caps`: statuspage.ts): as many incidents as fit,
   * each with the most updates one may list (the costliest entry to read: a time parsed, then sorted), or each
   * with its share of the entries as distinct components, their names as long as `bytes` allow.
   */
  underCaps(
    bytes: number,
    caps: { incidents: number; perList: number; entries: number },
    as: 'updates' | 'components',
  ): { incidents: unknown[] } {
    const head = JSON.stringify({ id: 'w000', created_at: '2026-01-01T00:00:00Z', incident_updates: [] }).length + 1;
    if (as === 'updates') {
      const update = (i: number) => ({
        status: 'monitoring',
        display_at: `2026-01-01T${String(i % 24).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00Z`,
      });
      const size = JSON.stringify(update(0)).length + 1;
      const n = Math.min(
        caps.incidents,
        Math.floor(caps.entries / (caps.perList + 1)),
        Math.floor((bytes - 64) / (head + caps.perList * size)),
      );
      return {
        incidents: Array.from({ length: n }, (_, k) => ({
          id: `w${String(k).padStart(3, '0')}`,
          created_at: '2026-01-01T00:00:00Z',
          incident_updates: Array.from({ length: caps.perList }, (_, i) => update(i)),
        })),
      };
    }
    const each = Math.min(caps.perList, Math.floor((caps.entries - caps.incidents) / caps.incidents));
    const room = Math.floor((bytes - 64 - caps.incidents * head) / (caps.incidents * each)) - 1;
    return {
      incidents: Array.from({ length: caps.incidents }, (_, k) => ({
        id: `w${String(k).padStart(3, '0')}`,
        created_at: '2026-01-01T00:00:00Z',
        components: Array.from({ length: each }, (_, i) => ({ name: `c${i}`.padEnd(room - 12, 'x') })),
      })),
    };
  },
};

/** How many entries of `size` characters (and a comma) fit `bytes`, less the list's own brackets. */
const fitting = (bytes: number, size: number) => Math.floor((bytes - 64) / (size + 1));
