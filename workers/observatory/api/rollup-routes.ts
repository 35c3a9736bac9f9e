/** GET /api/v1/rollups: the hourly or daily rollup rows themselves, paged by whole periods. */
import { paramsOf } from '../../../shared/api-contract/params.ts';
import { Hono } from 'hono';
import { ANON_LIMITS, ROLLUP_PAGE_ROWS } from '../../../shared/config/read-limits.ts';
import { rollupToBase64Json, rollupToJson } from '../../../shared/rollup/rollup.ts';
import { HISTOGRAM_RELATIVE_ERROR, HISTOGRAM_SCALE } from '../../../shared/stats/exp-histogram.ts';
import { DAY_MS, HOUR_MS } from '../../../shared/time.ts';
import { rollupPage } from '../db/rollups.ts';
import { ANON_HOURLY_MS, filterFrom, periodWindow, selectedPairs } from './filters.ts';
import { requireTokenFor, type ReaderEnv } from './public-reads.ts';
import { onlyKnown, parseChoice, parseIntParam } from './query.ts';

export const rollupRoutes = new Hono<ReaderEnv>();

/**
 * The rollup rows themselves, for a reader that merges windows of its own (the site build does): hourly
 * rows, or daily ones (whole UTC days, written once a day has ended), histograms in their JSON form or,
 * with `histograms=base64`, as their stored bytes. A page holds whole periods, at most ROLLUP_PAGE_ROWS
 * rows (what a free-plan request decodes or encodes within half its CPU, bench/duties.ts); `next_cursor`
 * asks for the next.
 */
rollupRoutes.get('/rollups', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, paramsOf('rollups'));
  const form = parseChoice(q, 'histograms', ['json', 'base64'] as const, 'json');
  const limit = parseIntParam(q, 'limit', ROLLUP_PAGE_ROWS[form], 1, ROLLUP_PAGE_ROWS[form]);
  const now = Date.now();
  const filter = filterFrom(q, now);
  const resolution = parseChoice(q, 'resolution', ['hour', 'day'] as const, 'hour');
  const { from, to, start } = periodWindow(q, resolution === 'day' ? DAY_MS : HOUR_MS, undefined, now);
  if (resolution === 'hour' && to - from > ANON_HOURLY_MS)
    requireTokenFor(c, `hourly rollups over more than ${ANON_LIMITS.hourlyWindowDays} days (resolution=day reads a row a day)`);
  const page =
    start < to
      ? await rollupPage(
          c.env.DB,
          {
            fromHour: start,
            toHour: to,
            resolution,
            methodVersion: filter.methodVersion!,
            regions: filter.regions,
            targets: filter.targets,
            variants: filter.variants,
          },
          limit,
          selectedPairs(filter),
        )
      : { rows: [], next: null };
  return c.json({
    resolution,
    // The whole hours (days) inside the asked window.
    window: { from: new Date(from).toISOString(), to: new Date(Math.max(from, to)).toISOString() },
    method_version: filter.methodVersion,
    histogram: `base-2 exponential, scale ${HISTOGRAM_SCALE} (OpenTelemetry ExponentialHistogram layout); bucket [index, count] holds values in (base^index, base^(index+1)], base = 2^(2^-${HISTOGRAM_SCALE}); values in ms (decode_tps in tokens/s)${form === 'base64' ? '; each histogram (and the split) as base64 of its canonical bytes: shared/stats/exp-histogram.ts encodeHistogram, shared/rollup/rollup.ts encodeSplit' : ''}`,
    relative_error: HISTOGRAM_RELATIVE_ERROR,
    rows: form === 'base64' ? page.rows.map(rollupToBase64Json) : page.rows.map(rollupToJson),
    next_cursor: page.next,
  });
});
