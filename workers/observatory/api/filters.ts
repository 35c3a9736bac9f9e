/** What the read routes share: the sample filter from a query, the window's bounds for anonymous readers, CSV answers. */
import type { Context } from 'hono';
import { METHOD_VERSION } from '../../../shared/constants.ts';
import { ANON_LIMITS } from '../../../shared/config/read-limits.ts';
import { DAY_MS } from '../../../shared/time.ts';
import { getConfig, storedList } from '../config.ts';
import type { SampleFilter } from '../db/samples.ts';
import { badRequest } from './errors.ts';
import { requireTokenFor, type ReaderEnv } from './public-reads.ts';
import { commaValues, MAX_FREE_LIST_VALUES, parseBoolean, parseIntParam, parseList, parseWindow } from './query.ts';

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
/** A query's `region`, `target` and `variant` lists, each checked against the configuration (undefined: all of them). */
export function pairLists(q: URLSearchParams): { regions?: string[]; targets?: string[]; variants?: string[] } {
  const c = getConfig();
  return {
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
  };
}

export function filterFrom(q: URLSearchParams, now: number): SampleFilter {
  const w = parseWindow(q, now);
  return {
    fromTick: w.from,
    toTick: w.to,
    ...pairLists(q),
    splitSources: parseSplitSources(q),
    includeBackfill: parseBoolean(q, 'include_backfill', true),
    methodVersion: parseIntParam(q, 'method_version', METHOD_VERSION, 1, 1_000),
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
        storedList(r.code).filter(
          (w) => (!f.targets || f.targets.includes(w.target.id)) && (!f.variants || f.variants.includes(w.variant.id)),
        ).length,
      0,
    );
}

/**
 * A paged read's whole periods (of `unitMs`) inside the window asked (`window`, or `from`/`to`, else
 * `defaultWindow`), and where this page starts: `cursor`, a period start inside them (the last page's next_cursor).
 */
export function periodWindow(
  q: URLSearchParams,
  unitMs: number,
  defaultWindow?: string,
  now = Date.now(),
): { from: number; to: number; start: number } {
  if (defaultWindow && !q.has('window') && !q.has('from')) q.set('window', defaultWindow);
  const w = parseWindow(q, now);
  const from = Math.ceil(w.from / unitMs) * unitMs;
  const to = Math.floor(w.to / unitMs) * unitMs;
  const start = q.has('cursor') ? parseIntParam(q, 'cursor', from, Math.min(from, to), Math.max(from, to)) : from;
  return { from, to, start };
}

/**
 * A page of rows whose `column` holds JSON as D1 stores it, as a JSON answer: `head` first, then the rows (that
 * column written out as it is, not parsed and encoded again) and `next_cursor`.
 */
export function storedJsonPage<R extends object>(
  head: object,
  rows: readonly R[],
  column: keyof R & string,
  next: number | null,
): Response {
  const row = (r: R) => {
    const { [column]: text, ...rest } = r as Record<string, unknown>;
    const fields = JSON.stringify(rest);
    return `${fields.slice(0, -1)}${fields.length > 2 ? ',' : ''}${JSON.stringify(column)}:${text}}`;
  };
  const body = `${JSON.stringify(head).slice(0, -1)},"rows":[${rows.map(row).join(',')}],"next_cursor":${next ?? 'null'}}`;
  return new Response(body, { headers: { 'content-type': 'application/json; charset=utf-8' } });
}
