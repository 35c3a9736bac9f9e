/** Time profiles for the site: each region × target × variant's 7 × 24 cells from the days the build read. */
import { profileCells, type ProfileCell } from '../../../shared/rollup/hour-profile.ts';

export interface ProfileRow {
  day: number;
  region: string;
  target: string;
  prompt_variant: string;
  hours: Array<[number, number | null]>;
}

/** variant → "region|target" → its cells. */
export type SiteProfiles = Record<string, Record<string, ProfileCell[]>>;

export function siteProfiles(rows: readonly ProfileRow[]): SiteProfiles {
  const groups = new Map<string, ProfileRow[]>();
  for (const r of rows) {
    const key = `${r.prompt_variant}|${r.region}|${r.target}`;
    let list = groups.get(key);
    if (!list) groups.set(key, (list = []));
    list.push(r);
  }
  const out: SiteProfiles = {};
  for (const [key, days] of groups) {
    const [variant, region, target] = key.split('|');
    (out[variant] ??= {})[`${region}|${target}`] = profileCells(days);
  }
  return out;
}
