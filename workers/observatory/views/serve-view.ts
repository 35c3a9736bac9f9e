/**
 * The view gate of the read API: an anonymous GET or HEAD that a public view holds the answer to is answered from
 * it (view-answer.ts), reading no D1 row and calling no Durable Object, at most one R2 object (and none while this
 * isolate holds it, view-store.ts). Every such answer carries Cache-Control with a short max-age and
 * stale-while-revalidate, `Age` (the seconds since the view was built), an ETag (the view's hash, with the filter
 * for a narrowed answer: If-None-Match gets a 304), Last-Modified and `x-view-built-at` (when it was built), and
 * `x-view` (its name). A token holder's request of a view query is answered from the view too, unless it asks for a
 * fresh answer (`Cache-Control: no-cache`, or `Pragma: no-cache`): then the live path computes it. A request no view
 * holds (another window, a grouping no view has, CSV) goes on to the live path, and so does one whose view was never
 * built (a new deployment before its first build), marked `x-view: missing`.
 */
import type { MiddlewareHandler } from 'hono';
import type { ReaderEnv } from '../api/public-reads.ts';
import { isRead } from '../api/public-reads.ts';
import { VIEW_PARTS } from './parts.ts';
import { viewAnswer } from './view-answer.ts';
import type { ViewMatch, ViewMatcher } from './view-part.ts';
import { readView } from './view-store.ts';

const MATCHERS: ReadonlyMap<string, ViewMatcher> = new Map(VIEW_PARTS.flatMap((p) => Object.entries(p.routes)));

/** The view that answers this request, if any (null: the live path). */
export function viewFor(path: string, q: URLSearchParams): ViewMatch | null {
  const matcher = MATCHERS.get(path);
  return matcher ? matcher(q) : null;
}

/** Whether a request asks for a fresh answer rather than a stored one (RFC 9111: no-cache, no-store; HTTP/1.0's Pragma). */
export function wantsFresh(request: Request): boolean {
  return (
    /\bno-(cache|store)\b/i.test(request.headers.get('cache-control') ?? '') || /\bno-cache\b/i.test(request.headers.get('pragma') ?? '')
  );
}

export const serveViews: MiddlewareHandler<ReaderEnv> = async (c, next) => {
  if (!isRead(c.req.method)) return next();
  // Only a token holder may have the live path recompute what a view holds.
  if (!c.get('anonymous') && wantsFresh(c.req.raw)) return next();
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
  const answer = viewAnswer(view, match, c.req.method, c.req.header('if-none-match') ?? null, now);
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
};
