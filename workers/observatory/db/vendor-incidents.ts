/** Every SQL statement of the vendor status pages (migrations/0015_vendor_incidents.sql), each a named function with bound parameters. */
import { inList } from './in-list.ts';
import type { PollFailure } from '../../../shared/status/statuspage-poll.ts';
import type { VendorIncident } from '../../../shared/status/statuspage.ts';
import type { PagedVendorIncident } from '../../../shared/status/vendor-incidents.ts';

/** The tables' columns, in migration order, and their keys (checked against the migrations by tests/workers/schema.test.ts). */
export const VENDOR_TABLE_SHAPES = {
  vendor_incidents: {
    columns: [
      'page',
      'id',
      'name',
      'impact',
      'status',
      'components',
      'created_at',
      'started_at',
      'resolved_at',
      'updated_at',
      'updates',
      'shortlink',
    ],
    key: ['page', 'id'],
    nullable: ['started_at', 'resolved_at', 'shortlink'],
  },
  vendor_status_pages: {
    columns: ['page', 'url', 'etag', 'last_modified', 'fingerprints', 'watched_since', 'changed_at', 'error_kind', 'error', 'error_since'],
    key: ['page'],
    nullable: ['etag', 'last_modified', 'watched_since', 'changed_at', 'error_kind', 'error', 'error_since'],
  },
} as const;

/** A page's poll state (one row of vendor_status_pages). */
export interface PageState {
  page: string;
  /** The address last polled ({VAR} resolved). */
  url: string;
  etag: string | null;
  last_modified: string | null;
  /** Each kept incident's fingerprint (shared/status/statuspage.ts incidentFingerprint), by id. */
  fingerprints: Record<string, string>;
  watched_since: number | null;
  changed_at: number | null;
  error_kind: PollFailure | null;
  error: string | null;
  error_since: number | null;
}

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
const str = (v: unknown) => (v === null || v === undefined ? null : String(v));

export async function readPageStates(db: D1Database): Promise<PageState[]> {
  const { results } = await db
    .prepare(`SELECT ${VENDOR_TABLE_SHAPES.vendor_status_pages.columns.join(', ')} FROM vendor_status_pages`)
    .all();
  return results.map((r) => ({
    page: String(r.page),
    url: String(r.url),
    etag: str(r.etag),
    last_modified: str(r.last_modified),
    fingerprints: JSON.parse(String(r.fingerprints)),
    watched_since: num(r.watched_since),
    changed_at: num(r.changed_at),
    error_kind: str(r.error_kind) as PollFailure | null,
    error: str(r.error),
    error_since: num(r.error_since),
  }));
}

const STATE_COLUMNS = VENDOR_TABLE_SHAPES.vendor_status_pages.columns;
const UPSERT_STATE = `INSERT INTO vendor_status_pages (${STATE_COLUMNS.join(', ')}) VALUES (${STATE_COLUMNS.map(() => '?').join(', ')})
  ON CONFLICT (page) DO UPDATE SET ${STATE_COLUMNS.filter((c) => c !== 'page')
    .map((c) => `${c} = excluded.${c}`)
    .join(', ')}`;

/**
 * Every incident in one statement, whatever their number: one JSON parameter that json_each reads (D1 binds
 * at most 100 parameters, and a free-plan invocation makes at most 50 queries). `WHERE true` tells SQLite's
 * parser that ON CONFLICT belongs to the INSERT, not to the SELECT's join.
 */
const UPSERT_INCIDENTS = `INSERT INTO vendor_incidents (page, id, name, impact, status, components, created_at, started_at, resolved_at, updated_at, updates, shortlink)
  SELECT ?1, value ->> '$.id', value ->> '$.name', value ->> '$.impact', value ->> '$.status', value -> '$.components',
    value ->> '$.created_at', value ->> '$.started_at', value ->> '$.resolved_at', value ->> '$.updated_at', value -> '$.updates',
    value ->> '$.shortlink'
  FROM json_each(?2) WHERE true
  ON CONFLICT (page, id) DO UPDATE SET name = excluded.name, impact = excluded.impact, status = excluded.status,
    components = excluded.components, created_at = excluded.created_at, started_at = excluded.started_at,
    resolved_at = excluded.resolved_at, updated_at = excluded.updated_at, updates = excluded.updates, shortlink = excluded.shortlink`;

/** A poll's changes in one transaction: the incidents that changed, then the page's state. */
export async function writePoll(db: D1Database, state: PageState, changed: readonly VendorIncident[]): Promise<void> {
  const statements: D1PreparedStatement[] = [];
  if (changed.length > 0) statements.push(db.prepare(UPSERT_INCIDENTS).bind(state.page, JSON.stringify(changed)));
  statements.push(
    db
      .prepare(UPSERT_STATE)
      .bind(
        state.page,
        state.url,
        state.etag,
        state.last_modified,
        JSON.stringify(state.fingerprints),
        state.watched_since,
        state.changed_at,
        state.error_kind,
        state.error,
        state.error_since,
      ),
  );
  await db.batch(statements);
}

function fromRow(r: Record<string, unknown>): PagedVendorIncident {
  return {
    page: String(r.page),
    id: String(r.id),
    name: String(r.name),
    impact: String(r.impact) as VendorIncident['impact'],
    status: String(r.status),
    components: JSON.parse(String(r.components)),
    created_at: Number(r.created_at),
    started_at: num(r.started_at),
    resolved_at: num(r.resolved_at),
    updated_at: Number(r.updated_at),
    updates: JSON.parse(String(r.updates)),
    shortlink: str(r.shortlink),
  };
}

export interface VendorIncidentFilter {
  /** Posted at or after this time, or still unresolved. */
  from: number;
  to: number;
  pages: readonly string[];
  limit: number;
}

/** Newest first. */
export async function listVendorIncidents(db: D1Database, f: VendorIncidentFilter): Promise<PagedVendorIncident[]> {
  if (f.pages.length === 0) return [];
  const pages = inList('page', f.pages);
  const { results } = await db
    .prepare(
      `SELECT ${VENDOR_TABLE_SHAPES.vendor_incidents.columns.join(', ')} FROM vendor_incidents
      WHERE (created_at >= ? OR resolved_at IS NULL) AND created_at < ? AND ${pages.sql} ORDER BY created_at DESC, id LIMIT ?`,
    )
    .bind(f.from, f.to, ...pages.params, f.limit)
    .all<Record<string, unknown>>();
  return results.map(fromRow);
}

/**
 * Each page's newest `perPage` incidents of the filter, newest first: what listVendorIncidents with `limit` ≤
 * perPage selects for any set of these pages is the first `limit` of these on those pages (the public views').
 */
export async function newestVendorIncidentsPerPage(
  db: D1Database,
  f: Omit<VendorIncidentFilter, 'limit'> & { perPage: number },
): Promise<PagedVendorIncident[]> {
  if (f.pages.length === 0) return [];
  const pages = inList('page', f.pages);
  const columns = VENDOR_TABLE_SHAPES.vendor_incidents.columns.join(', ');
  const { results } = await db
    .prepare(
      `SELECT ${columns} FROM (SELECT ${columns}, ROW_NUMBER() OVER (PARTITION BY page ORDER BY created_at DESC, id) AS n
      FROM vendor_incidents WHERE (created_at >= ? OR resolved_at IS NULL) AND created_at < ? AND ${pages.sql})
      WHERE n <= ? ORDER BY created_at DESC, id`,
    )
    .bind(f.from, f.to, ...pages.params, f.perPage)
    .all<Record<string, unknown>>();
  return results.map(fromRow);
}

/** These pages' incidents open at some time in [from, to): posted before `to`, not resolved before `from`; oldest first. */
export async function vendorIncidentsInSpan(
  db: D1Database,
  f: { from: number; to: number; pages: readonly string[] },
): Promise<PagedVendorIncident[]> {
  if (f.pages.length === 0) return [];
  const pages = inList('page', f.pages);
  const { results } = await db
    .prepare(
      `SELECT ${VENDOR_TABLE_SHAPES.vendor_incidents.columns.join(', ')} FROM vendor_incidents
      WHERE created_at < ? AND (resolved_at IS NULL OR resolved_at >= ?) AND ${pages.sql} ORDER BY created_at, id`,
    )
    .bind(f.to, f.from, ...pages.params)
    .all<Record<string, unknown>>();
  return results.map(fromRow);
}

/** Resolved vendor incidents posted before `before` (the rollups' retention). */
export async function deleteVendorIncidentsBefore(db: D1Database, before: number): Promise<number> {
  const r = await db.prepare('DELETE FROM vendor_incidents WHERE created_at < ? AND resolved_at IS NOT NULL').bind(before).run();
  return r.meta.changes ?? 0;
}
