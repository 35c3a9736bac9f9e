/**
 * GET /api/v1/prompt-cache: what each opted-in target's prompt cache is worth, per region (MEASUREMENT.md,
 * "Prompt cache"): the paired discount of the second pass on TTFT and on server time, with its interval,
 * from the hourly blocks the rollups write (one D1 row per region × target × hour), and the cached tokens
 * the provider reported on the second passes.
 */
import { Hono } from 'hono';
import type { PromptCacheDoc, PromptCachesDoc } from '../../../shared/api-types.ts';
import { METHOD_VERSION } from '../../../shared/constants.ts';
import { ANON_LIMITS, COMPARISONS_PER_REQUEST } from '../../../shared/config/read-limits.ts';
import { cacheDiscount } from '../../../shared/rollup/cache-hours.ts';
import { DEFAULT_MARGIN, type PairBlock } from '../../../shared/stats/paired.ts';
import { HOUR_MS } from '../../../shared/time.ts';
import { getConfig, storedList } from '../config.ts';
import { cacheRowsIn, type StoredCacheRow } from '../db/cache.ts';
import { ApiError, badRequest } from './errors.ts';
import { ANON_HOURLY_MS, pairLists, WINDOW_PARAMS } from './filters.ts';
import { requireTokenFor, type ReaderEnv } from './public-reads.ts';
import { onlyKnown, parseWindow } from './query.ts';

export const promptCacheRoutes = new Hono<ReaderEnv>();

/** A stored row's block: TTFT's counts and server time's own (null on rows written before they were stored); B's wins never stored. */
const cacheBlockOf = (r: StoredCacheRow): PairBlock => ({
  hour: r.hour,
  n: [r.n, r.n_server],
  aWins: [r.wins, r.wins_server],
  bWins: [null, null],
  d: [r.d_ttft, r.d_server],
});

promptCacheRoutes.get('/api/v1/prompt-cache', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, [...WINDOW_PARAMS, 'region', 'target', 'margin']);
  if (!q.has('window') && !q.has('from')) q.set('window', '7d');
  const config = getConfig();
  const w = parseWindow(q, Date.now());
  const fromHour = Math.ceil(w.from / HOUR_MS) * HOUR_MS;
  const toHour = Math.floor(w.to / HOUR_MS) * HOUR_MS;
  if (toHour - fromHour > ANON_HOURLY_MS) requireTokenFor(c, `prompt-cache discounts over more than ${ANON_LIMITS.hourlyWindowDays} days`);
  const lists = pairLists(q);
  const regions = lists.regions ?? config.regions.map((r) => r.code);
  const targets = lists.targets;
  const margin = q.has('margin') ? Number(q.get('margin')) / 100 : DEFAULT_MARGIN;
  if (!Number.isFinite(margin) || margin < 0 || margin > 0.5) throw badRequest('margin must be a percentage from 0 to 50, like 5');

  const targetIds = targets ?? config.targets.map((t) => t.id);
  // Each opted-in target × prompt-cache variant each region runs (listed also before it has data), and any other the
  // window's rows hold (a target that opted out since): one row an hour each, so the window holds at most this many.
  const hours = Math.max(0, (toHour - fromHour) / HOUR_MS);
  const rows = await cacheRowsIn(
    c.env.DB,
    { from: fromHour, to: toHour, methodVersion: METHOD_VERSION, regions, targets: targetIds },
    Math.max(1, hours * regions.length * targetIds.length),
  );
  const key = (x: { region: string; target: string; prompt_variant: string }) => `${x.region}|${x.target}|${x.prompt_variant}`;
  const wanted = new Map<string, { region: string; target: string; prompt_variant: string }>();
  for (const region of regions)
    for (const w of storedList(region))
      if (w.variant.promptCache && targetIds.includes(w.target.id)) {
        const x = { region, target: w.target.id, prompt_variant: w.variant.id };
        wanted.set(key(x), x);
      }
  // The rows by cache, in one pass (each cache's hours in hour order, as read).
  const byCache = new Map<string, StoredCacheRow[]>();
  for (const r of rows) {
    const k = key(r);
    if (!wanted.has(k)) wanted.set(k, { region: r.region, target: r.target, prompt_variant: r.prompt_variant });
    let list = byCache.get(k);
    if (!list) byCache.set(k, (list = []));
    list.push(r);
  }
  // Each is two paired intervals: it counts twice against the comparisons one request may rank.
  const cap = Math.floor(COMPARISONS_PER_REQUEST[config.plan] / 2);
  if (wanted.size > cap)
    throw new ApiError(
      400,
      'too_much_work',
      `this selection holds ${wanted.size} prompt caches; one request answers at most ${cap} on the ${config.plan} plan (what fits its CPU): ask per region, or name the targets (target=a,b,…)`,
    );
  const caches: PromptCacheDoc[] = [...wanted.values()]
    .sort((a, b) => key(a).localeCompare(key(b)))
    .map((x) => {
      const mine = byCache.get(key(x)) ?? [];
      const blocks: PairBlock[] = mine.map(cacheBlockOf);
      const reported = mine.reduce((n, r) => n + r.reported, 0);
      const hits = mine.reduce((n, r) => n + r.hits, 0);
      const sum = mine.reduce((n, r) => n + r.cached_sum, 0);
      return {
        region: x.region,
        target: x.target,
        prompt_variant: x.prompt_variant,
        ttft: cacheDiscount(blocks, 'ttft_ms', margin),
        server: cacheDiscount(blocks, 'server_ms', margin),
        cached_tokens: { reported, hits, hit_rate: reported > 0 ? hits / reported : null, mean: reported > 0 ? sum / reported : null },
      };
    });
  const doc: PromptCachesDoc = {
    window: { from: new Date(fromHour).toISOString(), to: new Date(Math.max(fromHour, toHour)).toISOString() },
    margin_pct: margin * 100,
    method:
      "paired by tick: d = ln(second pass / first pass) where both succeeded; each hour its median d; consecutive hours joined into blocks of block_hours, as long as the hours' measured autocorrelation needs (each block the mean of its hours); Hodges-Lehmann shift with the Wilcoxon signed-rank interval over the blocks; discount_pct = 100(1 - e^shift), positive when the second pass (prefix reused) was faster; pairs and win_rate per figure",
    caches,
  };
  return c.json(doc);
});
