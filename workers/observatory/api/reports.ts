/**
 * The weekly comparison reports (docs/REPORTS.md), straight from R2 (reports/report-store.ts): no D1 row is read and
 * no Durable Object called, so they are mounted before the read budget (app.ts); an anonymous client is rate
 * limited as for the read API.
 * - GET /api/v1/reports: the index, every week and version with its SHA-256 and URL, newest week first.
 * - GET /api/v1/reports/<week>: the week's current version (Content-Location names it).
 * - GET /api/v1/reports/<week>/v<n>: one version, its bytes as published, whatever happens later: ETag its SHA-256.
 *   A correction's answer says `Link: <v(n-1)>; rel="predecessor-version"` (the document says `corrects`); a
 *   corrected version's says `Link: <v(n+1)>; rel="successor-version"` and `x-report-superseded-by`. A version once
 *   superseded never changes again, headers and all, and is served `immutable` for a year; the current version's
 *   bytes never change either, but its answer gains the successor link when corrected, so it is cached minutes.
 * - POST /api/v1/reports (admin): publish the last ended week now if it is not yet (what the daily run does).
 * - POST /api/v1/reports/<week>/corrections (admin, `{"reason": "…"}`): publish the week again as its next version.
 * Both publish in the view builder's Durable Object (views/public-views.ts), whose CPU the ranking needs.
 */
import { Hono, type Context } from 'hono';
import { reportPath, versionOf, type ReportIndex, type ReportIndexAnswer } from '../../../shared/reports/report.ts';
import { WEEK_PATTERN } from '../../../shared/reports/week.ts';
import { SECOND_MS } from '../../../shared/time.ts';
import { REASON_MAX_CHARS } from '../reports/publish.ts';
import { readReportIndex, reportKey } from '../reports/report-store.ts';
import { requireAdmin } from './admin.ts';
import { onlyKnown } from './query.ts';
import { paramsOf } from '../../../shared/api-contract/params.ts';
import { ApiError, badRequest } from './errors.ts';
import { holdsToken, overRate, rateLimited, type ReaderEnv } from './public-reads.ts';

export const reportRoutes = new Hono<ReaderEnv>();

/** A superseded version: its answer never changes again. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The index, a week's current version and a version not yet superseded: a correction shows within this long. */
export const CURRENT_MAX_AGE_S = 300;
const CURRENT = `public, max-age=${CURRENT_MAX_AGE_S}`;
const JSON_TYPE = 'application/json; charset=utf-8';
/** How long this isolate answers from the index it read (a report is published once a week). */
const INDEX_MEMORY_MS = 10 * SECOND_MS;

let remembered: { index: ReportIndex; at: number } | null = null;

async function currentIndex(bucket: R2Bucket, now: number): Promise<ReportIndex> {
  if (remembered && now - remembered.at < INDEX_MEMORY_MS) return remembered.index;
  remembered = { index: (await readReportIndex(bucket)).index, at: now };
  return remembered.index;
}

/** Forgets the index this isolate holds (a publication here is seen at once; tests). */
export function forgetReportIndex(): void {
  remembered = null;
}

/** The index as answered: each version's URL beside its entry, each week's current one. */
function indexAnswer(index: ReportIndex): ReportIndexAnswer {
  return {
    format: index.format,
    weeks: index.weeks.map((w) => ({
      week: w.week,
      window: w.window,
      current: { version: w.versions.at(-1)!.version, url: reportPath(w.week) },
      versions: w.versions.map((v) => ({ ...v, url: reportPath(w.week, v.version) })),
    })),
  };
}

const notFound = (what: string) => new ApiError(404, 'not_found', what);

function parseWeek(week: string): string {
  if (!WEEK_PATTERN.test(week)) throw badRequest(`week must be an ISO week like 2026-W48, not ${JSON.stringify(week.slice(0, 40))}`);
  return week;
}

/** Whether If-None-Match names this ETag (or is `*`). */
const matches = (header: string | undefined, etag: string) =>
  header?.split(',').some((t) => ['*', etag].includes(t.trim().replace(/^W\//, '')));

/** An anonymous client (no admin or read token) past its rate: rate limited as for the read API. */
const limited = async (c: Context<ReaderEnv>) => !(await holdsToken(c.req.raw, c.env)) && (await overRate(c.req.raw, c.env));

reportRoutes.get('/api/v1/reports', async (c) => {
  if (await limited(c)) return rateLimited(c);
  onlyKnown(new URL(c.req.url).searchParams, paramsOf('reports'));
  const text = JSON.stringify(indexAnswer(await currentIndex(c.env.ARCHIVE, Date.now())));
  return c.body(text, 200, { 'content-type': JSON_TYPE, 'cache-control': CURRENT });
});

/** One version's answer: its stored bytes, with the links and caching its place among the week's versions gives it. */
async function versionAnswer(
  bucket: R2Bucket,
  index: ReportIndex,
  week: string,
  version: number | undefined,
  ifNoneMatch: string | undefined,
  method: string,
): Promise<Response> {
  const found = versionOf(index, week, version);
  if (!found)
    throw notFound(
      version === undefined ? `no report of ${week} is published (GET /api/v1/reports lists them)` : `${week} has no version ${version}`,
    );
  const { entry } = found;
  const etag = `"${entry.sha256}"`;
  const links: string[] = [];
  if (entry.corrects) links.push(`<${reportPath(week, entry.corrects.version)}>; rel="predecessor-version"`);
  if (entry.superseded_by !== null) links.push(`<${reportPath(week, entry.superseded_by)}>; rel="successor-version"`);
  const headers: Record<string, string> = {
    'content-type': JSON_TYPE,
    etag,
    'cache-control': version !== undefined && entry.superseded_by !== null ? IMMUTABLE : CURRENT,
    'x-report-version': String(entry.version),
    'last-modified': new Date(entry.published_at).toUTCString(),
    ...(links.length > 0 ? { link: links.join(', ') } : {}),
    ...(entry.superseded_by !== null ? { 'x-report-superseded-by': reportPath(week, entry.superseded_by) } : {}),
    ...(version === undefined ? { 'content-location': reportPath(week, entry.version) } : {}),
  };
  if (matches(ifNoneMatch, etag)) return new Response(null, { status: 304, headers });
  // HEAD: the headers alone (the index names the version, and its size).
  if (method === 'HEAD') return new Response(null, { status: 200, headers: { ...headers, 'content-length': String(entry.bytes) } });
  const object = await bucket.get(reportKey(week, entry.version));
  if (!object) throw new ApiError(503, 'missing', `${reportKey(week, entry.version)} is listed but cannot be read; ask again`);
  return new Response(object.body, { status: 200, headers });
}

reportRoutes.get('/api/v1/reports/:week', async (c) => {
  if (await limited(c)) return rateLimited(c);
  const week = parseWeek(c.req.param('week'));
  return versionAnswer(
    c.env.ARCHIVE,
    await currentIndex(c.env.ARCHIVE, Date.now()),
    week,
    undefined,
    c.req.header('if-none-match'),
    c.req.method,
  );
});

reportRoutes.get('/api/v1/reports/:week/:version', async (c) => {
  if (await limited(c)) return rateLimited(c);
  const week = parseWeek(c.req.param('week'));
  const m = /^v([1-9]\d{0,5})$/.exec(c.req.param('version'));
  if (!m) throw badRequest('a version is written v1, v2, …');
  return versionAnswer(
    c.env.ARCHIVE,
    await currentIndex(c.env.ARCHIVE, Date.now()),
    week,
    Number(m[1]),
    c.req.header('if-none-match'),
    c.req.method,
  );
});

reportRoutes.post('/api/v1/reports', async (c) => {
  await requireAdmin(c.req.raw, (c.env as { ADMIN_TOKEN?: string }).ADMIN_TOKEN);
  // In the view builder's object: ranking every family's pairs over two weeks takes its CPU.
  const outcome = await c.env.PUBLIC_VIEWS.getByName('global').publishReport(Date.now());
  forgetReportIndex();
  return c.json(outcome);
});

reportRoutes.post('/api/v1/reports/:week/corrections', async (c) => {
  await requireAdmin(c.req.raw, (c.env as { ADMIN_TOKEN?: string }).ADMIN_TOKEN);
  const week = parseWeek(c.req.param('week'));
  const text = await c.req.text();
  if (text.length > 4_096) throw badRequest('body larger than 4096 bytes');
  let reason: unknown;
  try {
    reason = (JSON.parse(text) as { reason?: unknown }).reason;
  } catch {
    throw badRequest('body must be JSON: {"reason": "what was wrong"}');
  }
  if (typeof reason !== 'string' || reason.trim() === '' || reason.length > REASON_MAX_CHARS)
    throw badRequest(`reason must be a non-empty string of at most ${REASON_MAX_CHARS} characters`);
  const done = await c.env.PUBLIC_VIEWS.getByName('global').correctReport(week, reason.trim(), Date.now());
  if ('refused' in done) throw notFound(done.refused);
  forgetReportIndex();
  return c.json(done);
});
