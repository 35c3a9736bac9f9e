/** Time profiles (GET /api/v1/time-profiles, from its view): per variant and "region|target", the 7 × 24 cells. */
import type { TimeProfilesDoc } from '../../../../shared/api-types.ts';
import type { ProfileCell } from '../../../../shared/rollup/hour-profile.ts';
import type { SiteProfiles } from '../profiles.ts';
import type { SitePart } from './part.ts';

const HOURS = 24;

/** The answer's cells as the charts take them: weekday (0 Monday), hour, days, probes, median. */
export function siteProfiles(doc: TimeProfilesDoc): SiteProfiles {
  const out: SiteProfiles = {};
  for (const row of doc.rows)
    (out[row.prompt_variant] ??= {})[`${row.region}|${row.target}`] = row.cells.map(
      ([days, probes, ttft_p50], i): ProfileCell => ({ weekday: Math.floor(i / HOURS), hour: i % HOURS, days, probes, ttft_p50 }),
    );
  return out;
}

export const profilesPart: SitePart = {
  name: 'profiles',
  async collect({ api }) {
    return { profiles: siteProfiles(await api.view('time_profiles', 'timeProfiles').as<TimeProfilesDoc>()) };
  },
  empty() {
    return { profiles: {} };
  },
  fallback: { profiles: {} },
};
