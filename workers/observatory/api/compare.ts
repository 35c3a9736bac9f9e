/**
 * GET /api/v1/compare: paired comparisons of every two targets in a region and prompt variant (MEASUREMENT.md,
 * "Comparing two targets"), from the hourly blocks the rollups write (one D1 row per region × variant × hour,
 * whatever the number of targets), with Holm's correction across every comparison in the answer.
 */
import { Hono } from 'hono';
import type { ComparisonDoc, CompareDoc } from '../../../shared/api-types.ts';
import { METHOD_VERSION } from '../../../shared/constants.ts';
import { ANON_LIMITS, COMPARISONS_PER_REQUEST, PAIRED_PAGE_ROWS } from '../../../shared/config/read-limits.ts';
import { blockOf, formatOf, PAIRED_FIGURES, pairKey, type PairedFigure, type StoredBlocks } from '../../../shared/rollup/paired-hours.ts';
import { compareFamily, DEFAULT_MARGIN, type PairBlock } from '../../../shared/stats/paired.ts';
import { HOUR_MS } from '../../../shared/time.ts';
import { getConfig, storedList } from '../config.ts';
import { pairedRowsIn, pairedHoursPage } from '../db/paired.ts';
import { ApiError, badRequest } from './errors.ts';
import { ANON_HOURLY_MS, pairLists, periodWindow, storedJsonPage, WINDOW_PARAMS } from './filters.ts';
import { requireTokenFor, type ReaderEnv } from './public-reads.ts';
import { onlyKnown, parseChoice, parseWindow } from './query.ts';

export const compareRoutes = new Hono<ReaderEnv>();

compareRoutes.get('/api/v1/compare', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, [...WINDOW_PARAMS, 'region', 'variant', 'target', 'figure', 'margin']);
  if (!q.has('window') && !q.has('from')) q.set('window', '7d');
  const config = getConfig();
  const w = parseWindow(q, Date.now());
  const fromHour = Math.ceil(w.from / HOUR_MS) * HOUR_MS;
  const toHour = Math.floor(w.to / HOUR_MS) * HOUR_MS;
  if (toHour - fromHour > ANON_HOURLY_MS) requireTokenFor(c, `comparisons over more than ${ANON_LIMITS.hourlyWindowDays} days`);
  const lists = pairLists(q);
  const regions = lists.regions ?? config.regions.map((r) => r.code);
  const variants = lists.variants ?? [config.promptVariants[0].id];
  const targets = lists.targets;
  const figure = parseChoice(q, 'figure', PAIRED_FIGURES, 'ttfa_ms') as PairedFigure;
  const margin = q.has('margin') ? Number(q.get('margin')) / 100 : DEFAULT_MARGIN;
  if (!Number.isFinite(margin) || margin < 0 || margin > 0.5) throw badRequest('margin must be a percentage from 0 to 50, like 5');
  const index = PAIRED_FIGURES.indexOf(figure);

  // Every pair of targets that both run the variant in the region, in id order (A < B).
  const wanted: Array<{ region: string; variant: string; a: string; b: string }> = [];
  for (const region of regions)
    for (const variant of variants) {
      const ids = [
        ...new Set(
          storedList(region)
            .filter((x) => x.variant.id === variant && (!targets || targets.includes(x.target.id)))
            .map((x) => x.target.id),
        ),
      ].sort();
      for (let i = 0; i < ids.length; i++) for (let j = i + 1; j < ids.length; j++) wanted.push({ region, variant, a: ids[i], b: ids[j] });
    }
  const cap = COMPARISONS_PER_REQUEST[config.plan];
  if (wanted.length > cap)
    throw new ApiError(
      400,
      'too_much_work',
      `this selection holds ${wanted.length} comparisons; one request answers at most ${cap} on the ${config.plan} plan (what fits its CPU): ask per region and variant, or name the targets (target=a,b,…)`,
    );

  const rows =
    wanted.length > 0 ? await pairedRowsIn(c.env.DB, { fromHour, toHour, methodVersion: METHOD_VERSION, regions, variants }) : [];
  // Only the wanted pairs' blocks are taken from each row's JSON.
  const series = wanted.map((x) => ({ ...x, pair: pairKey(x.a, x.b), blocks: [] as PairBlock[] }));
  for (const row of rows) {
    const parsed = JSON.parse(row.blocks) as StoredBlocks;
    const format = formatOf(parsed);
    for (const x of series) {
      if (x.region !== row.region || x.variant !== row.prompt_variant) continue;
      const raw = parsed[x.pair];
      if (Array.isArray(raw)) x.blocks.push(blockOf(row.hour, raw, format));
    }
  }
  // Holm's levels from each comparison's own p-value, then each interval at its level.
  const results = compareFamily(
    series.map((x) => x.blocks),
    index,
    margin,
  );
  const comparisons: ComparisonDoc[] = wanted.map((x, i) => ({
    region: x.region,
    prompt_variant: x.variant,
    a: x.a,
    b: x.b,
    ...results[i],
  }));
  const doc: CompareDoc = {
    window: { from: new Date(fromHour).toISOString(), to: new Date(Math.max(fromHour, toHour)).toISOString() },
    figure,
    margin_pct: margin * 100,
    method:
      "paired by tick: d = ln(x_A / x_B) where both succeeded; each hour its median d; consecutive hours joined into blocks of block_hours, as long as the hours' measured autocorrelation needs (each block the mean of its hours); Hodges-Lehmann shift with the Wilcoxon signed-rank interval over the blocks, Holm-corrected across the comparisons in this answer by p-values read from the same ranks; difference_pct = 100(e^shift - 1), negative when A is faster; win_rate and b_win_rate: shares of paired ticks each side was lower on this figure (a tie counts for neither)",
    comparisons,
  };
  return c.json(doc);
});

/**
 * GET /api/v1/paired-hours: the hourly blocks themselves, for a reader that compares on its own (the site build
 * computes every figure of every pair from them, shared/stats/paired.ts): whole hours, `next_cursor` for the next page.
 */
compareRoutes.get('/api/v1/paired-hours', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, [...WINDOW_PARAMS, 'region', 'variant', 'cursor']);
  const config = getConfig();
  const { from, to, start } = periodWindow(q, HOUR_MS, '7d');
  const lists = pairLists(q);
  if (to - from > ANON_HOURLY_MS) requireTokenFor(c, `paired blocks over more than ${ANON_LIMITS.hourlyWindowDays} days`);
  const page = await pairedHoursPage(
    c.env.DB,
    {
      fromHour: start,
      toHour: to,
      methodVersion: METHOD_VERSION,
      regions: lists.regions,
      variants: lists.variants,
    },
    PAIRED_PAGE_ROWS,
  );
  const head = {
    window: { from: new Date(from).toISOString(), to: new Date(Math.max(from, to)).toISOString() },
    figures: PAIRED_FIGURES,
    blocks:
      'format (key "v") 2: pair a|b → per figure [paired ticks, ticks A was lower, ticks B was lower, median ln(x_A/x_B)]; rows without "v" (format 1, written before per-figure counts): pair a|b → [paired ticks, ticks A was faster, median ln(x_A/x_B) per figure], the counts TTFA\'s alone',
  };
  return storedJsonPage(head, page.rows, 'blocks', page.next);
});
