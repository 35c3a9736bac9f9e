/**
 * What an anonymous reader may cost. A GET or HEAD (the same request for every limit: Hono answers HEAD with the
 * GET handler) without the admin or read token is anonymous:
 * - each client is limited by the Workers rate-limiting binding, keyed by its address (an IPv6 address by its
 *   /64, shared/net/client-key.ts; ANON_RATE_LIMIT "0" turns it off: locally, where every request comes from one
 *   address);
 * - the public views answer what they hold, reading no D1 row (views/serve-view.ts, mounted before this gate's
 *   budget);
 * - on the live path, its cost is bounded per request (the routes refuse, with `token_required`, what would read
 *   more: raw samples beyond ANON_RAW_WINDOW_MS, hourly rollups beyond ANON_HOURLY_WINDOW_MS, more than
 *   ANON_BURST_RUNS concurrency runs; `anonymousRowBound` in shared/config/capacity.ts is the sum);
 * - a repeated live request is answered from the Workers Cache API (keyed by the normalised query, for
 *   PUBLIC_CACHE_SECONDS; on a custom domain only: on workers.dev the Cache API does nothing);
 * - all of them together have a daily budget of D1 rows and of Durable Object requests (anonymous-budget.ts,
 *   read-budget.ts); past it they get 429 with Retry-After until 00:00 UTC, and the observatory's own jobs keep
 *   their headroom.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { sameSecret } from '../../common/same-secret.ts';
import { DO_REQUESTS_HEADER, ROWS_READ_HEADER } from '../../../shared/constants.ts';
import { anonymousDoRequestsPerDay, anonymousRowsPerDay } from '../../../shared/config/capacity.ts';
import { clientKey } from '../../../shared/net/client-key.ts';
import { DAY_MS, SECOND_MS } from '../../../shared/time.ts';
import { getConfig } from '../config.ts';
import { ApiError } from './errors.ts';
import { bearerToken } from './admin.ts';
import { addSpent, flush, flushDue, spentBudget, type Budgets } from './anonymous-budget.ts';

export const ANON_RAW_WINDOW_MS = DAY_MS;
export const ANON_HOURLY_WINDOW_MS = 31 * DAY_MS;
export const ANON_BURST_RUNS = 24;
/**
 * How long a live public answer is served from the cache (PUBLIC_CACHE_SECONDS in wrangler.toml: 60 in
 * production, as the data change once a tick; 0 locally, where a developer wants every answer fresh).
 */
function cacheSeconds(env: Env): number {
  const s = Number((env as { PUBLIC_CACHE_SECONDS?: string }).PUBLIC_CACHE_SECONDS ?? 60);
  return Number.isFinite(s) && s > 0 ? s : 0;
}

/** `cost`: what the request has cost so far, in D1 rows read and Durable Object requests (app.ts meters both). */
export type ReaderEnv = { Bindings: Env; Variables: { anonymous: boolean; cost: () => { rows: number; doRequests: number } } };

/** The methods that read: HEAD is a GET without its body, and costs what the GET costs. */
export const isRead = (method: string) => method === 'GET' || method === 'HEAD';

/** Bearer token of the admin or the reader (READ_TOKEN: what the site build sends for raw samples). */
export async function holdsToken(request: Request, env: Env): Promise<boolean> {
  const given = bearerToken(request);
  if (!given) return false;
  const e = env as { ADMIN_TOKEN?: string; READ_TOKEN?: string };
  for (const token of [e.ADMIN_TOKEN, e.READ_TOKEN]) if (token && (await sameSecret(given, token))) return true;
  return false;
}

/** Whether this client is past its rate (ANON_LIMITER; ANON_RATE_LIMIT "0" turns it off). For anonymous requests. */
export async function overRate(request: Request, env: Env): Promise<boolean> {
  const ip = request.headers.get('cf-connecting-ip');
  const limiter = (env as { ANON_LIMITER?: RateLimit }).ANON_LIMITER;
  if (!ip || !limiter || (env as { ANON_RATE_LIMIT?: string }).ANON_RATE_LIMIT === '0') return false;
  return !(await limiter.limit({ key: clientKey(ip) })).success;
}

export const rateLimited = (c: Context) =>
  c.json({ error: { code: 'rate_limited', message: 'too many requests from this address; try again in a minute' } }, 429, {
    'retry-after': '60',
  });

/** The configuration's budgets: computed once per isolate (the whole capacity model), not on every request. */
let configuredBudgets: Budgets | null = null;

function budgetsOf(env: Env): Budgets {
  configuredBudgets ??= { rows: anonymousRowsPerDay(getConfig()), doRequests: anonymousDoRequestsPerDay(getConfig()) };
  const override = Number((env as { ANON_ROWS_PER_DAY?: string }).ANON_ROWS_PER_DAY);
  return Number.isFinite(override) && override > 0 ? { ...configuredBudgets, rows: override } : configuredBudgets;
}

function secondsToMidnight(now: number): number {
  return Math.max(1, Math.ceil((Math.floor(now / DAY_MS) * DAY_MS + DAY_MS - now) / SECOND_MS));
}

const spendOn = (env: Env) => (day: number, rows: number, doRequests: number) =>
  env.READ_BUDGET.getByName('global').spend(day, rows, doRequests);

/** Marks the request anonymous or not, and rate limits anonymous reads (views and live path alike). */
export const anonymousReaders: MiddlewareHandler<ReaderEnv> = async (c, next) => {
  const anonymous = !(await holdsToken(c.req.raw, c.env));
  c.set('anonymous', anonymous);
  if (anonymous && isRead(c.req.method) && (await overRate(c.req.raw, c.env))) return rateLimited(c);
  return next();
};

/** The gate in front of the live path's anonymous reads: the daily budget and the cache. */
export const liveBudget: MiddlewareHandler<ReaderEnv> = async (c, next) => {
  if (!c.get('anonymous') || !isRead(c.req.method)) return next();
  const now = Date.now();
  const budgets = budgetsOf(c.env);
  // The budget object out of reach: serve on the last known totals (the per-request bound still holds).
  if (flushDue(budgets, now)) await flush(spendOn(c.env), now).catch((e) => console.error('read budget: could not be read', e));
  const spent = spentBudget(budgets, now);
  if (spent !== null) {
    const what = spent === 'rows' ? `${budgets.rows} D1 rows` : `${budgets.doRequests} Durable Object requests`;
    return c.json(
      {
        error: {
          code: 'read_budget_spent',
          message: `anonymous reads have used today's budget of ${what}; try again after 00:00 UTC, or use a read token`,
        },
      },
      429,
      { 'retry-after': String(secondsToMidnight(now)) },
    );
  }

  const seconds = cacheSeconds(c.env);
  const key = cacheKey(c.req.url);
  const cache = (caches as unknown as { default: Cache }).default;
  const hit = seconds > 0 ? await cache.match(key) : undefined;
  if (hit) {
    const served = new Response(c.req.method === 'HEAD' ? null : hit.body, hit);
    served.headers.set(ROWS_READ_HEADER, '0');
    served.headers.set(DO_REQUESTS_HEADER, '0');
    served.headers.set('x-cache', 'hit');
    return served;
  }
  await next();
  const cost = c.get('cost')();
  addSpent(cost.rows, cost.doRequests, now);
  const work: Promise<unknown>[] = [];
  if (flushDue(budgets, now)) work.push(flush(spendOn(c.env), now).catch((e) => console.error('read budget: could not add reads', e)));
  if (c.res.status === 200 && seconds > 0) {
    c.res.headers.set('cache-control', `public, max-age=${seconds}`);
    c.res.headers.set('x-cache', 'miss');
    // Stored as the GET's answer: a HEAD's has no body.
    if (c.req.method === 'GET') work.push(cache.put(key, c.res.clone()).catch(() => {}));
  }
  if (work.length > 0) c.executionCtx.waitUntil(Promise.all(work));
};

/** The request with its query parameters in one order: equal questions share one cache entry (a HEAD the GET's). */
function cacheKey(url: string): Request {
  const u = new URL(url);
  const params = [...u.searchParams.entries()].sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : x > y ? 1 : 0) : a < b ? -1 : 1));
  u.search = new URLSearchParams(params).toString();
  return new Request(u.toString(), { method: 'GET' });
}

/** Refuses, for an anonymous reader, what would read more than the public bound allows. */
export function requireTokenFor(c: Context<ReaderEnv>, what: string): void {
  if (c.get('anonymous'))
    throw new ApiError(
      403,
      'token_required',
      `${what} needs the read token (Authorization: Bearer <READ_TOKEN>); anonymous reads are bounded in cost`,
    );
}
