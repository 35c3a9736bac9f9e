/** Time profiles in D1 (migrations/0012_hour_profiles.sql): a row per region × target × variant × day. */
import type { HourProfile } from '../../../shared/rollup/hour-profile.ts';
import { DAY_MS } from '../../../shared/time.ts';
import { periodWhere, wholePeriodPage } from './periods.ts';

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

/** A stored row: its day and group, and its 24 hours as the JSON text D1 holds. */
export interface StoredProfileRow {
  day: number;
  region: string;
  target: string;
  prompt_variant: string;
  hours: string;
}

async function profileRowsIn(db: D1Database, f: ProfileFilter, limit?: number): Promise<StoredProfileRow[]> {
  const where = periodWhere('day', { ...f, from: f.fromDay, to: f.toDay });
  const { results } = await db
    .prepare(
      `SELECT day, region, target, prompt_variant, hours FROM hour_profiles WHERE ${where.sql} ORDER BY day, region, target, prompt_variant${limit !== undefined ? ' LIMIT ?' : ''}`,
    )
    .bind(...where.params, ...(limit !== undefined ? [limit] : []))
    .all<StoredProfileRow>();
  return results.map((r) => ({ ...r, day: Number(r.day) }));
}

/** A day's row with its hours read: what a profile is computed from. */
export interface ProfileDay {
  day: number;
  region: string;
  target: string;
  prompt_variant: string;
  hours: Array<[number, number | null]>;
}

/** Every row of the days [fromDay, toDay) asked for, its hours parsed. */
export async function profilesIn(db: D1Database, f: ProfileFilter): Promise<ProfileDay[]> {
  return (await profileRowsIn(db, f)).map((r) => ({ ...r, hours: JSON.parse(r.hours) as ProfileDay['hours'] }));
}

/** A page of rows as stored (their hours' JSON untouched), whole days from `fromDay` on, at most about `limit` rows. */
export function profilePage(db: D1Database, f: ProfileFilter, limit: number): Promise<{ rows: StoredProfileRow[]; next: number | null }> {
  return wholePeriodPage(
    (from, to, most) => profileRowsIn(db, { ...f, fromDay: from, toDay: to }, most),
    (r) => r.day,
    f.fromDay,
    f.toDay,
    limit,
  );
}
