/**
 * GET /api/v1/compare: paired comparisons of every two targets in a region and prompt variant (MEASUREMENT.md,
 * "Comparing two targets"), from the hourly blocks the rollups write (one D1 row per region × variant × hour,
 * whatever the number of targets), with Holm's correction within each family: one region × variant × figure, every
 * pair of the targets that run the variant there (shared/rollup/paired-families.ts). `target=` chooses which of a
 * family's pairs are shown (both named), never the family: an interval is the same however the answer is narrowed.
 */
import { paramsOf } from '../../../shared/api-contract/params.ts';
import { Hono } from 'hono';
import type { ComparisonDoc } from '../../../shared/api-types.ts';
import { METHOD_VERSION } from '../../../shared/constants.ts';
import { ANON_LIMITS, COMPARISONS_PER_REQUEST, PAIRED_PAGE_ROWS } from '../../../shared/config/read-limits.ts';
import { PAIRED_FIGURES, type PairedFigure, type StoredBlocks } from '../../../shared/rollup/paired-hours.ts';
import {
  compareDocument,
  familySeries,
  familySeriesComparisons,
  familySize,
  type PairedFamily,
  type ParsedPairedRow,
} from '../../../shared/rollup/paired-families.ts';
import { DEFAULT_MARGIN } from '../../../shared/stats/paired.ts';
import { HOUR_MS } from '../../../shared/time.ts';
import { getConfig, storedList } from '../config.ts';
import { familyStoredIn, pairedHoursPage, type StoredPairedRow } from '../db/paired.ts';
import { ApiError, badRequest } from './errors.ts';
import { ANON_HOURLY_MS, pairLists, periodWindow, storedJsonPage } from './filters.ts';
import { requireTokenFor, type ReaderEnv } from './public-reads.ts';
import { onlyKnown, parseChoice, parseWindow } from './query.ts';

export const compareRoutes = new Hono<ReaderEnv>();

/**
 * The families of these regions and variants (every one when absent) as configured, in the configuration's order
 * whatever the lists' (a variant's targets in a region), those with a pair at least.
 */
export function compareFamilies(regions?: readonly string[], variants?: readonly string[]): PairedFamily[] {
  const config = getConfig();
  const out: PairedFamily[] = [];
  for (const region of config.regions.map((r) => r.code).filter((r) => !regions || regions.includes(r)))
    for (const variant of config.promptVariants.map((v) => v.id).filter((v) => !variants || variants.includes(v))) {
      const targets = [
        ...new Set(
          storedList(region)
            .filter((x) => x.variant.id === variant)
            .map((x) => x.target.id),
        ),
      ];
      const f = { region, prompt_variant: variant, targets };
      if (familySize(f) > 0) out.push(f);
    }
  return out;
}

/** Rows of one region × variant, parsed (each row's JSON once). */
export const parsedRowsOf = (rows: readonly StoredPairedRow[], f: PairedFamily): ParsedPairedRow[] =>
  rows
    .filter((r) => r.region === f.region && r.prompt_variant === f.prompt_variant)
    .map((r) => ({ hour: r.hour, blocks: JSON.parse(r.blocks) as StoredBlocks }));

compareRoutes.get('/compare', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, paramsOf('compare'));
  if (!q.has('window') && !q.has('from')) q.set('window', '7d');
  const config = getConfig();
  const w = parseWindow(q, Date.now());
  const fromHour = Math.ceil(w.from / HOUR_MS) * HOUR_MS;
  const toHour = Math.floor(w.to / HOUR_MS) * HOUR_MS;
  if (toHour - fromHour > ANON_HOURLY_MS) requireTokenFor(c, `comparisons over more than ${ANON_LIMITS.hourlyWindowDays} days`);
  const lists = pairLists(q);
  const variants = lists.variants ?? [config.promptVariants[0].id];
  const targets = lists.targets;
  const figure = parseChoice(q, 'figure', PAIRED_FIGURES, 'ttfa_ms') as PairedFigure;
  const margin = q.has('margin') ? Number(q.get('margin')) / 100 : DEFAULT_MARGIN;
  if (!Number.isFinite(margin) || margin < 0 || margin > 0.5) throw badRequest('margin must be a percentage from 0 to 50, like 5');

  // Every family a shown pair belongs to is computed whole: its correction ranks all its pairs.
  const shown = (a: string, b: string) => !targets || (targets.includes(a) && targets.includes(b));
  const families = compareFamilies(lists.regions, variants).filter((f) => f.targets.filter((t) => shown(t, t)).length >= 2);
  const work = families.reduce((n, f) => n + familySize(f), 0);
  const cap = COMPARISONS_PER_REQUEST[config.plan];
  if (work > cap)
    throw new ApiError(
      400,
      'too_much_work',
      `this selection needs ${work} comparisons (each region × variant's family whole: its correction ranks every pair of its targets); one request computes at most ${cap} on the ${config.plan} plan (what fits its CPU): ask per region and variant`,
    );

  const comparisons: ComparisonDoc[] = [];
  for (const f of families) {
    // Its whole days packed (a D1 row a day), hourly rows for the rest.
    const { rows, days } = await familyStoredIn(c.env.DB, {
      region: f.region,
      prompt_variant: f.prompt_variant,
      methodVersion: METHOD_VERSION,
      fromHour,
      toHour,
    });
    const results = familySeriesComparisons(f, familySeries(f, rows, [figure], days), [figure], margin).get(figure)!;
    comparisons.push(...results.filter((x) => shown(x.a, x.b)));
  }
  return c.json(compareDocument(fromHour, toHour, figure, margin, comparisons));
});

/**
 * GET /api/v1/paired-hours: the hourly blocks themselves, for a reader that compares on its own (shared/stats/paired.ts):
 * whole hours, `next_cursor` for the next page.
 */
compareRoutes.get('/paired-hours', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, paramsOf('pairedHours'));
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
