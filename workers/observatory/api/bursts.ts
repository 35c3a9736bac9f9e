/** Concurrency probes: GET /api/v1/bursts (what each level reported) and POST /api/v1/bursts (admin: a run now). */
import { paramsOf } from '../../../shared/api-contract/params.ts';
import type { BurstsDoc } from '../../../shared/api-types.ts';
import { Hono } from 'hono';
import { levelReports, type BurstStreamRow } from '../../../shared/bursts/level-report.ts';
import { burstLevels } from '../../../shared/config/bursts.ts';
import { ANON_LIMITS, SITE_BURST_RUNS } from '../../../shared/config/read-limits.ts';
import { DAY_MS, MINUTE_MS } from '../../../shared/time.ts';
import { getConfig } from '../config.ts';
import { burstSamplesIn, latestBurstRuns, type BurstRow } from '../db/bursts.ts';
import { runBursts } from '../prober/scheduler.ts';
import { requireAdmin } from './admin.ts';
import { badRequest } from './errors.ts';
import { boundRaw, filterFrom, WINDOW_PARAMS } from './filters.ts';
import { requireTokenFor, type ReaderEnv } from './public-reads.ts';
import { onlyKnown, parseIntParam } from './query.ts';

export const burstRoutes = new Hono<ReaderEnv>();

/**
 * What the report covers without a window: the raw retention (burst samples are kept as long as samples), ending
 * now. The route's default, and its view's.
 */
export function defaultBurstWindow(now: number): { fromTick: number; toTick: number } {
  return { fromTick: now - getConfig().retentionDays * DAY_MS, toTick: now };
}

/**
 * The concurrency report over the newest `runCount` runs of the window (every run in it when undefined): per region
 * × target × variant, what each level reported. The runs are chosen before `regions`/`targets` narrow the streams,
 * so a narrowed report covers the same runs as the whole (its view's lines narrowed). `rows`: the streams read.
 */
export async function burstReport(
  db: D1Database,
  window: { fromTick: number; toTick: number },
  lists: { regions?: string[]; targets?: string[] },
  runCount: number | undefined,
): Promise<{ doc: BurstsDoc; rows: BurstRow[] }> {
  const runs = runCount === undefined ? undefined : await latestBurstRuns(db, runCount, window);
  const rows = await burstSamplesIn(db, { ...window, runs, regions: lists.regions, targets: lists.targets });
  const pairs = new Map<string, BurstRow[]>();
  for (const r of rows) {
    const key = `${r.region}|${r.target}|${r.prompt_variant}`;
    const mine = pairs.get(key);
    if (mine) mine.push(r);
    else pairs.set(key, [r]);
  }
  const config = getConfig();
  const doc: BurstsDoc = {
    schedule: config.bursts?.schedule ?? null,
    levels: config.bursts ? burstLevels(config.bursts) : [],
    runs: (runs ?? [...new Set(rows.map((r) => Number(r.tick_id)))]).sort((a, b) => a - b).map((t) => new Date(t).toISOString()),
    method:
      "per level: TTFT p50/p95 and server time p50 over its successful streams; server_growth_ms = server p50 at the level − at level 1 (the queueing it adds); decode_tps per stream (median, slowest); rate_limited = answers 429 (a 429 stops a run's escalation); start spread = the last stream's request after the first, per run",
    reports: [...pairs.entries()].map(([key, mine]) => {
      const [region, target, prompt_variant] = key.split('|');
      return { region, target, prompt_variant, levels: levelReports(mine as unknown as BurstStreamRow[]) };
    }),
  };
  return { doc, rows };
}

/**
 * Concurrency probes: per region × target, what each level reported (TTFT p50/p95, server time's growth
 * over one stream alone, decode speed per stream, errors and rate limits, how closely the starts lined
 * up), over the newest `runs` runs (default 6) or a window; `streams=true` adds every stream.
 */
burstRoutes.get('/bursts', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, paramsOf('bursts'));
  const explicit = WINDOW_PARAMS.some((p) => q.has(p));
  const now = Date.now();
  const filter = filterFrom(q, now);
  const window = explicit ? { fromTick: filter.fromTick, toTick: filter.toTick } : defaultBurstWindow(now);
  const runCount = parseIntParam(q, 'runs', SITE_BURST_RUNS, 1, 200);
  if (runCount > ANON_LIMITS.burstRuns) requireTokenFor(c, `a report of more than ${ANON_LIMITS.burstRuns} runs`);
  // A window without `runs` reads every run in it: as many as a day of runs holds at most.
  if (explicit && !q.has('runs')) boundRaw(c, window.toTick - window.fromTick, 'concurrency runs');
  const { doc, rows } = await burstReport(c.env.DB, window, filter, explicit && !q.has('runs') ? undefined : runCount);
  return c.json({ ...doc, ...(q.get('streams') === 'true' ? { streams: rows } : {}) });
});

burstRoutes.post('/bursts', async (c) => {
  await requireAdmin(c.req.raw, (c.env as { ADMIN_TOKEN?: string }).ADMIN_TOKEN);
  if (!getConfig().bursts) throw badRequest('no concurrency probes are configured (bursts in observatory.config.ts)');
  return c.json(await runBursts(c.env, Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS), 202);
});
