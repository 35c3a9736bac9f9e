/**
 * The archive over HTTP.
 * - GET/HEAD /archive/<key>: manifest.json and the Parquet files, straight from R2 (byte ranges, as
 *   DuckDB, pyarrow and Polars read them; ETag; CORS for browsers). Where the bucket has no public
 *   domain of its own, and in the demo beside the site. Only the archive's own keys are served; an
 *   anonymous client is rate limited like the read API. It reads no D1 row.
 * - POST /api/v1/archive (admin): archive every ended day that is owed now, as retention's run does,
 *   and delete nothing. A backlog is written 7 files per region and call: call again while `pending` > 0.
 */
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { isoDay, MANIFEST_KEY, type ArchiveTable } from '../../../shared/archive/manifest.ts';
import { DAY_MS } from '../../../shared/time.ts';
import { getConfig } from '../config.ts';
import { ID_PATTERN } from '../../../shared/config/validate.ts';
import { archiveFinalRollups, archiveSampleTables } from '../archive/archive-run.ts';
import { requireAdmin } from './admin.ts';
import { ApiError } from './errors.ts';
import { holdsToken, overRate, rateLimited, type ReaderEnv } from './public-reads.ts';

export const archiveRoutes = new Hono<ReaderEnv>();

const TABLES: readonly ArchiveTable[] = ['samples', 'burst_samples', 'hourly_rollups'];
/** A table's file of a day and region: the region as the configuration spells codes (no '/': nothing outside the archive). */
const FILE_KEY = new RegExp(`^([a-z_]+)/day=(\\d{4}-\\d{2}-\\d{2})/region=(${ID_PATTERN})\\.parquet$`);

/** Whether a key is one the archive writes: the manifest, or a table's file of a real UTC day. */
export function isArchiveKey(key: string): boolean {
  if (key === MANIFEST_KEY) return true;
  const m = FILE_KEY.exec(key);
  if (!m || !TABLES.includes(m[1] as ArchiveTable)) return false;
  const day = Date.parse(`${m[2]}T00:00:00Z`);
  return Number.isFinite(day) && isoDay(day) === m[2];
}

/** A file is rewritten only when it was damaged; the manifest changes once a day. */
const cacheControl = (key: string) => (key === MANIFEST_KEY ? 'public, max-age=300' : 'public, max-age=86400');
// Browsers (DuckDB-Wasm, a notebook) read it from any origin, ranges and all: their preflight, and CORS on every answer.
archiveRoutes.use(
  '/archive/*',
  cors({
    origin: '*',
    allowMethods: ['GET', 'HEAD', 'OPTIONS'],
    allowHeaders: ['range', 'if-range', 'if-none-match'],
    exposeHeaders: ['content-length', 'content-range', 'accept-ranges', 'etag'],
  }),
);

function objectHeaders(object: R2Object, key: string): Headers {
  const headers = new Headers();
  object.writeHttpMetadata(headers);
  headers.set('etag', object.httpEtag);
  headers.set('accept-ranges', 'bytes');
  headers.set('cache-control', cacheControl(key));
  return headers;
}

/**
 * The one byte range a Range header asks for, against the object's size: null for the whole object (no header,
 * or one this route does not read: several ranges, another unit, bad syntax, which RFC 9110 lets a server
 * ignore), 'bad' when it cannot be satisfied (it starts past the end).
 */
function rangeOf(header: string | null, size: number): { offset: number; length: number } | null | 'bad' {
  const m = header ? /^bytes=(\d{0,15})-(\d{0,15})$/.exec(header.trim()) : null;
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Math.min(Number(m[2]), size);
    return suffix === 0 ? 'bad' : { offset: size - suffix, length: suffix };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size) return 'bad';
  if (end < start) return null;
  return { offset: start, length: end - start + 1 };
}

archiveRoutes.on(['GET', 'HEAD'], '/archive/*', async (c) => {
  let key: string;
  try {
    key = decodeURIComponent(new URL(c.req.url).pathname.slice('/archive/'.length));
  } catch {
    key = '';
  }
  if (!isArchiveKey(key))
    throw new ApiError(
      404,
      'not_found',
      `no archive file ${JSON.stringify(key.slice(0, 200))}: the archive serves ${MANIFEST_KEY} and <table>/day=YYYY-MM-DD/region=<code>.parquet, as the manifest lists them`,
    );
  // An anonymous client (no admin or read token) is rate limited as for the read API.
  if (!(await holdsToken(c.req.raw, c.env)) && (await overRate(c.req.raw, c.env))) return rateLimited(c);
  const head = await c.env.ARCHIVE.head(key);
  if (!head) throw new ApiError(404, 'not_found', `${key} is not in the archive (yet): manifest.json lists every file it holds`);
  const headers = objectHeaders(head, key);
  if (c.req.method === 'HEAD') {
    headers.set('content-length', String(head.size));
    return new Response(null, { status: 200, headers });
  }
  // A range of an older version (If-Range with another ETag: the file was rewritten since) is not spliced onto this one.
  const ifRange = c.req.header('if-range');
  const asked = ifRange === undefined || ifRange === head.httpEtag ? (c.req.header('range') ?? null) : null;
  const range = rangeOf(asked, head.size);
  if (range === 'bad') {
    headers.set('content-range', `bytes */${head.size}`);
    return new Response(null, { status: 416, headers });
  }
  // The object as it was at the HEAD: a file rewritten in between is not spliced with the old one.
  const object = await c.env.ARCHIVE.get(key, { ...(range ? { range } : {}), onlyIf: { etagMatches: head.etag } });
  if (!object || !('body' in object)) throw new ApiError(503, 'changed', `${key} changed while it was read; ask again`);
  if (!range) {
    headers.set('content-length', String(head.size));
    return new Response(object.body, { status: 200, headers });
  }
  headers.set('content-length', String(range.length));
  headers.set('content-range', `bytes ${range.offset}-${range.offset + range.length - 1}/${head.size}`);
  return new Response(object.body, { status: 206, headers });
});

/** POST /api/v1/archive (admin), mounted under /api/v1. */
export const archiveAdminRoutes = new Hono<ReaderEnv>();

archiveAdminRoutes.post('/archive', async (c) => {
  await requireAdmin(c.req.raw, (c.env as { ADMIN_TOKEN?: string }).ADMIN_TOKEN);
  const now = Date.now();
  const cut = now - getConfig().retentionDays * DAY_MS;
  const regions = [...(await archiveSampleTables(c.env, now, cut, false)), ...(await archiveFinalRollups(c.env, now, cut))];
  const pending = regions.reduce((n, r) => n + r.owed - r.confirmed, 0);
  return c.json({
    regions: regions.map(({ deleted: _, ...r }) => r),
    files_confirmed: regions.reduce((n, r) => n + r.confirmed, 0),
    pending,
    failed: regions.filter((r) => r.error).map((r) => r.region),
  });
});
