/** Every SQL statement of the status rules and incidents, each a named function with bound parameters. */
import { inList, ONLY_LIST_VALUES } from './in-list.ts';
import type { WindowSample } from '../../../shared/status/evaluate.ts';
import type { Incident } from '../../../shared/status/incidents.ts';

export interface RegionWindowRow extends WindowSample {
  target: string;
  prompt_variant: string;
}

/**
 * One region's samples of the given ticks at one method version: what its evaluation reads. A seek
 * per tick on the key's first two columns (tick_id, region), so only this region's rows are read.
 */
export async function regionWindow(db: D1Database, region: string, ticks: number[], methodVersion: number): Promise<RegionWindowRow[]> {
  if (ticks.length === 0) return [];
  const t = inList('tick_id', ticks, ONLY_LIST_VALUES);
  const { results } = await db
    .prepare(`SELECT target, prompt_variant, tick_id, error, ttft_ms, itl_p99_ms, decode_tps, network_ms, server_ms
    FROM samples WHERE ${t.sql} AND region = ? AND method_version = ?`)
    .bind(...t.params, region, methodVersion)
    .all<RegionWindowRow>();
  return results;
}

const INCIDENT_COLUMNS = [
  'id',
  'target',
  'prompt_variant',
  'status',
  'severity',
  'scope',
  'regions',
  'rules',
  'opened_at',
  'updated_at',
  'resolved_at',
  'timeline',
  'points',
];
const UPSERT_INCIDENT = `INSERT INTO incidents (${INCIDENT_COLUMNS.join(', ')}) VALUES (${INCIDENT_COLUMNS.map(() => '?').join(', ')})
  ON CONFLICT (id) DO UPDATE SET ${INCIDENT_COLUMNS.filter((c) => c !== 'id')
    .map((c) => `${c} = excluded.${c}`)
    .join(', ')}`;

export async function upsertIncidents(db: D1Database, incidents: Incident[]): Promise<void> {
  if (incidents.length === 0) return;
  const stmt = db.prepare(UPSERT_INCIDENT);
  await db.batch(
    incidents.map((i) =>
      stmt.bind(
        i.id,
        i.target,
        i.variant,
        i.status,
        i.severity,
        i.scope,
        JSON.stringify(i.regions),
        JSON.stringify(i.rules),
        i.opened_at,
        i.updated_at,
        i.resolved_at,
        JSON.stringify(i.timeline),
        JSON.stringify(i.points),
      ),
    ),
  );
}

function fromIncidentRow(r: Record<string, unknown>, withPoints: boolean): Incident {
  return {
    id: String(r.id),
    target: String(r.target),
    variant: String(r.prompt_variant),
    status: r.status as Incident['status'],
    severity: r.severity as Incident['severity'],
    scope: r.scope as Incident['scope'],
    regions: JSON.parse(String(r.regions)),
    rules: JSON.parse(String(r.rules)),
    opened_at: Number(r.opened_at),
    updated_at: Number(r.updated_at),
    resolved_at: r.resolved_at === null ? null : Number(r.resolved_at),
    timeline: JSON.parse(String(r.timeline)),
    points: withPoints ? JSON.parse(String(r.points)) : [],
  };
}

/** The incidents' order: newest first, and incidents opened at one tick (two variants of a target) by id. */
const NEWEST_FIRST = 'opened_at DESC, id';

export interface IncidentFilter {
  /** Incidents opened at or after this time, or still open. */
  from: number;
  status?: 'open' | 'resolved';
  target?: string;
  limit: number;
  withPoints: boolean;
}

/** Newest first. */
export async function listIncidents(db: D1Database, f: IncidentFilter): Promise<Incident[]> {
  const clauses = ["(opened_at >= ? OR status = 'open')"];
  const params: Array<string | number> = [f.from];
  if (f.status) {
    clauses.push('status = ?');
    params.push(f.status);
  }
  if (f.target) {
    clauses.push('target = ?');
    params.push(f.target);
  }
  const columns = f.withPoints ? INCIDENT_COLUMNS : INCIDENT_COLUMNS.filter((c) => c !== 'points');
  const { results } = await db
    .prepare(`SELECT ${columns.join(', ')} FROM incidents WHERE ${clauses.join(' AND ')} ORDER BY ${NEWEST_FIRST} LIMIT ?`)
    .bind(...params, f.limit)
    .all<Record<string, unknown>>();
  return results.map((r) => fromIncidentRow(r, f.withPoints));
}

/**
 * For each target × status, its newest `perKey` incidents opened at or after `from` (or still open), newest first:
 * what any listIncidents of that window with `limit` ≤ perKey selects, whatever its target and status filter, is
 * the first `limit` of these that pass the filter (what the public views of the incidents hold).
 */
export async function newestIncidentsPerKey(db: D1Database, f: { from: number; perKey: number; withPoints: boolean }): Promise<Incident[]> {
  const columns = (f.withPoints ? INCIDENT_COLUMNS : INCIDENT_COLUMNS.filter((c) => c !== 'points')).join(', ');
  const { results } = await db
    .prepare(
      `SELECT ${columns} FROM (SELECT ${columns}, ROW_NUMBER() OVER (PARTITION BY target, status ORDER BY ${NEWEST_FIRST}) AS n
      FROM incidents WHERE (opened_at >= ? OR status = 'open')) WHERE n <= ? ORDER BY ${NEWEST_FIRST}`,
    )
    .bind(f.from, f.perKey)
    .all<Record<string, unknown>>();
  return results.map((r) => fromIncidentRow(r, f.withPoints));
}

/**
 * The incidents open at some time in [from, to): opened before `to`, and not resolved before `from`; oldest first,
 * without their points (a weekly report's, reports/build-report.ts).
 */
export async function incidentsInSpan(db: D1Database, from: number, to: number): Promise<Incident[]> {
  const columns = INCIDENT_COLUMNS.filter((c) => c !== 'points');
  const { results } = await db
    .prepare(
      `SELECT ${columns.join(', ')} FROM incidents WHERE opened_at < ? AND (resolved_at IS NULL OR resolved_at >= ?) ORDER BY opened_at, id`,
    )
    .bind(to, from)
    .all<Record<string, unknown>>();
  return results.map((r) => fromIncidentRow(r, false));
}

export async function deleteIncidentsBefore(db: D1Database, before: number): Promise<number> {
  const r = await db.prepare("DELETE FROM incidents WHERE opened_at < ? AND status = 'resolved'").bind(before).run();
  return r.meta.changes ?? 0;
}
