/** The public read API under /api/v1 (JSON, or CSV with format=csv) and the one admin route. */
import { Hono, type Context } from 'hono';
import { cors } from 'hono/cors';
import { ConfigError } from '../../../shared/config/validate.ts';
import { METHOD_VERSION, ROWS_READ_HEADER, ROWS_WRITTEN_HEADER } from '../../../shared/constants.ts';
import { getCapacity, getConfig, workList } from '../config.ts';
import { colosByRegion, lastSampleByTarget, latestTick, listSamples, type SampleFilter } from '../db/samples.ts';
import { SAMPLE_COLUMNS } from '../db/sample-row.ts';
import { runBursts, runTick, tickIdFor, unreachedRegions } from '../scheduler.ts';
import { burstSamplesIn, latestBurstRuns } from '../db/bursts.ts';
import { levelReports, type BurstStreamRow } from '../../../shared/bursts/level-report.ts';
import { burstLevels } from '../../../shared/config/bursts.ts';
import { requireAdmin } from './admin.ts';
import { toCsv } from '../../../shared/csv.ts';
import { ApiError, badRequest } from './errors.ts';
import {
  GROUP_COLUMNS,
  METRICS,
  ROLLUP_FIGURES,
  groupingFor,
  percentileGroups,
  percentileGroupsFromRollups,
  type GroupColumn,
  type Metric,
} from './percentiles.ts';
import { HOUR_MS, SPLIT_METRICS, hourOf, rollupToBase64Json, rollupToJson } from '../../../shared/rollup/rollup.ts';
import { MS_PER_DAY, MS_PER_MINUTE } from '../../../shared/config/capacity.ts';

/** Runs a concurrency report covers unless a window is given. */
import { HISTOGRAM_RELATIVE_ERROR, HISTOGRAM_SCALE } from '../../../shared/stats/exp-histogram.ts';
import { ERROR_CLASSES } from '../../../shared/ids.ts';
import { rollupPage, rollupTotals, samplesRetainedFrom } from '../db/rollups.ts';
import { meterD1 } from '../db/meter.ts';
import { PROMETHEUS_CONTENT_TYPE, prometheusText } from './prometheus.ts';
import { statusRoutes } from './status.ts';
import { MAX_FREE_LIST_VALUES, onlyKnown, parseBoolean, parseChoice, parseInt, parseList, parseWindow } from './query.ts';
import { publicReads, requireTokenFor, type ReaderEnv } from './public-reads.ts';
import {
  ANON_LIMITS,
  PERCENTILE_ROW_UNITS,
  percentileRowUnits,
  ROLLUP_PAGE_ROWS,
  SITE_BURST_RUNS,
} from '../../../shared/config/capacity.ts';

/** Raw samples an anonymous request may span; rollup windows it may span at hourly resolution. */
const ANON_RAW_MS = ANON_LIMITS.rawWindowDays * 86_400_000;
const ANON_HOURLY_MS = ANON_LIMITS.hourlyWindowDays * 86_400_000;

/** Raw samples over more than a day (`spanMs`) need the read token. */
function boundRaw(c: Context<ReaderEnv>, spanMs: number, what: string): void {
  if (spanMs > ANON_RAW_MS) requireTokenFor(c, `${what} over more than ${ANON_LIMITS.rawWindowDays} day`);
}

function csvResponse(body: string, filename: string): Response {
  return new Response(body, {
    headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="${filename}"` },
  });
}

const WINDOW_PARAMS = ['window', 'from', 'to'];
const FILTER_PARAMS = [...WINDOW_PARAMS, 'region', 'target', 'variant', 'split_source', 'include_backfill', 'method_version', 'format'];

const app = new Hono<ReaderEnv>();
app.use(
  '/api/v1/*',
  cors({ origin: '*', allowMethods: ['GET', 'HEAD', 'OPTIONS'], exposeHeaders: [ROWS_READ_HEADER, ROWS_WRITTEN_HEADER] }),
);
// Anonymous reads: bounded per request, cached, rate limited per client and budgeted per day (public-reads.ts).
app.use('/api/v1/*', publicReads);
app.use('/metrics', publicReads);

// What each response cost in D1 (what D1 bills), so a reader such as the site build can count its reads.
app.use('*', async (c, next) => {
  const meter = meterD1(c.env.DB);
  c.env = { ...c.env, DB: meter.db };
  await next();
  c.res.headers.set(ROWS_READ_HEADER, String(meter.rowsRead));
  c.res.headers.set(ROWS_WRITTEN_HEADER, String(meter.rowsWritten));
});

function filterFrom(q: URLSearchParams, now: number): SampleFilter {
  const c = getConfig();
  const w = parseWindow(q, now);
  return {
    fromTick: w.from,
    toTick: w.to,
    regions: parseList(
      q,
      'region',
      c.regions.map((r) => r.code),
    ),
    targets: parseList(
      q,
      'target',
      c.targets.map((t) => t.id),
    ),
    variants: parseList(
      q,
      'variant',
      c.promptVariants.map((v) => v.id),
    ),
    splitSources: parseSplitSources(q),
    includeBackfill: parseBoolean(q, 'include_backfill', true),
    methodVersion: parseInt(q, 'method_version', METHOD_VERSION, 1, 1_000),
  };
}

/** `split_source=rtt,server-timing.total` (free-form names: sources are whatever servers report), or `none`. */
function parseSplitSources(q: URLSearchParams): string[] | undefined {
  const raw = q.get('split_source');
  if (raw === null || raw === '') return undefined;
  const values = [
    ...new Set(
      raw
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean),
    ),
  ];
  if (values.length === 0) throw badRequest('split_source names no source; give names like rtt or server-timing.total, comma-separated');
  for (const v of values)
    if (!/^[\w.+:-]{1,100}$/.test(v))
      throw badRequest(`split_source must be source names like rtt or server-timing.total, got "${v.slice(0, 100)}"`);
  if (values.length > MAX_FREE_LIST_VALUES)
    throw badRequest(`split_source takes at most ${MAX_FREE_LIST_VALUES} names, got ${values.length}`);
  return values;
}

const windowOf = (f: SampleFilter) => ({ from: new Date(f.fromTick).toISOString(), to: new Date(f.toTick).toISOString() });

app.get('/api/v1/health', async (c) => {
  const config = getConfig();
  const capacity = getCapacity();
  let db: 'ok' | 'unavailable' = 'ok';
  let last: Awaited<ReturnType<typeof latestTick>> = null;
  try {
    last = await latestTick(c.env.DB);
  } catch {
    db = 'unavailable';
  }
  // Every notification attempt (recent ones), and what waits: the keeper's own storage, no D1 read.
  const keeper = await c.env.STATUS_KEEPER.getByName('global')
    .status()
    .catch((e: unknown) => ({ error: e instanceof Error ? e.message : String(e) }));
  return c.json(
    {
      status: db === 'ok' ? 'ok' : 'degraded',
      db,
      last_tick_at: last ? new Date(last.tick_id).toISOString() : null,
      schedule: config.schedule,
      plan: config.plan,
      spread: capacity.spread,
      limited_by: capacity.bindingLimit,
      regions: config.regions.length,
      targets: config.targets.length,
      prompt_variants: config.promptVariants.map((v) => ({
        id: v.id,
        label: v.label,
        prompt_tokens: v.promptTokens,
        max_tokens: v.maxTokens,
      })),
      simulated: c.env.SIMULATED_REGIONS === '1',
      open_incidents: 'error' in keeper ? null : keeper.open_incidents.length,
      incidents_unwritten: 'error' in keeper ? null : keeper.incidents_unwritten,
      notifications: 'error' in keeper ? { error: keeper.error } : keeper.notifications,
    },
    db === 'ok' ? 200 : 503,
  );
});

app.get('/api/v1/regions', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, [...WINDOW_PARAMS, 'format']);
  const now = Date.now();
  const w = parseWindow(q, now);
  // Every sample from `from` on is read, whatever `to` says.
  boundRaw(c, Math.max(w.to, now) - w.from, 'regions');
  const colos = await colosByRegion(c.env.DB, w.from);
  const regions = getConfig().regions.map((r) => {
    const seen = colos.filter((x) => x.region === r.code);
    return {
      code: r.code,
      label: r.label,
      location_hint: r.locationHint,
      samples: seen.reduce((n, x) => n + x.samples, 0),
      last_sample_at: seen.length ? new Date(Math.max(...seen.map((x) => x.last_started_at))).toISOString() : null,
      colos: seen.map((x) => ({ colo: x.colo, samples: x.samples, outside_region: x.outside })),
    };
  });
  if (q.get('format') === 'csv')
    return csvResponse(
      toCsv(regions.map(({ colos: list, ...r }) => ({ ...r, colos: list.map((x) => x.colo ?? 'unknown').join(' ') }))),
      'regions.csv',
    );
  return c.json({ window: { from: new Date(w.from).toISOString(), to: new Date(w.to).toISOString() }, regions });
});

app.get('/api/v1/targets', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, [...WINDOW_PARAMS, 'format']);
  const now = Date.now();
  const w = parseWindow(q, now);
  boundRaw(c, Math.max(w.to, now) - w.from, 'targets');
  const seen = await lastSampleByTarget(c.env.DB, w.from);
  const targets = getConfig().targets.map((t) => {
    const s = seen.find((x) => x.target === t.id);
    const host = new URL(t.url.replace('{REFERENCE_URL}', c.env.REFERENCE_URL)).host;
    return {
      id: t.id,
      label: t.label,
      provider: t.provider,
      api: t.api,
      model: t.model,
      endpoint_host: host,
      reference: t.reference === true,
      regions: t.regions ?? getConfig().regions.map((r) => r.code),
      samples: s?.samples ?? 0,
      last_sample_at: s ? new Date(s.last_started_at).toISOString() : null,
    };
  });
  if (q.get('format') === 'csv') return csvResponse(toCsv(targets), 'targets.csv');
  return c.json({ targets });
});

app.get('/api/v1/samples', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, [...FILTER_PARAMS, 'error', 'limit', 'cursor']);
  const filter = filterFrom(q, Date.now());
  const error = q.get('error');
  if (error !== null) {
    const allowed = ['ok', 'error', ...ERROR_CLASSES];
    if (!allowed.includes(error)) throw badRequest(`error must be one of ${allowed.join(', ')}, got "${error}"`);
    filter.error = error;
  }
  const limit = parseInt(q, 'limit', 100, 1, 1000);
  const cursor = q.has('cursor') ? parseInt(q, 'cursor', 0, 1, Number.MAX_SAFE_INTEGER) : undefined;
  boundRaw(c, filter.toTick - filter.fromTick, 'samples');
  const samples = await listSamples(c.env.DB, filter, limit, cursor);
  const next = samples.length === limit ? samples[samples.length - 1].id : null;
  if (q.get('format') === 'csv')
    return csvResponse(toCsv(samples as unknown as Array<Record<string, unknown>>, ['id', ...SAMPLE_COLUMNS]), 'samples.csv');
  return c.json({ window: windowOf(filter), samples, next_cursor: next });
});

app.get('/api/v1/percentiles', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, [...FILTER_PARAMS, 'metric', 'by', 'source']);
  const now = Date.now();
  const filter = filterFrom(q, now);
  const metric = parseChoice(q, 'metric', METRICS, 'ttft_ms');
  const by = groupingFor(
    metric,
    (parseList(q, 'by', GROUP_COLUMNS) ?? ['region', 'target']) as GroupColumn[],
    filter.variants?.length ?? getConfig().promptVariants.length,
  );
  // Raw samples while the window lies within their retention (exact, with intervals); hourly rollups beyond it.
  const rawFrom = now - getConfig().retentionDays * MS_PER_DAY;
  const source = parseChoice(q, 'source', ['raw', 'rollups'] as const, filter.fromTick >= rawFrom ? 'raw' : 'rollups');
  if (source === 'rollups') return rollupPercentiles(c, q, filter, metric, by);
  boundRaw(c, filter.toTick - filter.fromTick, 'raw percentiles');
  const groups = await percentileGroups(c.env.DB, filter, metric, by);
  if (q.get('format') === 'csv') return csvResponse(toCsv(groups), `percentiles-${metric}.csv`);
  return c.json({
    metric,
    by,
    source,
    window: windowOf(filter),
    method_version: filter.methodVersion,
    method:
      'exact percentiles (linear interpolation between closest ranks) over successful samples; 95 % confidence intervals from order statistics (equal-tailed, distribution-free); error_rate over all samples',
    groups,
  });
});

async function rollupPercentiles(
  c: Context<ReaderEnv>,
  q: URLSearchParams,
  filter: SampleFilter,
  metric: Metric,
  by: GroupColumn[],
): Promise<Response> {
  if (!ROLLUP_FIGURES.includes(metric))
    throw badRequest(`the hourly rollups hold ${ROLLUP_FIGURES.join(', ')}; ${metric} needs source=raw within the raw retention`);
  if (by.includes('split_source') && !(SPLIT_METRICS as readonly string[]).includes(metric))
    throw badRequest(`the hourly rollups keep split sources for ${SPLIT_METRICS.join(' and ')} only; use source=raw`);
  if (filter.splitSources || filter.error || filter.includeBackfill === false)
    throw badRequest('split_source, error and include_backfill filters need source=raw');
  const fromHour = Math.ceil(filter.fromTick / HOUR_MS) * HOUR_MS;
  const toHour = Math.floor(filter.toTick / HOUR_MS) * HOUR_MS;
  if (fromHour >= toHour) throw badRequest('the hourly rollups answer whole hours: the window holds none; use source=raw');
  // What the answer decodes, before it is read: a request gets the CPU of one invocation, whoever asks.
  const units = percentileRowUnits(fromHour, toHour, selectedPairs(filter));
  const cap = PERCENTILE_ROW_UNITS[getConfig().plan];
  if (units > cap) {
    throw new ApiError(
      400,
      'too_much_work',
      `this window and selection merge about ${Math.ceil(units)} rollup row units (a daily row 1, an hourly row 1/4); one request merges at most ${cap} on the ${getConfig().plan} plan (what fits its CPU). Ask for fewer regions, targets or variants (region=…, target=…, variant=…), or a shorter window, and combine the answers`,
    );
  }
  const groups = await percentileGroupsFromRollups(
    c.env.DB,
    { fromHour, toHour, methodVersion: filter.methodVersion!, regions: filter.regions, targets: filter.targets, variants: filter.variants },
    metric,
    by,
  );
  if (q.get('format') === 'csv') return csvResponse(toCsv(groups), `percentiles-${metric}.csv`);
  return c.json({
    metric,
    by,
    source: 'rollups',
    // The whole hours inside the asked window; the current hour is rolled up once it has ended.
    window: { from: new Date(fromHour).toISOString(), to: new Date(toHour).toISOString() },
    method_version: filter.methodVersion,
    method: `percentiles merged from hourly (and, for whole UTC days, daily) base-2 exponential histograms (scale ${HISTOGRAM_SCALE}), each within ${(HISTOGRAM_RELATIVE_ERROR * 100).toFixed(2)} % of the exact value over the same samples; 95 % order-statistic intervals whose bounds are read from the histogram within the same error; error_rate over all samples`,
    relative_error: HISTOGRAM_RELATIVE_ERROR,
    groups,
  });
}

/** Region × target × variant pairs of the configuration that a filter selects: at most one rollup row each a period. */
function selectedPairs(f: SampleFilter): number {
  return getConfig()
    .regions.filter((r) => !f.regions || f.regions.includes(r.code))
    .reduce(
      (n, r) =>
        n +
        workList(r.code).filter(
          (w) => (!f.targets || f.targets.includes(w.target.id)) && (!f.variants || f.variants.includes(w.variant.id)),
        ).length,
      0,
    );
}

/**
 * The rollup rows themselves, for a reader that merges windows of its own (the site build does): hourly
 * rows, or daily ones (whole UTC days, written once a day has ended), histograms in their JSON form or,
 * with `histograms=base64`, as their stored bytes. A page holds whole periods, at most ROLLUP_PAGE_ROWS
 * rows (what a free-plan request decodes or encodes within half its CPU, bench/duties.ts); `next_cursor`
 * asks for the next.
 */
app.get('/api/v1/rollups', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, [...WINDOW_PARAMS, 'region', 'target', 'variant', 'method_version', 'resolution', 'histograms', 'limit', 'cursor']);
  const form = parseChoice(q, 'histograms', ['json', 'base64'] as const, 'json');
  const limit = parseInt(q, 'limit', ROLLUP_PAGE_ROWS[form], 1, ROLLUP_PAGE_ROWS[form]);
  const filter = filterFrom(q, Date.now());
  const resolution = parseChoice(q, 'resolution', ['hour', 'day'] as const, 'hour');
  const unit = resolution === 'day' ? MS_PER_DAY : HOUR_MS;
  const from = Math.ceil(filter.fromTick / unit) * unit;
  const to = Math.floor(filter.toTick / unit) * unit;
  if (resolution === 'hour' && to - from > ANON_HOURLY_MS)
    requireTokenFor(c, `hourly rollups over more than ${ANON_LIMITS.hourlyWindowDays} days (resolution=day reads a row a day)`);
  // The cursor is where the page starts: a period start inside the window (next_cursor of the page before).
  const start = q.has('cursor') ? parseInt(q, 'cursor', from, Math.min(from, to), Math.max(from, to)) : from;
  const page =
    start < to
      ? await rollupPage(
          c.env.DB,
          {
            fromHour: start,
            toHour: to,
            resolution,
            methodVersion: filter.methodVersion!,
            regions: filter.regions,
            targets: filter.targets,
            variants: filter.variants,
          },
          limit,
          selectedPairs(filter),
        )
      : { rows: [], next: null };
  return c.json({
    resolution,
    // The whole hours (days) inside the asked window.
    window: { from: new Date(from).toISOString(), to: new Date(Math.max(from, to)).toISOString() },
    method_version: filter.methodVersion,
    histogram: `base-2 exponential, scale ${HISTOGRAM_SCALE} (OpenTelemetry ExponentialHistogram layout); bucket [index, count] holds values in (base^index, base^(index+1)], base = 2^(2^-${HISTOGRAM_SCALE}); values in ms (decode_tps in tokens/s)${form === 'base64' ? '; each histogram (and the split) as base64 of its canonical bytes: shared/stats/exp-histogram.ts encodeHistogram, shared/rollup/rollup.ts encodeSplit' : ''}`,
    relative_error: HISTOGRAM_RELATIVE_ERROR,
    rows: form === 'base64' ? page.rows.map(rollupToBase64Json) : page.rows.map(rollupToJson),
    next_cursor: page.next,
  });
});

app.post('/api/v1/ticks', async (c) => {
  await requireAdmin(c.req.raw, (c.env as { ADMIN_TOKEN?: string }).ADMIN_TOKEN);
  let body: { tick_id?: unknown; backfill?: unknown } = {};
  const text = await c.req.text();
  if (text.trim() !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      throw badRequest('body must be JSON, like {} or {"tick_id": 1767225600000, "backfill": true}');
    }
  }
  const now = Date.now();
  // The tick of now, on the schedule's grid: a retried POST is the same tick, and queues nothing twice.
  let tickId = tickIdFor(now);
  if (body.tick_id !== undefined) {
    // As far back as rollups are kept: samples older than the raw retention go at its next run, their rollups stay.
    const days = getConfig().rollupRetentionDays;
    if (
      typeof body.tick_id !== 'number' ||
      !Number.isInteger(body.tick_id) ||
      body.tick_id > now ||
      body.tick_id < now - days * MS_PER_DAY
    ) {
      throw badRequest(`tick_id must be epoch milliseconds within the last ${days} days (the rollup retention)`);
    }
    if (body.backfill !== true) throw badRequest('a past tick_id is only accepted with "backfill": true (its samples are flagged as such)');
    tickId = tickIdFor(body.tick_id);
    // Raw retention has already deleted that hour's other samples: its rollup could not be rewritten, so the
    // samples would be measured, never rolled up, and deleted at the next retention run.
    const retainedFrom = await samplesRetainedFrom(c.env.DB);
    if (hourOf(tickId) < retainedFrom) {
      throw new ApiError(
        400,
        'beyond_retention',
        `tick_id ${new Date(tickId).toISOString()} lies before ${new Date(retainedFrom).toISOString()}, where raw retention has already deleted samples: its hour cannot be rolled up again`,
      );
    }
  }
  const report = await runTick(c.env, tickId, { backfill: body.backfill === true });
  // Every region holds its jobs before this answers 202: whatever dies after, the tick is carried out.
  const unreached = unreachedRegions(report);
  if (unreached.length > 0) {
    return c.json(
      {
        error: {
          code: 'regions_unreachable',
          message: `regions ${unreached.join(', ')} could not be reached; the others hold their jobs. Send the same tick again: it queues nothing twice`,
        },
        ...report,
      },
      503,
    );
  }
  return c.json(report, 202);
});

/**
 * Concurrency probes: per region × target, what each level reported (TTFT p50/p95, server time's growth
 * over one stream alone, decode speed per stream, errors and rate limits, how closely the starts lined
 * up), over the newest `runs` runs (default 6) or a window; `streams=true` adds every stream.
 */
app.get('/api/v1/bursts', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, [...WINDOW_PARAMS, 'region', 'target', 'runs', 'streams']);
  // Without a window: the newest runs of the raw retention (burst samples are kept as long as samples).
  const explicit = WINDOW_PARAMS.some((p) => q.has(p));
  const filter = filterFrom(q, Date.now());
  if (!explicit) filter.fromTick = Date.now() - getConfig().retentionDays * MS_PER_DAY;
  const runCount = parseInt(q, 'runs', SITE_BURST_RUNS, 1, 200);
  if (runCount > ANON_LIMITS.burstRuns) requireTokenFor(c, `a report of more than ${ANON_LIMITS.burstRuns} runs`);
  // A window without `runs` reads every run in it: as many as a day of runs holds at most.
  if (explicit && !q.has('runs')) boundRaw(c, filter.toTick - filter.fromTick, 'concurrency runs');
  const runs = explicit && !q.has('runs') ? undefined : await latestBurstRuns(c.env.DB, runCount, filter);
  const rows = await burstSamplesIn(c.env.DB, {
    fromTick: filter.fromTick,
    toTick: filter.toTick,
    runs,
    regions: filter.regions,
    targets: filter.targets,
  });
  const pairs = new Map<string, typeof rows>();
  for (const r of rows)
    pairs.set(`${r.region}|${r.target}|${r.prompt_variant}`, [...(pairs.get(`${r.region}|${r.target}|${r.prompt_variant}`) ?? []), r]);
  const config = getConfig();
  return c.json({
    schedule: config.bursts?.schedule ?? null,
    levels: config.bursts ? burstLevels(config.bursts) : [],
    runs: [...new Set(rows.map((r) => Number(r.tick_id)))].sort((a, b) => a - b).map((t) => new Date(t).toISOString()),
    method:
      "per level: TTFT p50/p95 and server time p50 over its successful streams; server_growth_ms = server p50 at the level − at level 1 (the queueing it adds); decode_tps per stream (median, slowest); rate_limited = answers 429 (a 429 stops a run's escalation); start spread = the last stream's request after the first, per run",
    reports: [...pairs.entries()].map(([key, mine]) => {
      const [region, target, prompt_variant] = key.split('|');
      return { region, target, prompt_variant, levels: levelReports(mine as unknown as BurstStreamRow[]) };
    }),
    ...(q.get('streams') === 'true' ? { streams: rows } : {}),
  });
});

app.post('/api/v1/bursts', async (c) => {
  await requireAdmin(c.req.raw, (c.env as { ADMIN_TOKEN?: string }).ADMIN_TOKEN);
  if (!getConfig().bursts) throw badRequest('no concurrency probes are configured (bursts in observatory.config.ts)');
  return c.json(await runBursts(c.env, Math.floor(Date.now() / MS_PER_MINUTE) * MS_PER_MINUTE), 202);
});

app.route('/', statusRoutes);

// `region=…` (one or more): a scrape of some regions only. At the free-plan goal (6 × 10) a scrape of every pair
// takes more CPU than a free-plan request has (bench/duties.ts); one scrape job a region fits.
app.get('/metrics', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, ['region']);
  const totals = await rollupTotals(c.env.DB, {
    methodVersion: METHOD_VERSION,
    regions: parseList(
      q,
      'region',
      getConfig().regions.map((r) => r.code),
    ),
  });
  return new Response(prometheusText(totals), { headers: { 'content-type': PROMETHEUS_CONTENT_TYPE } });
});

app.notFound((c) => c.json({ error: { code: 'not_found', message: `no route for ${c.req.method} ${new URL(c.req.url).pathname}` } }, 404));
app.onError((err, c) => {
  if (err instanceof ApiError) return c.json({ error: { code: err.code, message: err.message } }, err.status);
  if (err instanceof ConfigError)
    return c.json({ error: { code: 'config', message: 'the observatory configuration is invalid', problems: err.problems } }, 500);
  console.error('unhandled API error', err);
  return c.json({ error: { code: 'internal', message: 'internal error' } }, 500);
});

export { app };
