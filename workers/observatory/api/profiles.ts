/**
 * GET /api/v1/hour-profiles: the time profiles (shared/rollup/hour-profile.ts), a row per region × target ×
 * variant × UTC day with its 24 hours of TTFT (successful probes, median), in pages of whole days. Days are
 * written once they have ended, with the daily rollups.
 */
import { paramsOf } from '../../../shared/api-contract/params.ts';
import { Hono } from 'hono';
import { METHOD_VERSION } from '../../../shared/constants.ts';
import { ANON_LIMITS, PROFILE_PAGE_ROWS, SITE_PROFILE_DAYS } from '../../../shared/config/read-limits.ts';
import type { TimeProfilesDoc } from '../../../shared/api-types.ts';
import { profileCells } from '../../../shared/rollup/hour-profile.ts';
import { DAY_MS } from '../../../shared/time.ts';
import { profilePage, profilesIn, type ProfileDay } from '../db/profiles.ts';
import { pairLists, periodWindow, storedJsonPage } from './filters.ts';
import { requireTokenFor, type ReaderEnv } from './public-reads.ts';
import { onlyKnown } from './query.ts';

export const profileRoutes = new Hono<ReaderEnv>();

profileRoutes.get('/hour-profiles', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, paramsOf('hourProfiles'));
  const { from, to, start } = periodWindow(q, DAY_MS, '28d');
  if (to - from > ANON_LIMITS.hourlyWindowDays * DAY_MS)
    requireTokenFor(c, `time profiles over more than ${ANON_LIMITS.hourlyWindowDays} days`);
  const page = await profilePage(
    c.env.DB,
    {
      fromDay: start,
      toDay: to,
      methodVersion: METHOD_VERSION,
      ...pairLists(q),
    },
    PROFILE_PAGE_ROWS,
  );
  const head = {
    window: { from: new Date(from).toISOString(), to: new Date(Math.max(from, to)).toISOString() },
    hours: 'UTC hour 0-23 → [successful probes, TTFT p50 ms or null]',
  };
  return storedJsonPage(head, page.rows, 'hours', page.next);
});

/**
 * GET /api/v1/time-profiles: each region × target × variant's hour × weekday profile over whole UTC days (default
 * the 28 before today, four of each weekday): per cell, in weekday-major order (Monday 0 h first, index weekday × 24 + hour),
 * `[days, probes, ttft_p50]`, the median of the days' hourly TTFT medians (null with too little data), from the
 * same rows as /api/v1/hour-profiles, computed here once (shared/rollup/hour-profile.ts).
 */
profileRoutes.get('/time-profiles', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, paramsOf('timeProfiles'));
  // By default the SITE_PROFILE_DAYS whole days before today: four of each weekday.
  const { from, to } = q.has('window') || q.has('from') ? periodWindow(q, DAY_MS) : profileDays(Date.now());
  if (to - from > ANON_LIMITS.hourlyWindowDays * DAY_MS)
    requireTokenFor(c, `time profiles over more than ${ANON_LIMITS.hourlyWindowDays} days`);
  return c.json(
    timeProfilesDocument(
      await profilesIn(c.env.DB, { fromDay: from, toDay: to, methodVersion: METHOD_VERSION, ...pairLists(q) }),
      from,
      to,
    ),
  );
});

/** The whole UTC days a profile covers by default: the SITE_PROFILE_DAYS before today's. */
export function profileDays(now: number): { from: number; to: number } {
  const to = Math.floor(now / DAY_MS) * DAY_MS;
  return { from: to - SITE_PROFILE_DAYS * DAY_MS, to };
}

/** The answer of GET /api/v1/time-profiles from the days' rows: the live route's, and the view's. */
export function timeProfilesDocument(rows: readonly ProfileDay[], from: number, to: number): TimeProfilesDoc {
  const groups = new Map<string, ProfileDay[]>();
  for (const r of rows) {
    const key = `${r.region}\u0000${r.target}\u0000${r.prompt_variant}`;
    const list = groups.get(key) ?? groups.set(key, []).get(key)!;
    list.push(r);
  }
  return {
    window: { from: new Date(from).toISOString(), to: new Date(Math.max(from, to)).toISOString() },
    cells: 'weekday × 24 + hour (0: Monday 00:00 UTC) → [days, successful probes, median of the days’ TTFT p50 ms or null]',
    rows: [...groups.values()]
      .map((days) => ({
        region: days[0].region,
        target: days[0].target,
        prompt_variant: days[0].prompt_variant,
        cells: profileCells(days).map((cell): [number, number, number | null] => [cell.days, cell.probes, cell.ttft_p50]),
      }))
      .sort(
        (a, b) => a.region.localeCompare(b.region) || a.target.localeCompare(b.target) || a.prompt_variant.localeCompare(b.prompt_variant),
      ),
  };
}
