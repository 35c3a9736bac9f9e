/** GET /api/v1/samples: the raw samples, filtered and paged. */
import { paramsOf } from '../../../shared/api-contract/params.ts';
import { Hono } from 'hono';
import { toCsv } from '../../../shared/csv.ts';
import { ERROR_CLASSES } from '../../../shared/ids.ts';
import { listSamples } from '../db/samples.ts';
import { SAMPLE_COLUMNS } from '../db/sample-row.ts';
import { badRequest } from './errors.ts';
import { boundRaw, csvResponse, filterFrom, windowOf } from './filters.ts';
import type { ReaderEnv } from './public-reads.ts';
import { onlyKnown, parseIntParam } from './query.ts';

export const sampleRoutes = new Hono<ReaderEnv>();

sampleRoutes.get('/samples', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, paramsOf('samples'));
  const filter = filterFrom(q, Date.now());
  const error = q.get('error');
  if (error !== null) {
    const allowed = ['ok', 'error', ...ERROR_CLASSES];
    if (!allowed.includes(error)) throw badRequest(`error must be one of ${allowed.join(', ')}, got "${error}"`);
    filter.error = error;
  }
  const limit = parseIntParam(q, 'limit', 100, 1, 1000);
  const cursor = q.has('cursor') ? parseIntParam(q, 'cursor', 0, 1, Number.MAX_SAFE_INTEGER) : undefined;
  boundRaw(c, filter.toTick - filter.fromTick, 'samples');
  const samples = await listSamples(c.env.DB, filter, limit, cursor);
  const next = samples.length === limit ? samples[samples.length - 1].id : null;
  if (q.get('format') === 'csv')
    return csvResponse(toCsv(samples as unknown as Array<Record<string, unknown>>, ['id', ...SAMPLE_COLUMNS]), 'samples.csv');
  return c.json({ window: windowOf(filter), samples, next_cursor: next });
});
