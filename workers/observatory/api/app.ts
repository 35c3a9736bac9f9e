/**
 * The observatory's HTTP API: the public reads under /api/v1 (JSON, or CSV with format=csv), /metrics, and
 * the admin routes. Wiring only: each area's routes live in a module of their own.
 */
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { ConfigError } from '../../../shared/config/validate.ts';
import { DO_REQUESTS_HEADER, ROWS_READ_HEADER, ROWS_WRITTEN_HEADER } from '../../../shared/constants.ts';
import { meterDurableObjects } from '../do-meter.ts';
import { meterD1 } from '../db/meter.ts';
import { archiveAdminRoutes, archiveRoutes } from './archive.ts';
import { burstRoutes } from './bursts.ts';
import { catalogRoutes } from './catalog.ts';
import { changesRoutes } from './changes.ts';
import { compareRoutes } from './compare.ts';
import { profileRoutes } from './profiles.ts';
import { promptCacheRoutes } from './prompt-cache.ts';
import { statusHistoryRoutes } from './status-history.ts';
import { uptimeRoutes } from './uptime.ts';
import { ApiError } from './errors.ts';
import { healthRoutes } from './health.ts';
import { metricsRoutes } from './metrics.ts';
import { percentileRoutes } from './percentile-routes.ts';
import { anonymousReaders, liveBudget, type ReaderEnv } from './public-reads.ts';
import { rollupRoutes } from './rollup-routes.ts';
import { sampleRoutes } from './samples.ts';
import { statusRoutes } from './status.ts';
import { tickRoutes } from './ticks.ts';
import { timelineRoutes } from './timeline.ts';
import { vendorIncidentRoutes } from './vendor-incidents.ts';
import { viewRoutes } from './views.ts';
import { placeRoutes } from './places.ts';
import { openApiRoutes } from './openapi.ts';
import { reportRoutes } from './reports.ts';
import { serveViews } from '../views/serve-view.ts';

const app = new Hono<ReaderEnv>();
// What each response cost in D1 rows and Durable Object requests (what they bill), so a reader such as the site
// build can count its reads, and the anonymous budget what they spent.
app.use('*', async (c, next) => {
  const d1 = meterD1(c.env.DB);
  const objects = meterDurableObjects(c.env);
  c.env = { ...c.env, DB: d1.db, ...objects.bindings };
  c.set('cost', () => ({ rows: d1.rowsRead, doRequests: objects.requests }));
  await next();
  c.res.headers.set(ROWS_READ_HEADER, String(d1.rowsRead));
  c.res.headers.set(ROWS_WRITTEN_HEADER, String(d1.rowsWritten));
  c.res.headers.set(DO_REQUESTS_HEADER, String(objects.requests));
});

app.use(
  '/api/v1/*',
  cors({
    origin: '*',
    allowMethods: ['GET', 'HEAD', 'OPTIONS'],
    exposeHeaders: [ROWS_READ_HEADER, ROWS_WRITTEN_HEADER, DO_REQUESTS_HEADER],
  }),
);
// The API's own document: constant, so before the read gates (no D1 row, no Durable Object, no budget).
app.route('/', openApiRoutes);
// The weekly reports come from R2 alone (no D1 row, no Durable Object): before the read budget, with their own caching.
app.route('/', reportRoutes);
// Anonymous reads: rate limited per client; on the live path bounded per request, cached and budgeted per day
// (public-reads.ts).
// What the public views hold is answered from them (views/serve-view.ts), the rest on the live path.
for (const path of ['/api/v1/*', '/metrics']) {
  app.use(path, anonymousReaders);
  app.use(path, serveViews);
  app.use(path, liveBudget);
}

// The read API and the admin routes under one prefix, one sub-app per resource, each spelling its paths relative
// to it. Each route's parameters and answers are described once in shared/api-contract/routes.ts, which the site
// reads through; tests/workers/contract.test.ts holds these routes to that table.
const v1 = new Hono<ReaderEnv>()
  .route('/', healthRoutes)
  .route('/', catalogRoutes)
  .route('/', placeRoutes)
  .route('/', sampleRoutes)
  .route('/', percentileRoutes)
  .route('/', rollupRoutes)
  .route('/', timelineRoutes)
  .route('/', tickRoutes)
  .route('/', burstRoutes)
  .route('/', compareRoutes)
  .route('/', changesRoutes)
  .route('/', profileRoutes)
  .route('/', promptCacheRoutes)
  .route('/', statusRoutes)
  .route('/', statusHistoryRoutes)
  .route('/', uptimeRoutes)
  .route('/', vendorIncidentRoutes)
  .route('/', archiveAdminRoutes)
  .route('/', viewRoutes);

const routes = app.route('/api/v1', v1).route('/', metricsRoutes).route('/', archiveRoutes);

app.notFound((c) => c.json({ error: { code: 'not_found', message: `no route for ${c.req.method} ${new URL(c.req.url).pathname}` } }, 404));
app.onError((err, c) => {
  if (err instanceof ApiError) return c.json({ error: { code: err.code, message: err.message } }, err.status);
  if (err instanceof ConfigError)
    return c.json({ error: { code: 'config', message: 'the observatory configuration is invalid', problems: err.problems } }, 500);
  console.error('unhandled API error', err);
  return c.json({ error: { code: 'internal', message: 'internal error' } }, 500);
});

/**
 * The app's type. The sub-apps register their routes as statements, not one chain, so this type holds the mounts
 * but not each route's answer: a typed reader uses the route table (shared/api-contract/routes.ts) instead.
 */
export type AppType = typeof routes;

export { app };
