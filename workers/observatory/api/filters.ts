/** What the read routes share: the sample filter from a query, the window's bounds for anonymous readers, CSV answers. */
import type { Context } from 'hono';
import { METHOD_VERSION } from '../../../shared/constants.ts';
import { ANON_LIMITS } from '../../../shared/config/read-limits.ts';
import { DAY_MS } from '../../../shared/time.ts';
import { getConfig, workList } from '../config.ts';
import type { SampleFilter } from '../db/samples.ts';
import { badRequest } from './errors.ts';
import { requireTokenFor, type ReaderEnv } from './public-reads.ts';
import { commaValues, MAX_FREE_LIST_VALUES, parseBoolean, parseInt, parseList, parseWindow } from './query.ts';

/** Raw samples an anonymous request may span; rollup windows it may span at hourly resolution. */
const ANON_RAW_MS = ANON_LIMITS.rawWindowDays * DAY_MS;
export const ANON_HOURLY_MS = ANON_LIMITS.hourlyWindowDays * DAY_MS;

/** Raw samples over more than a day (`spanMs`) need the read token. */
export function boundRaw(c: Context<ReaderEnv>, spanMs: number, what: string): void {
  if (spanMs > ANON_RAW_MS) requireTokenFor(c, `${what} over more than ${ANON_LIMITS.rawWindowDays} day`);
}

export function csvResponse(body: string, filename: string): Response {
  return new Response(body, {
    headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="${filename}"` },
  });
}

export const WINDOW_PARAMS = ['window', 'from', 'to'];
export const FILTER_PARAMS = [
  ...WINDOW_PARAMS,
  'region',
  'target',
  'variant',
  'split_source',
  'include_backfill',
  'method_version',
  'format',
];

export function filterFrom(q: URLSearchParams, now: number): SampleFilter {
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
  const values = commaValues(raw);
  if (values.length === 0) throw badRequest('split_source names no source; give names like rtt or server-timing.total, comma-separated');
  for (const v of values)
    if (!/^[\w.+:-]{1,100}$/.test(v))
      throw badRequest(`split_source must be source names like rtt or server-timing.total, got "${v.slice(0, 100)}"`);
  if (values.length > MAX_FREE_LIST_VALUES)
    throw badRequest(`split_source takes at most ${MAX_FREE_LIST_VALUES} names, got ${values.length}`);
  return values;
}

export const windowOf = (f: SampleFilter) => ({ from: new Date(f.fromTick).toISOString(), to: new Date(f.toTick).toISOString() });

/** Region × target × variant pairs of the configuration that a filter selects: at most one rollup row each a period. */
export function selectedPairs(f: SampleFilter): number {
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
