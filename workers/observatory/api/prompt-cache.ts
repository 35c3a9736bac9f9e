/**
 * GET /api/v1/prompt-cache: what each opted-in target's prompt cache is worth, per region (MEASUREMENT.md,
 * "Prompt cache"): the paired discount of the second pass on TTFT and on server time, with its interval,
 * from the hourly blocks the rollups write (one D1 row per region × target × hour), and the cached tokens
 * the provider reported on the second passes.
 */
import { paramsOf } from '../../../shared/api-contract/params.ts';
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
import { ANON_HOURLY_MS, pairLists } from './filters.ts';
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

promptCacheRoutes.get('/prompt-cache', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, paramsOf('promptCache'));
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
  const regionIds = config.regions.map((r) => r.code).filter((r) => regions.includes(r));
  const wanted = wantedCaches(regionIds, targetIds);
  // Each is two paired intervals: it counts twice against the comparisons one request may rank.
  const cap = Math.floor(COMPARISONS_PER_REQUEST[config.plan] / 2);
  if (wanted.length > cap)
    throw new ApiError(
      400,
      'too_much_work',
      `this selection holds ${wanted.length} prompt caches; one request answers at most ${cap} on the ${config.plan} plan (what fits its CPU): ask per region, or name the targets (target=a,b,…)`,
    );
  // One row an hour each cache (a target that opted out since may add its own): at most this many.
  const hours = Math.max(0, (toHour - fromHour) / HOUR_MS);
  const rows = await cacheRowsIn(
    c.env.DB,
    { from: fromHour, to: toHour, methodVersion: METHOD_VERSION, regions: regionIds, targets: targetIds },
    Math.max(1, hours * regionIds.length * targetIds.length),
  );
  return c.json(promptCachesDocument(fromHour, toHour, margin, wanted, rows));
});

/** Each opted-in target × prompt-cache variant each of these regions runs: listed also before it has data. */
export function wantedCaches(regions: readonly string[], targets: readonly string[]): CacheKey[] {
  const out: CacheKey[] = [];
  for (const region of regions)
    for (const w of storedList(region))
      if (w.variant.promptCache && targets.includes(w.target.id)) out.push({ region, target: w.target.id, prompt_variant: w.variant.id });
  return out;
}

type CacheKey = { region: string; target: string; prompt_variant: string };
const key = (x: CacheKey) => `${x.region}|${x.target}|${x.prompt_variant}`;

/**
 * The answer over [fromHour, toHour) from the caches wanted and the window's rows (each cache's hours in hour order,
 * as read), and any other cache the rows hold (a target that opted out since). Each cache is computed on its own,
 * so the answer for some regions and targets is the whole answer's caches of them.
 */
export function promptCachesDocument(
  fromHour: number,
  toHour: number,
  margin: number,
  wanted: readonly CacheKey[],
  rows: readonly StoredCacheRow[],
): PromptCachesDoc {
  const all = new Map(wanted.map((x) => [key(x), x]));
  // The rows by cache, in one pass.
  const byCache = new Map<string, StoredCacheRow[]>();
  for (const r of rows) {
    const k = key(r);
    if (!all.has(k)) all.set(k, { region: r.region, target: r.target, prompt_variant: r.prompt_variant });
    let list = byCache.get(k);
    if (!list) byCache.set(k, (list = []));
    list.push(r);
  }
  const caches: PromptCacheDoc[] = [...all.values()]
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
  return {
    window: { from: new Date(fromHour).toISOString(), to: new Date(Math.max(fromHour, toHour)).toISOString() },
    margin_pct: margin * 100,
    method:
      "paired by tick: d = ln(second pass / first pass) where both succeeded; each hour its median d; consecutive hours joined into blocks of block_hours, as long as the hours' measured autocorrelation needs (each block the mean of its hours); Hodges-Lehmann shift with the Wilcoxon signed-rank interval over the blocks; discount_pct = 100(1 - e^shift), positive when the second pass (prefix reused) was faster; pairs and win_rate per figure",
    caches,
  };
}
