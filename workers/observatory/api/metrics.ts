/** GET /metrics: the running totals in the Prometheus text format. */
import { paramsOf } from '../../../shared/api-contract/params.ts';
import { Hono } from 'hono';
import { METHOD_VERSION } from '../../../shared/constants.ts';
import { getConfig } from '../config.ts';
import { rollupTotals } from '../db/rollups.ts';
import { PROMETHEUS_CONTENT_TYPE, prometheusText } from './prometheus.ts';
import type { ReaderEnv } from './public-reads.ts';
import { onlyKnown, parseList } from './query.ts';

export const metricsRoutes = new Hono<ReaderEnv>();

/** The scrape of these regions' totals (every region's when none are named): the route's answer, and its views'. */
export async function metricsText(db: D1Database, regions?: string[]): Promise<string> {
  return prometheusText(await rollupTotals(db, { methodVersion: METHOD_VERSION, regions }));
}

/** A query's `region` list, each a configured region (undefined: all of them). */
export const metricsRegions = (q: URLSearchParams): string[] | undefined =>
  parseList(
    q,
    'region',
    getConfig().regions.map((r) => r.code),
  );

// `region=…` (one or more): a scrape of some regions only. At the free-plan goal (6 × 10) a scrape of every pair
// fits a free-plan request's CPU (bench/duties.ts: about 1 ms of the 5 its duties are held to, D1's response included). The public views hold
// every region's scrape and each region's, so an anonymous scrape of either costs no D1 read (views/metrics-views.ts).
metricsRoutes.get('/metrics', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, paramsOf('metrics'));
  return new Response(await metricsText(c.env.DB, metricsRegions(q)), { headers: { 'content-type': PROMETHEUS_CONTENT_TYPE } });
});
