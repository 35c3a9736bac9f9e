/** The hours' place records in D1 (migrations/0017_hour_places.sql): a row per region × target × variant × hour. */
import type { HourPlaces } from '../../../shared/rollup/hour-places.ts';
import { periodWhere, type PeriodFilter } from './periods.ts';

/** The table's columns and key as the code writes them (tests/workers/schema.test.ts holds the migration to them). */
export const PLACES_TABLE_SHAPE = {
  columns: ['hour', 'region', 'target', 'prompt_variant', 'samples', 'last_started_at', 'colos', 'served', 'fidelity'],
  key: ['hour', 'region', 'target', 'prompt_variant'],
} as const;

const COLUMNS = PLACES_TABLE_SHAPE.columns;
const UPSERT = `INSERT INTO hour_places (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})
  ON CONFLICT (${PLACES_TABLE_SHAPE.key.join(', ')}) DO UPDATE SET ${COLUMNS.filter(
    (c) => !(PLACES_TABLE_SHAPE.key as readonly string[]).includes(c),
  )
    .map((c) => `${c} = excluded.${c}`)
    .join(', ')}`;

/** The statements writing one region's hour of place records (run in the rollup's batch). */
export function upsertPlacesStatements(db: D1Database, rows: readonly HourPlaces[]): D1PreparedStatement[] {
  const upsert = db.prepare(UPSERT);
  return rows.map((r) =>
    upsert.bind(
      r.hour,
      r.region,
      r.target,
      r.prompt_variant,
      r.samples,
      r.last_started_at,
      JSON.stringify(r.colos),
      JSON.stringify(r.served),
      JSON.stringify(r.fidelity),
    ),
  );
}

/** The records of hours in [from, to), for the regions, targets and variants asked. */
export async function placesIn(db: D1Database, f: Omit<PeriodFilter, 'methodVersion'>): Promise<HourPlaces[]> {
  const where = periodWhere('hour', f);
  const { results } = await db
    .prepare(`SELECT ${COLUMNS.join(', ')} FROM hour_places WHERE ${where.sql} ORDER BY ${PLACES_TABLE_SHAPE.key.join(', ')}`)
    .bind(...where.params)
    .all<Record<string, unknown>>();
  return results.map((r) => ({
    hour: Number(r.hour),
    region: String(r.region),
    target: String(r.target),
    prompt_variant: String(r.prompt_variant),
    samples: Number(r.samples),
    last_started_at: Number(r.last_started_at),
    colos: JSON.parse(String(r.colos)),
    served: JSON.parse(String(r.served)),
    fidelity: JSON.parse(String(r.fidelity)),
  }));
}

/** Retention, with the raw samples they summarise: hours before `beforeHour`. Returns rows deleted. */
export async function deletePlacesBefore(db: D1Database, beforeHour: number): Promise<number> {
  return (await db.prepare('DELETE FROM hour_places WHERE hour < ?').bind(beforeHour).run()).meta.changes ?? 0;
}
