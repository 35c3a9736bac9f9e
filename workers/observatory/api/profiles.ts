/**
 * GET /api/v1/hour-profiles: the time profiles (shared/rollup/hour-profile.ts), a row per region × target ×
 * variant × UTC day with its 24 hours of TTFT (successful probes, median), in pages of whole days. Days are
 * written once they have ended, with the daily rollups.
 */
import { Hono } from 'hono';
import { METHOD_VERSION } from '../../../shared/constants.ts';
import { ANON_LIMITS, PROFILE_PAGE_ROWS } from '../../../shared/config/read-limits.ts';
import { DAY_MS } from '../../../shared/time.ts';
import { getConfig } from '../config.ts';
import { profilePage } from '../db/profiles.ts';
import { WINDOW_PARAMS } from './filters.ts';
import { requireTokenFor, type ReaderEnv } from './public-reads.ts';
import { onlyKnown, parseInt, parseList, parseWindow } from './query.ts';

export const profileRoutes = new Hono<ReaderEnv>();

profileRoutes.get('/api/v1/hour-profiles', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, [...WINDOW_PARAMS, 'region', 'target', 'variant', 'cursor']);
  if (!q.has('window') && !q.has('from')) q.set('window', '28d');
  const config = getConfig();
  const w = parseWindow(q, Date.now());
  const fromDay = Math.ceil(w.from / DAY_MS) * DAY_MS;
  const toDay = Math.floor(w.to / DAY_MS) * DAY_MS;
  if (toDay - fromDay > ANON_LIMITS.hourlyWindowDays * DAY_MS)
    requireTokenFor(c, `time profiles over more than ${ANON_LIMITS.hourlyWindowDays} days`);
  const start = q.has('cursor') ? parseInt(q, 'cursor', fromDay, Math.min(fromDay, toDay), Math.max(fromDay, toDay)) : fromDay;
  const page = await profilePage(
    c.env.DB,
    {
      fromDay: start,
      toDay,
      methodVersion: METHOD_VERSION,
      regions: parseList(
        q,
        'region',
        config.regions.map((r) => r.code),
      ),
      targets: parseList(
        q,
        'target',
        config.targets.map((t) => t.id),
      ),
      variants: parseList(
        q,
        'variant',
        config.promptVariants.map((v) => v.id),
      ),
    },
    PROFILE_PAGE_ROWS,
  );
  // The stored JSON goes out as it is.
  const rows = page.rows.map(
    (r) =>
      `{"day":${Number(r.day)},"region":${JSON.stringify(r.region)},"target":${JSON.stringify(r.target)},"prompt_variant":${JSON.stringify(r.prompt_variant)},"hours":${r.hours}}`,
  );
  const window = JSON.stringify({ from: new Date(fromDay).toISOString(), to: new Date(Math.max(fromDay, toDay)).toISOString() });
  const body = `{"window":${window},"hours":"UTC hour 0-23 → [successful probes, TTFT p50 ms or null]","rows":[${rows.join(',')}],"next_cursor":${page.next ?? 'null'}}`;
  return c.body(body, 200, { 'content-type': 'application/json; charset=utf-8' });
});
