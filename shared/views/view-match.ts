/**
 * Which view answers a request, and how its answer is narrowed: by the leading keys of its list's lines
 * (view-text.ts), the region, target and prompt variant a request names.
 */
import type { ViewList } from './view-text.ts';

/** Which view answers a request, and how it is narrowed (by the leading keys of its list's lines). */
export interface ViewMatch {
  view: string;
  filter?: ViewFilter;
}

export interface ViewFilter {
  /** How many leading keys each line of the view's list is read for. */
  keys: number;
  keep(keys: readonly string[]): boolean;
  /** The filter in words, part of the answer's ETag. */
  id: string;
}

/** The lists of a request's filter, as the read routes parse them (api/filters.ts pairLists). */
export interface PairLists {
  regions?: string[];
  targets?: string[];
  variants?: string[];
}

/** Which list of a request narrows a key of a view's list: regions, targets (also both sides of a pair), variants. */
const LIST_OF_KEY: Record<string, keyof PairLists> = {
  region: 'regions',
  target: 'targets',
  a: 'targets',
  b: 'targets',
  prompt_variant: 'variants',
};

/**
 * The filter that keeps the lines of `list` whose keys are in the request's lists (a key no list narrows, any
 * value); undefined when nothing is narrowed.
 */
export function pairFilter(list: ViewList, lists: PairLists): ViewFilter | undefined {
  const allowed = list.keys.map((k) => {
    const values = LIST_OF_KEY[k] ? lists[LIST_OF_KEY[k]] : undefined;
    return values ? new Set(values) : undefined;
  });
  if (allowed.every((a) => a === undefined)) return undefined;
  return {
    keys: list.keys.length,
    keep: (keys) => allowed.every((a, i) => a === undefined || a.has(keys[i])),
    id: list.keys.map((k, i) => `${k}=${allowed[i] ? [...allowed[i]!].sort().join(',') : '*'}`).join(';'),
  };
}

/** Whether a query names only these parameters, each once. */
export function onlyParams(q: URLSearchParams, allowed: readonly string[]): boolean {
  for (const name of new Set(q.keys())) if (!allowed.includes(name) || q.getAll(name).length > 1) return false;
  return q.get('format') === null || q.get('format') === 'json';
}

/** An element with its key fields first, in the list's order (so its line starts with them). */
export function keysFirst<T extends object>(item: T, keys: readonly string[]): T {
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = (item as Record<string, unknown>)[k];
  return Object.assign(out, item) as T;
}
