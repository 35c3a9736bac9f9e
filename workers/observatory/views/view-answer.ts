/**
 * The answer to a request from a view (what serve-view.ts sends): its headers, a 304 when the reader holds it
 * already, the text narrowed to what the request asked for. Pure, so the benchmark measures the very code.
 */
import { SECOND_MS } from '../../../shared/time.ts';
import { filterViewText } from '../../../shared/views/view-text.ts';
import type { ViewMatch } from '../../../shared/views/view-match.ts';

/** How long a browser or CDN may reuse an answer without asking again, and how much longer while it revalidates. */
export const MAX_AGE_S = 60;
export const STALE_S = 300;

/** What a view's answers are unless it says otherwise. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * A view as read: its bytes as stored (what a whole answer sends as they are, with no encoding), its text (decoded
 * once, the first time a request narrows it), its content's hash (the ETag), when it was built and what its answers
 * are.
 */
export interface StoredView {
  name: string;
  bytes: Uint8Array;
  readonly text: string;
  /** Hex SHA-256 of the text, cut to 16 characters. */
  hash: string;
  /** When the builder made it (epoch ms). */
  builtAt: number;
  /** Its answers' content type (absent: JSON_CONTENT_TYPE); a view of text other than JSON is served whole. */
  contentType?: string;
}

/** A stored view of these bytes or this text; the other is made when first asked for, and kept. */
export function storedView(
  fields: Pick<StoredView, 'name' | 'hash' | 'builtAt' | 'contentType'> & ({ bytes: Uint8Array } | { text: string }),
): StoredView {
  let bytes = 'bytes' in fields ? fields.bytes : undefined;
  let text = 'text' in fields ? fields.text : undefined;
  return {
    name: fields.name,
    hash: fields.hash,
    builtAt: fields.builtAt,
    ...(fields.contentType ? { contentType: fields.contentType } : {}),
    get bytes() {
      bytes ??= new TextEncoder().encode(text);
      return bytes;
    },
    get text() {
      text ??= new TextDecoder().decode(bytes);
      return text;
    },
  };
}

export interface ViewAnswer {
  status: 200 | 304;
  headers: Record<string, string>;
  /** Null for a 304 and for HEAD; a whole view's bytes as stored; a narrowed view's text. */
  body: Uint8Array | string | null;
}

export function viewAnswer(view: StoredView, match: ViewMatch, method: string, ifNoneMatch: string | null, now: number): ViewAnswer {
  const etag = match.filter ? `"${view.hash}-${filterHash(match.filter.id)}"` : `"${view.hash}"`;
  const headers = {
    'content-type': view.contentType ?? JSON_CONTENT_TYPE,
    'cache-control': `public, max-age=${MAX_AGE_S}, stale-while-revalidate=${STALE_S}`,
    age: String(Math.max(0, Math.floor((now - view.builtAt) / SECOND_MS))),
    etag,
    'last-modified': new Date(view.builtAt).toUTCString(),
    'x-view': match.view,
    'x-view-built-at': new Date(view.builtAt).toISOString(),
  };
  if (matchesEtag(ifNoneMatch, etag)) return { status: 304, headers, body: null };
  if (method === 'HEAD') return { status: 200, headers, body: null };
  const body = match.filter ? filterViewText(view.text, match.filter.keys, match.filter.keep) : view.bytes;
  return { status: 200, headers, body };
}

/** Whether an If-None-Match header names this ETag (or is `*`), weak or strong. */
function matchesEtag(header: string | null, etag: string): boolean {
  if (!header) return false;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag.replace(/^W\//, '') === bare;
  });
}

/** A short stable hash of a filter's words (FNV-1a), for the ETag of a narrowed answer. */
function filterHash(id: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}
