/** Reading a cursor-paged answer of the read API (/api/v1/samples, /api/v1/rollups): `next_cursor` asks for the next page. */

export interface Paged {
  next_cursor: number | null;
}

/** `url` with the page's cursor (none for the first page). */
export function pageUrl(url: string, cursor: number | null): string {
  return cursor === null ? url : `${url}${url.includes('?') ? '&' : '?'}cursor=${cursor}`;
}

/**
 * Asks for page after page (`fetchPage` with each cursor, null first) and hands each to `each`, until a
 * page has no next cursor or `each` returns false.
 */
export async function forEachPage<P extends Paged>(
  fetchPage: (cursor: number | null) => Promise<P>,
  each: (page: P) => unknown,
): Promise<void> {
  let cursor: number | null = null;
  do {
    const page: P = await fetchPage(cursor);
    if (each(page) === false) return;
    cursor = page.next_cursor;
  } while (cursor !== null);
}
