/** GET /metrics: the running totals in the Prometheus text format. */
import { Hono } from 'hono';
import { METHOD_VERSION } from '../../../shared/constants.ts';
import { getConfig } from '../config.ts';
import { rollupTotals } from '../db/rollups.ts';
import { PROMETHEUS_CONTENT_TYPE, prometheusText } from './prometheus.ts';
import type { ReaderEnv } from './public-reads.ts';
import { onlyKnown, parseList } from './query.ts';

export const metricsRoutes = new Hono<ReaderEnv>();

// `region=…` (one or more): a scrape of some regions only. At the free-plan goal (6 × 10) a scrape of every pair
// fits a free-plan request's CPU (bench/duties.ts: about 1 ms of the 5 its duties are held to, D1's response included).
metricsRoutes.get('/metrics', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, ['region']);
  const totals = await rollupTotals(c.env.DB, {
    methodVersion: METHOD_VERSION,
    regions: parseList(
      q,
      'region',
      getConfig().regions.map((r) => r.code),
    ),
  });
  return new Response(prometheusText(totals), { headers: { 'content-type': PROMETHEUS_CONTENT_TYPE } });
});
