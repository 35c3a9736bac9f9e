/**
 * The view gate of the read API: an anonymous GET or HEAD that a public view holds the answer to is answered from
 * it, reading no D1 row and calling no Durable Object, at most one R2 object (and none while this isolate holds it,
 * view-store.ts). Every such answer carries
 * - `Cache-Control: public, max-age=MAX_AGE_S, stale-while-revalidate=STALE_S`, and `Age`: the seconds since the
 *   view was built, so a browser or CDN in front holds it no longer than the view is fresh;
 * - an `ETag` (the view's hash, with the filter for a narrowed answer), so `If-None-Match` gets a 304;
 * - `Last-Modified` and `x-view-built-at`: when the view was built; `x-view`: its name.
 * A request no view holds (another window, a grouping no view has, CSV, a token holder's) goes on to the live
 * path, and so does one whose view was never built (a new deployment before its first build).
 */
import type { MiddlewareHandler } from 'hono';
import { SECOND_MS } from '../../../shared/time.ts';
import { filterViewText } from '../../../shared/views/view-text.ts';
import type { ReaderEnv } from '../api/public-reads.ts';
import { isRead } from '../api/public-reads.ts';
import { VIEW_PARTS } from './public-views.ts';
import type { ViewMatch, ViewMatcher } from './view-part.ts';
import { readView } from './view-store.ts';

/** How long a browser or CDN may reuse an answer without asking again, and how much longer while it revalidates. */
export const MAX_AGE_S = 60;
export const STALE_S = 300;

const MATCHERS: ReadonlyMap<string, ViewMatcher> = new Map(VIEW_PARTS.flatMap((p) => Object.entries(p.routes)));

/** The view that answers this request, if any (null: the live path). */
export function viewFor(path: string, q: URLSearchParams): ViewMatch | null {
  const matcher = MATCHERS.get(path);
  return matcher ? matcher(q) : null;
}

/** Whether an If-None-Match header names this ETag (or is `*`). */
function matchesEtag(header: string | null, etag: string): boolean {
  if (!header) return false;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag.replace(/^W\//, '') === bare;
  });
}

export const serveViews: MiddlewareHandler<ReaderEnv> = async (c, next) => {
  if (!c.get('anonymous') || !isRead(c.req.method)) return next();
  const url = new URL(c.req.url);
  const match = viewFor(url.pathname, url.searchParams);
  if (!match) return next();
  const now = Date.now();
  const view = await readView(c.env.ARCHIVE, match.view, now);
  if (!view) {
    await next();
    c.res.headers.set('x-view', 'missing');
    return;
  }
  const etag = match.filter ? `"${view.hash}-${filterHash(match.filter.id)}"` : `"${view.hash}"`;
  const headers = new Headers({
    'content-type': 'application/json; charset=utf-8',
    'cache-control': `public, max-age=${MAX_AGE_S}, stale-while-revalidate=${STALE_S}`,
    age: String(Math.max(0, Math.floor((now - view.builtAt) / SECOND_MS))),
    etag,
    'last-modified': new Date(view.builtAt).toUTCString(),
    'x-view': match.view,
    'x-view-built-at': new Date(view.builtAt).toISOString(),
  });
  if (matchesEtag(c.req.header('if-none-match') ?? null, etag)) return new Response(null, { status: 304, headers });
  if (c.req.method === 'HEAD') return new Response(null, { status: 200, headers });
  const body = match.filter ? filterViewText(view.text, match.filter.keys, match.filter.keep) : view.text;
  return new Response(body, { status: 200, headers });
};

/** A short stable hash of a filter's words (FNV-1a), for the ETag of a narrowed answer. */
function filterHash(id: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}
