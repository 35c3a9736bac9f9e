/**
 * The API's route table: each route's method, path, query parameters and answers (schemas.ts), written once.
 * The routes take from it the parameters they accept (`queryNames`: any other is refused with a 400), the
 * OpenAPI document is generated from it (document.ts), the tests hold the app's routes, their real answers and
 * docs/API.md to it, and the site reads the API through it (site/src/data/api-client.ts).
 *
 * Parameter values stay strings here: each route parses its own (workers/observatory/api/query.ts), so that a
 * bad value gets a 400 that says what was expected.
 */
import { createRoute, z, type RouteConfig } from '@hono/zod-openapi';
import * as S from './schemas.ts';

/** The prefix every route of the table but /metrics lies under. */
export const API_PREFIX = '/api/v1';

const param = (description: string) => z.string().optional().openapi({ description });

const WINDOW = {
  window: param('a window ending at `to` (or now): 30m, 6h, 7d'),
  from: param('its start: ISO 8601 (2026-01-31, 2026-01-31T12:00:00Z) or epoch milliseconds'),
  to: param('its end (default now), as `from`'),
};
const PAIRS = {
  region: param('region codes, comma-separated (default all)'),
  target: param('target ids, comma-separated (default all)'),
  variant: param('prompt variant ids, comma-separated'),
};
const FORMAT = { format: param('json (default) or csv') };
const CURSOR = { cursor: param('the `next_cursor` of the page before') };
const FILTER = {
  ...WINDOW,
  ...PAIRS,
  split_source: param('split sources, comma-separated (rtt, server-timing.total, none …)'),
  include_backfill: param('true (default) or false'),
  method_version: param('the measurement method version (default the current one)'),
  ...FORMAT,
};

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});
const error = (description: string) => json(S.ErrorSchema, description);

/** The refusals every public read may answer. */
const READ_ERRORS = {
  400: error(
    'an unknown parameter, one given twice, or a bad value (`bad_request`), or more work than one request may do (`too_much_work`)',
  ),
  403: error('beyond what an anonymous reader may ask (`token_required`)'),
  429: error("this address is past its rate (`rate_limited`), or anonymous reads have spent the day's budget (`read_budget_spent`)"),
  500: error('an internal error or an invalid configuration (`internal`, `config`)'),
};
/** The refusals every admin route may answer. */
const ADMIN_ERRORS = {
  400: error('a bad body (`bad_request`)'),
  401: error('no valid admin token (`unauthorized`)'),
  403: error('admin routes are disabled: no ADMIN_TOKEN (`admin_disabled`)'),
  500: error('an internal error (`internal`)'),
};
const ADMIN: Array<Record<string, string[]>> = [{ bearer: [] }];
/** A read is anonymous, or holds a token (which lifts the anonymous bounds). */
const ANONYMOUS_OR_TOKEN: Array<Record<string, string[]>> = [{}, { bearer: [] }];

/** A CSV answer (`format=csv`): a header row, then a row per record (shared/csv.ts). */
const CSV = { 'text/csv': { schema: z.string().openapi({ description: 'comma-separated, a header row first' }) } };

function read<Q extends Record<string, z.ZodType>, T extends z.ZodType>(
  path: string,
  summary: string,
  query: Q,
  answer: T,
  options: {
    /** It answers `format=csv` with CSV. */
    csv?: boolean;
    extra?: Record<number, { description: string; content: { 'application/json': { schema: z.ZodType } } }>;
  } = {},
) {
  return createRoute({
    method: 'get',
    path: `${API_PREFIX}${path}`,
    summary,
    security: ANONYMOUS_OR_TOKEN,
    request: { query: z.object(query) },
    responses: {
      200: { description: summary, content: { 'application/json': { schema: answer }, ...(options.csv ? CSV : {}) } },
      ...READ_ERRORS,
      ...options.extra,
    },
  });
}

export const API = {
  health: read(
    '/health',
    'D1, the schedule, the plan, each region’s duties, notifications, vendor pages and view ages',
    {},
    S.HealthDocSchema,
    { extra: { 503: json(S.HealthDocSchema, 'D1 cannot be read: the same answer, `status` degraded') } },
  ),
  regions: read(
    '/regions',
    'regions with their samples and the colos they ran in',
    { ...WINDOW, source: param('raw (default) or rollups'), ...FORMAT },
    S.RegionsDocSchema,
    { csv: true },
  ),
  targets: read(
    '/targets',
    'targets: label, provider, api, model, endpoint host, sample counts',
    { ...WINDOW, source: param('raw (default) or rollups'), ...FORMAT },
    S.TargetsDocSchema,
    { csv: true },
  ),
  servedBy: read(
    '/served-by',
    'where each region × target × variant was answered, over whole hours',
    { ...WINDOW, ...PAIRS, ...FORMAT },
    S.ServedByDocSchema,
  ),
  fidelity: read(
    '/fidelity',
    'how far each vendor’s timing claims held, over whole hours',
    { ...WINDOW, ...PAIRS, ...FORMAT },
    S.FidelityDocSchema,
  ),
  samples: read(
    '/samples',
    'raw samples, newest first, in pages',
    { ...FILTER, error: param('ok, error or an error class'), limit: param('1 to 1000 (default 100)'), ...CURSOR },
    S.SamplesDocSchema,
    { csv: true },
  ),
  percentiles: read(
    '/percentiles',
    'percentiles of a metric by group, each with its 95 % interval',
    {
      ...FILTER,
      metric: param('ttft_ms (default), ttfa_ms, tpot_ms, network_ms …'),
      by: param('region, target, prompt_variant, split_source, served_by; comma-separated'),
      source: param('raw or rollups'),
    },
    S.PercentilesDocSchema,
    { csv: true },
  ),
  rollups: read(
    '/rollups',
    'the rollup rows themselves, in pages of whole periods',
    {
      ...WINDOW,
      ...PAIRS,
      method_version: param('the measurement method version'),
      resolution: param('hour (default) or day'),
      histograms: param('json (default) or base64'),
      limit: param('rows a page'),
      ...CURSOR,
    },
    S.RollupsDocSchema,
  ),
  timeline: read(
    '/timeline',
    'what the site draws over time: per period a series each',
    { ...WINDOW, ...PAIRS, pooled: param('true: regions merged'), ...FORMAT },
    S.TimelineDocSchema,
    { csv: true },
  ),
  bursts: read(
    '/bursts',
    'the concurrency probes per region × target and level',
    {
      ...WINDOW,
      region: PAIRS.region,
      target: PAIRS.target,
      runs: param('the newest runs (default 6)'),
      streams: param('true: every stream'),
    },
    S.BurstsDocSchema,
  ),
  compare: read(
    '/compare',
    'paired comparisons of every two targets in a region and variant',
    {
      ...WINDOW,
      region: PAIRS.region,
      variant: PAIRS.variant,
      target: PAIRS.target,
      figure: param('ttfa_ms (default), total_code, total_chat, total_summary, total_batch'),
      margin: param('percent (default 5)'),
    },
    S.CompareDocSchema,
  ),
  pairedHours: read(
    '/paired-hours',
    'the hourly paired blocks, in pages of whole hours',
    { ...WINDOW, region: PAIRS.region, variant: PAIRS.variant, ...CURSOR },
    S.PairedHoursDocSchema,
  ),
  changes: read('/changes', 'TTFA changes of this week against the four before', PAIRS, S.ChangesDocSchema),
  hourProfiles: read('/hour-profiles', 'per ended UTC day, its 24 hours', { ...WINDOW, ...PAIRS, ...CURSOR }, S.HourProfilesDocSchema),
  timeProfiles: read('/time-profiles', 'each region × target × variant’s 7 × 24 cells', { ...WINDOW, ...PAIRS }, S.TimeProfilesDocSchema),
  promptCache: read(
    '/prompt-cache',
    'what each opted-in target’s prompt cache is worth',
    { ...WINDOW, region: PAIRS.region, target: PAIRS.target, margin: param('percent (default 5)') },
    S.PromptCachesDocSchema,
  ),
  status: read('/status', 'the status rules’ verdict now, per target and region', {}, S.StatusDocSchema),
  incidents: read(
    '/incidents',
    'incidents newest first, each with its timeline',
    {
      ...WINDOW,
      status: param('open or resolved'),
      target: param('a target id'),
      limit: param('1 to 500 (default 50)'),
      points: param('true: the probes behind each chart'),
    },
    S.IncidentsDocSchema,
  ),
  statusHistory: read(
    '/status-history',
    'the status keeper’s judgement over time, per hour or day',
    { ...WINDOW, resolution: param('hour or day (default)'), ...PAIRS, ...CURSOR },
    S.StatusHistoryDocSchema,
  ),
  maintenance: read('/maintenance', 'maintenance windows that end after `from`', WINDOW, S.MaintenanceDocSchema),
  uptime: read(
    '/uptime',
    'a month’s uptime report per target × region and per target',
    { month: param('YYYY-MM (default this month)'), ...FORMAT },
    S.UptimeDocSchema,
    { csv: true },
  ),
  vendorIncidents: read(
    '/vendor-incidents',
    'the vendors’ Statuspage incidents beside the probes’',
    { ...WINDOW, target: param('a target id'), limit: param('vendor incidents, 1 to 500 (default 200)') },
    S.VendorIncidentsDocSchema,
  ),
  openapi: createRoute({
    method: 'get',
    path: `${API_PREFIX}/openapi.json`,
    summary: 'this document (OpenAPI 3.1)',
    security: [{}],
    responses: {
      200: { description: 'the OpenAPI document', content: { 'application/json': { schema: z.looseObject({ openapi: z.string() }) } } },
    },
  }),
  metrics: createRoute({
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus text exposition of the rollups’ running totals',
    security: ANONYMOUS_OR_TOKEN,
    request: { query: z.object({ region: PAIRS.region }) },
    responses: { 200: { description: 'Prometheus text format', content: { 'text/plain': { schema: z.string() } } }, ...READ_ERRORS },
  }),
  archiveFile: createRoute({
    method: 'get',
    path: '/archive/{key}',
    summary: 'the Parquet archive straight from R2 (byte ranges, ETag; HEAD too)',
    security: ANONYMOUS_OR_TOKEN,
    request: {
      params: z.object({ key: z.string().openapi({ description: 'manifest.json or <table>/day=YYYY-MM-DD/region=<code>.parquet' }) }),
    },
    responses: {
      200: { description: 'the file', content: { 'application/octet-stream': { schema: z.string().openapi({ format: 'binary' }) } } },
      206: {
        description: 'a byte range of it',
        content: { 'application/octet-stream': { schema: z.string().openapi({ format: 'binary' }) } },
      },
      404: error('no such archive file (`not_found`)'),
      416: { description: 'a range past its end' },
      429: error('this address is past its rate (`rate_limited`)'),
    },
  }),
  ticks: createRoute({
    method: 'post',
    path: `${API_PREFIX}/ticks`,
    summary: 'admin: a tick now, or a backfill of a past one',
    security: ADMIN,
    request: {
      body: {
        content: { 'application/json': { schema: z.object({ tick_id: z.number().optional(), backfill: z.boolean().optional() }) } },
        required: false,
      },
    },
    responses: {
      202: json(S.AdminAnswerSchema, 'the tick, queued in every region'),
      ...ADMIN_ERRORS,
      503: error('regions could not be reached (`regions_unreachable`)'),
    },
  }),
  runBursts: createRoute({
    method: 'post',
    path: `${API_PREFIX}/bursts`,
    summary: 'admin: a concurrency run now',
    security: ADMIN,
    responses: { 202: json(S.AdminAnswerSchema, 'the run, started in every region'), ...ADMIN_ERRORS },
  }),
  archive: createRoute({
    method: 'post',
    path: `${API_PREFIX}/archive`,
    summary: 'admin: archives every ended day owed now',
    security: ADMIN,
    responses: { 200: json(S.AdminAnswerSchema, 'per region and table what was owed and confirmed'), ...ADMIN_ERRORS },
  }),
  views: createRoute({
    method: 'post',
    path: `${API_PREFIX}/views`,
    summary: 'admin: builds the public views now',
    security: ADMIN,
    request: {
      body: { content: { 'application/json': { schema: z.object({ parts: z.array(z.string()).optional() }) } }, required: false },
    },
    responses: { 200: json(S.AdminAnswerSchema, 'the parts built and their ages'), ...ADMIN_ERRORS },
  }),
  addMaintenance: createRoute({
    method: 'post',
    path: `${API_PREFIX}/maintenance`,
    summary: 'admin: a maintenance window',
    security: ADMIN,
    request: { body: { content: { 'application/json': { schema: S.MaintenanceBodySchema } }, required: true } },
    responses: { 201: json(S.MaintenanceMadeSchema, 'the window made'), ...ADMIN_ERRORS, 503: error('not stored (`not_stored`)') },
  }),
  removeMaintenance: createRoute({
    method: 'delete',
    path: `${API_PREFIX}/maintenance/{id}`,
    summary: 'admin: a window of the API taken back',
    security: ADMIN,
    request: { params: z.object({ id: z.string() }) },
    responses: {
      200: json(z.object({ deleted: z.string() }), 'the window taken back'),
      ...ADMIN_ERRORS,
      404: error('no such window (`not_found`)'),
    },
  }),
  reports: createRoute({
    method: 'get',
    path: `${API_PREFIX}/reports`,
    summary: 'the weekly comparison reports: every week and version with its SHA-256 and URL, newest week first',
    security: ANONYMOUS_OR_TOKEN,
    request: { query: z.object({}) },
    responses: { 200: json(S.ReportIndexSchema, 'the index'), 400: READ_ERRORS[400], 429: READ_ERRORS[429], 500: READ_ERRORS[500] },
  }),
  reportWeek: createRoute({
    method: 'get',
    path: `${API_PREFIX}/reports/{week}`,
    summary: 'a week’s current report version (Content-Location names it)',
    security: ANONYMOUS_OR_TOKEN,
    request: { query: z.object({}), params: z.object({ week: z.string().openapi({ description: 'an ISO week, 2026-W48' }) }) },
    responses: {
      200: json(S.WeeklyReportSchema, 'the version’s bytes as published'),
      304: { description: 'If-None-Match named its ETag' },
      400: READ_ERRORS[400],
      404: error('no report of that week is published (`not_found`)'),
      429: READ_ERRORS[429],
    },
  }),
  reportVersion: createRoute({
    method: 'get',
    path: `${API_PREFIX}/reports/{week}/{version}`,
    summary: 'one report version, its bytes as published whatever happens later (immutable once superseded)',
    security: ANONYMOUS_OR_TOKEN,
    request: {
      query: z.object({}),
      params: z.object({
        week: z.string().openapi({ description: 'an ISO week, 2026-W48' }),
        version: z.string().openapi({ description: 'v1, v2, …' }),
      }),
    },
    responses: {
      200: json(S.WeeklyReportSchema, 'the version’s bytes as published'),
      304: { description: 'If-None-Match named its ETag' },
      400: READ_ERRORS[400],
      404: error('no such version (`not_found`)'),
      429: READ_ERRORS[429],
    },
  }),
  publishReport: createRoute({
    method: 'post',
    path: `${API_PREFIX}/reports`,
    summary: 'admin: publishes the last ended week now, unless it is published',
    security: ADMIN,
    responses: { 200: json(S.AdminAnswerSchema, 'what was published, or why nothing was'), ...ADMIN_ERRORS },
  }),
  correctReport: createRoute({
    method: 'post',
    path: `${API_PREFIX}/reports/{week}/corrections`,
    summary: 'admin: publishes a week again as its next version, with the reason',
    security: ADMIN,
    request: {
      params: z.object({ week: z.string() }),
      body: { content: { 'application/json': { schema: z.object({ reason: z.string() }) } }, required: true },
    },
    responses: { 200: json(S.AdminAnswerSchema, 'the new version'), ...ADMIN_ERRORS, 404: error('no such week (`not_found`)') },
  }),
} satisfies Record<string, RouteConfig>;

export type ApiRouteName = keyof typeof API;

/** The query parameters a route takes: what it refuses any other than. */
export function queryNames(route: RouteConfig): string[] {
  const query = route.request?.query as z.ZodObject | undefined;
  return query ? Object.keys(query.shape) : [];
}

/** A route's path as Hono spells it under its mount (`{id}` → `:id`, the prefix cut). */
export function honoPath(route: RouteConfig): string {
  const path = route.path.replace(/\{(\w+)\}/g, ':$1');
  return path.startsWith(API_PREFIX) ? path.slice(API_PREFIX.length) : path;
}

/** The answer a route gives with 200 (its JSON), as a type. */
export type AnswerOf<N extends ApiRouteName> = (typeof API)[N]['responses'] extends {
  200: { content: { 'application/json': { schema: infer T extends z.ZodType } } };
}
  ? z.infer<T>
  : never;

/** The routes a reader GETs with a query: the public reads. */
export type ReadRoute = {
  [K in ApiRouteName]: (typeof API)[K] extends { method: 'get'; request: { query: z.ZodType } } ? K : never;
}[ApiRouteName];

/** A read route's query: the parameters its table names, each optional. */
export type QueryOf<N extends ReadRoute> = {
  [K in keyof z.input<(typeof API)[N]['request']['query']>]?: string | number | boolean;
};

/**
 * What a schema declares, less the open rest of a `looseObject`: a reader's own, narrower type of an answer (or an
 * interface, which has no index signature) must be assignable to it.
 */
export type Declared<T> = T extends readonly (infer U)[]
  ? Declared<U>[]
  : T extends object
    ? { [K in keyof T as string extends K ? never : K]: Declared<T[K]> }
    : T;

/**
 * A reader's own view of an answer: some of its fields, each as declared or narrower (a type the caller names
 * for what it reads; a field of another type than the schema's fails to compile).
 */
export type Part<T> = T extends readonly (infer U)[] ? Part<U>[] : T extends object ? { [K in keyof T]?: Part<T[K]> } : T;

/** A read route's path parameters (`{week}` of /reports/{week}), none for most. */
export type ParamsOf<N extends ReadRoute> = (typeof API)[N]['request'] extends { params: z.ZodType }
  ? z.input<(typeof API)[N]['request']['params']>
  : Record<string, never>;

/** The path and query of a read, from the table: the only way the site spells a URL of the API. */
export function readPath<N extends ReadRoute>(route: N, query: QueryOf<N> = {}, params?: ParamsOf<N>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, String(value));
  const q = search.toString();
  const path = API[route].path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = (params as Record<string, string> | undefined)?.[name];
    if (value === undefined) throw new Error(`${route} needs its path parameter ${name}`);
    return encodeURIComponent(value);
  });
  return `${path}${q ? `?${q}` : ''}`;
}
