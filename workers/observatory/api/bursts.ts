/** Concurrency probes: GET /api/v1/bursts (what each level reported) and POST /api/v1/bursts (admin: a run now). */
import type { BurstsDoc } from '../../../shared/api-types.ts';
import { Hono } from 'hono';
import { levelReports, type BurstStreamRow } from '../../../shared/bursts/level-report.ts';
import { burstLevels } from '../../../shared/config/bursts.ts';
import { ANON_LIMITS, SITE_BURST_RUNS } from '../../../shared/config/read-limits.ts';
import { DAY_MS, MINUTE_MS } from '../../../shared/time.ts';
import { getConfig } from '../config.ts';
import { burstSamplesIn, latestBurstRuns } from '../db/bursts.ts';
import { runBursts } from '../scheduler.ts';
import { requireAdmin } from './admin.ts';
import { badRequest } from './errors.ts';
import { boundRaw, filterFrom, WINDOW_PARAMS } from './filters.ts';
import { requireTokenFor, type ReaderEnv } from './public-reads.ts';
import { onlyKnown, parseInt } from './query.ts';

export const burstRoutes = new Hono<ReaderEnv>();

/**
 * Concurrency probes: per region × target, what each level reported (TTFT p50/p95, server time's growth
 * over one stream alone, decode speed per stream, errors and rate limits, how closely the starts lined
 * up), over the newest `runs` runs (default 6) or a window; `streams=true` adds every stream.
 */
burstRoutes.get('/api/v1/bursts', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, [...WINDOW_PARAMS, 'region', 'target', 'runs', 'streams']);
  // Without a window: the newest runs of the raw retention (burst samples are kept as long as samples).
  const explicit = WINDOW_PARAMS.some((p) => q.has(p));
  const filter = filterFrom(q, Date.now());
  if (!explicit) filter.fromTick = Date.now() - getConfig().retentionDays * DAY_MS;
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
  const doc: BurstsDoc = {
    schedule: config.bursts?.schedule ?? null,
    levels: config.bursts ? burstLevels(config.bursts) : [],
    runs: [...new Set(rows.map((r) => Number(r.tick_id)))].sort((a, b) => a - b).map((t) => new Date(t).toISOString()),
    method:
      "per level: TTFT p50/p95 and server time p50 over its successful streams; server_growth_ms = server p50 at the level − at level 1 (the queueing it adds); decode_tps per stream (median, slowest); rate_limited = answers 429 (a 429 stops a run's escalation); start spread = the last stream's request after the first, per run",
    reports: [...pairs.entries()].map(([key, mine]) => {
      const [region, target, prompt_variant] = key.split('|');
      return { region, target, prompt_variant, levels: levelReports(mine as unknown as BurstStreamRow[]) };
    }),
  };
  return c.json({ ...doc, ...(q.get('streams') === 'true' ? { streams: rows } : {}) });
});

burstRoutes.post('/api/v1/bursts', async (c) => {
  await requireAdmin(c.req.raw, (c.env as { ADMIN_TOKEN?: string }).ADMIN_TOKEN);
  if (!getConfig().bursts) throw badRequest('no concurrency probes are configured (bursts in observatory.config.ts)');
  return c.json(await runBursts(c.env, Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS), 202);
});
