/**
 * GET /api/v1/changes: has a target's time to the first answer token changed, region by region, this week (the
 * last 7 whole days) against the four before? Days are the unit (shared/rollup/changes.ts); from the daily rollups
 * of the 35 days, a row per region × target × variant and day. Narrowed by region, target and variant: each is
 * judged on its own days, so a narrowed answer is the whole one's flags of them.
 */
import { paramsOf } from '../../../shared/api-contract/params.ts';
import { Hono } from 'hono';
import type { ChangesDoc } from '../../../shared/api-types.ts';
import { METHOD_VERSION } from '../../../shared/constants.ts';
import { CHANGE_PAIRS_PER_REQUEST } from '../../../shared/config/read-limits.ts';
import { BEFORE_DAYS, ttfaChanges, WEEK_DAYS, type ChangeFlag } from '../../../shared/rollup/changes.ts';
import type { Rollup } from '../../../shared/rollup/rollup.ts';
import { DEFAULT_MARGIN } from '../../../shared/stats/paired.ts';
import { DAY_MS } from '../../../shared/time.ts';
import { getConfig, storedList } from '../config.ts';
import { rollupsIn } from '../db/rollups.ts';
import { ApiError } from './errors.ts';
import { pairLists } from './filters.ts';
import type { ReaderEnv } from './public-reads.ts';
import { onlyKnown } from './query.ts';

export const changesRoutes = new Hono<ReaderEnv>();

/** The 35 days the changes of `now` compare: the four weeks before and this week, ending at today's start (UTC). */
export function changesSpan(now: number): { from: number; split: number; to: number } {
  const to = Math.floor(now / DAY_MS) * DAY_MS;
  const split = to - WEEK_DAYS * DAY_MS;
  return { from: split - BEFORE_DAYS * DAY_MS, split, to };
}

/** The daily rows the changes of `now` read, for these lists (every region, target and variant when absent). */
export function changeRows(
  db: D1Database,
  now: number,
  lists: { regions?: string[]; targets?: string[]; variants?: string[] },
): Promise<Rollup[]> {
  const { from, to } = changesSpan(now);
  return rollupsIn(db, { fromHour: from, toHour: to, resolution: 'day', methodVersion: METHOD_VERSION, ...lists });
}

/** The answer: the flags of these rows (shared/rollup/changes.ts), largest first. */
export function changesDocument(now: number, rows: readonly Rollup[]): ChangesDoc {
  const span = changesSpan(now);
  const changes: ChangeFlag[] = ttfaChanges(rows, span.to, DEFAULT_MARGIN);
  const iso = (t: number) => new Date(t).toISOString();
  return {
    window: { from: iso(span.from), split: iso(span.split), to: iso(span.to) },
    margin_pct: DEFAULT_MARGIN * 100,
    method: `days as the unit: each day's median TTFA (a day with at least the samples of an hour of ticks); the two-sample Hodges-Lehmann shift of ln(daily median), the last ${WEEK_DAYS} days against the ${BEFORE_DAYS} before, with its Mann-Whitney 95 % interval; flagged only when that whole interval lies past ±margin_pct (change_pct = 100(e^shift - 1), positive when slower)`,
    changes,
  };
}

changesRoutes.get('/changes', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, paramsOf('changes'));
  const config = getConfig();
  const lists = pairLists(q);
  // What the rows merge: 35 daily rows a region × target × variant.
  const pairs = config.regions
    .filter((r) => !lists.regions || lists.regions.includes(r.code))
    .reduce(
      (n, r) =>
        n +
        storedList(r.code).filter(
          (w) => (!lists.targets || lists.targets.includes(w.target.id)) && (!lists.variants || lists.variants.includes(w.variant.id)),
        ).length,
      0,
    );
  const cap = CHANGE_PAIRS_PER_REQUEST[config.plan];
  if (pairs > cap)
    throw new ApiError(
      400,
      'too_much_work',
      `this selection holds ${pairs} region × target × variant series of ${WEEK_DAYS + BEFORE_DAYS} days; one request judges at most ${cap} on the ${config.plan} plan (what fits its CPU): ask per region, or name the targets (target=a,b,…)`,
    );
  const now = Date.now();
  return c.json(changesDocument(now, await changeRows(c.env.DB, now, lists)));
});
