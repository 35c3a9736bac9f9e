/** Time profiles in D1 (migrations/0012_hour_profiles.sql): a row per region × target × variant × day. */
import type { HourProfile } from '../../../shared/rollup/hour-profile.ts';
import { DAY_MS } from '../../../shared/time.ts';
import { inList } from './in-list.ts';

/** The table's columns and key as the code writes them (tests/workers/schema.test.ts holds the migration to them). */
export const PROFILE_TABLE_SHAPE = {
  columns: ['day', 'region', 'target', 'prompt_variant', 'method_version', 'hours'],
  key: ['day', 'region', 'target', 'prompt_variant', 'method_version'],
} as const;

const UPSERT = `INSERT INTO hour_profiles (day, region, target, prompt_variant, method_version, hours) VALUES (?, ?, ?, ?, ?, ?)
  ON CONFLICT (day, region, target, prompt_variant, method_version) DO UPDATE SET hours = excluded.hours`;

/** The statements writing one region's day of profiles (run in the daily rollup's batch). */
export function upsertProfileStatements(db: D1Database, rows: readonly HourProfile[]): D1PreparedStatement[] {
  const upsert = db.prepare(UPSERT);
  return rows.map((r) => upsert.bind(r.day, r.region, r.target, r.prompt_variant, r.method_version, JSON.stringify(r.hours)));
}

/** Retention, with the daily rollups: days wholly before `beforeHour`. */
export function deleteProfilesBefore(db: D1Database, beforeHour: number): D1PreparedStatement {
  return db.prepare('DELETE FROM hour_profiles WHERE day + ? <= ?').bind(DAY_MS, beforeHour);
}

export interface ProfileFilter {
  fromDay: number;
  toDay: number;
  methodVersion: number;
  regions?: string[];
  targets?: string[];
  variants?: string[];
}

/** A page of rows as stored (their hours' JSON untouched), whole days from `fromDay` on, at most `limit` rows. */
export async function profilePage(
  db: D1Database,
  f: ProfileFilter,
  limit: number,
): Promise<{ rows: Array<{ day: number; region: string; target: string; prompt_variant: string; hours: string }>; next: number | null }> {
  const clauses = ['day >= ?', 'day < ?', 'method_version = ?'];
  const params: Array<string | number> = [f.fromDay, f.toDay, f.methodVersion];
  for (const [column, values] of [
    ['region', f.regions],
    ['target', f.targets],
    ['prompt_variant', f.variants],
  ] as const) {
    if (!values) continue;
    const list = inList(column, values);
    clauses.push(list.sql);
    params.push(...list.params);
  }
  const { results } = await db
    .prepare(
      `SELECT day, region, target, prompt_variant, hours FROM hour_profiles WHERE ${clauses.join(' AND ')} ORDER BY day, region, target, prompt_variant LIMIT ?`,
    )
    .bind(...params, limit + 1)
    .all<{ day: number; region: string; target: string; prompt_variant: string; hours: string }>();
  if (results.length <= limit) return { rows: results, next: null };
  const last = Number(results[limit].day);
  const whole = results.filter((r) => Number(r.day) < last);
  return whole.length > 0 ? { rows: whole, next: last } : { rows: results, next: null };
}
