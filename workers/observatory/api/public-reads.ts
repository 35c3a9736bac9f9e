/**
 * What an anonymous reader may cost. A GET without the admin or read token is anonymous:
 * - its cost is bounded per request (the routes refuse, with `token_required`, what would read more:
 *   raw samples beyond ANON_RAW_WINDOW_MS, hourly rollups beyond ANON_HOURLY_WINDOW_MS, more than
 *   ANON_BURST_RUNS concurrency runs; `anonymousRowBound` in shared/config/capacity.ts is the sum);
 * - a repeated request is answered from the Workers Cache API (keyed by the normalised query, for
 *   PUBLIC_CACHE_SECONDS) and reads nothing;
 * - each client (cf-connecting-ip) is limited by the Workers rate-limiting binding (ANON_RATE_LIMIT
 *   "0" turns it off: locally, where every request comes from one address);
 * - all of them together have a daily row budget (read-budget.ts); past it they get 429 with
 *   Retry-After until 00:00 UTC, and the observatory's own jobs keep their headroom.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { sameSecret } from '../../common/same-secret.ts';
import { ROWS_READ_HEADER } from '../../../shared/constants.ts';
import { anonymousRowsPerDay } from '../../../shared/config/capacity.ts';
import { DAY_MS } from '../../../shared/time.ts';
import { getConfig } from '../config.ts';
import { ApiError } from './errors.ts';
import { bearerToken } from './admin.ts';

export const ANON_RAW_WINDOW_MS = DAY_MS;
export const ANON_HOURLY_WINDOW_MS = 31 * DAY_MS;
export const ANON_BURST_RUNS = 24;
/**
 * How long a public answer is served from the cache (PUBLIC_CACHE_SECONDS in wrangler.toml: 60 in
 * production, as the data change once a tick; 0 locally, where a developer wants every answer fresh).
 */
function cacheSeconds(env: Env): number {
  const s = Number((env as { PUBLIC_CACHE_SECONDS?: string }).PUBLIC_CACHE_SECONDS ?? 60);
  return Number.isFinite(s) && s > 0 ? s : 0;
}
/** The budget view of this isolate is refreshed, and its reads added, at least this often. */
const BUDGET_FLUSH_MS = 10_000;

export type ReaderEnv = { Bindings: Env; Variables: { anonymous: boolean } };

interface BudgetView {
  day: number;
  /** The day's total as the budget object last said. */
  total: number;
  /** Read since then by this isolate, not yet added. */
  pending: number;
  flushedAt: number;
}
const view: BudgetView = { day: 0, total: 0, pending: 0, flushedAt: 0 };

/** Bearer token of the admin or the reader (READ_TOKEN: what the site build sends). */
export async function holdsToken(request: Request, env: Env): Promise<boolean> {
  const given = bearerToken(request);
  if (!given) return false;
  const e = env as { ADMIN_TOKEN?: string; READ_TOKEN?: string };
  for (const token of [e.ADMIN_TOKEN, e.READ_TOKEN]) if (token && (await sameSecret(given, token))) return true;
  return false;
}

/** Whether this client's address is past its rate (ANON_LIMITER; ANON_RATE_LIMIT "0" turns it off). For anonymous requests. */
export async function overRate(request: Request, env: Env): Promise<boolean> {
  const ip = request.headers.get('cf-connecting-ip');
  const limiter = (env as { ANON_LIMITER?: RateLimit }).ANON_LIMITER;
  if (!ip || !limiter || (env as { ANON_RATE_LIMIT?: string }).ANON_RATE_LIMIT === '0') return false;
  return !(await limiter.limit({ key: ip })).success;
}

export const rateLimited = (c: Context) =>
  c.json({ error: { code: 'rate_limited', message: 'too many requests from this address; try again in a minute' } }, 429, {
    'retry-after': '60',
  });

/** The configuration's budget: computed once per isolate (the whole capacity model), not on every request. */
let configuredBudget: number | null = null;

function budgetOf(env: Env): number {
  const override = Number((env as { ANON_ROWS_PER_DAY?: string }).ANON_ROWS_PER_DAY);
  if (Number.isFinite(override) && override > 0) return override;
  return (configuredBudget ??= anonymousRowsPerDay(getConfig()));
}

function secondsToMidnight(now: number): number {
  return Math.max(1, Math.ceil((Math.floor(now / DAY_MS) * DAY_MS + DAY_MS - now) / 1000));
}

async function flush(env: Env, now: number): Promise<void> {
  const rows = view.pending;
  view.pending = 0;
  view.flushedAt = now;
  view.total = await env.READ_BUDGET.getByName('global').spend(view.day, rows);
}

/** The gate in front of every public GET; sets `anonymous` for the routes' own cost bounds. */
export const publicReads: MiddlewareHandler<ReaderEnv> = async (c, next) => {
  const anonymous = !(await holdsToken(c.req.raw, c.env));
  c.set('anonymous', anonymous);
  if (!anonymous || c.req.method !== 'GET') return next();

  const now = Date.now();
  if (await overRate(c.req.raw, c.env)) return rateLimited(c);

  const day = Math.floor(now / DAY_MS) * DAY_MS;
  if (view.day !== day) Object.assign(view, { day, total: 0, pending: 0, flushedAt: 0 });
  if (now - view.flushedAt > BUDGET_FLUSH_MS) {
    // The budget object out of reach: serve on the last known total (the per-request bound still holds).
    await flush(c.env, now).catch((e) => console.error('read budget: could not be read', e));
  }
  const budget = budgetOf(c.env);
  if (view.total + view.pending >= budget) {
    return c.json(
      {
        error: {
          code: 'read_budget_spent',
          message: `anonymous reads have used today's budget of ${budget} D1 rows; try again after 00:00 UTC, or use a read token`,
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
    const served = new Response(hit.body, hit);
    served.headers.set(ROWS_READ_HEADER, '0');
    served.headers.set('x-cache', 'hit');
    return served;
  }
  await next();
  const read = Number(c.res.headers.get(ROWS_READ_HEADER) ?? 0);
  view.pending += read;
  const work: Promise<unknown>[] = [];
  if (view.pending >= budget / 100 || now - view.flushedAt > BUDGET_FLUSH_MS)
    work.push(flush(c.env, now).catch((e) => console.error('read budget: could not add reads', e)));
  if (c.res.status === 200 && seconds > 0) {
    c.res.headers.set('cache-control', `public, max-age=${seconds}`);
    c.res.headers.set('x-cache', 'miss');
    work.push(cache.put(key, c.res.clone()).catch(() => {}));
  }
  if (work.length > 0) c.executionCtx.waitUntil(Promise.all(work));
};

/** The request with its query parameters in one order: equal questions share one cache entry. */
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
