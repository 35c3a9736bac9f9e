/**
 * GET /api/v1/hour-profiles: the time profiles (shared/rollup/hour-profile.ts), a row per region × target ×
 * variant × UTC day with its 24 hours of TTFT (successful probes, median), in pages of whole days. Days are
 * written once they have ended, with the daily rollups.
 */
import { Hono } from 'hono';
import { METHOD_VERSION } from '../../../shared/constants.ts';
import { ANON_LIMITS, PROFILE_PAGE_ROWS } from '../../../shared/config/read-limits.ts';
import { DAY_MS } from '../../../shared/time.ts';
import { profilePage } from '../db/profiles.ts';
import { pairLists, periodWindow, storedJsonPage, WINDOW_PARAMS } from './filters.ts';
import { requireTokenFor, type ReaderEnv } from './public-reads.ts';
import { onlyKnown } from './query.ts';

export const profileRoutes = new Hono<ReaderEnv>();

profileRoutes.get('/api/v1/hour-profiles', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, [...WINDOW_PARAMS, 'region', 'target', 'variant', 'cursor']);
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
