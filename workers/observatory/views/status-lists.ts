/**
 * The lines of the status family's views (history-views.ts, incident-views.ts): which keys each line starts with,
 * and which lines an incidents request keeps. Plain TypeScript (no binding), so the benchmarks narrow the same
 * lines the read API does.
 */
import type { ViewList } from '../../../shared/views/view-text.ts';

/**
 * A history row's line starts with the keys a request narrows by, the most narrowed first (target), then its period
 * and the rest as the live route writes them.
 */
export const HISTORY_KEYS = ['target', 'region', 'prompt_variant'] as const;
export const HISTORY_LIST: ViewList = { field: 'rows', keys: HISTORY_KEYS };

/**
 * The leading keys a request's lists narrow, up to the last of them: a line is read for no more keys than that
 * (reading a key is most of what narrowing a line costs).
 */
export function historyKeysFor(lists: { targets?: unknown; regions?: unknown; variants?: unknown }): ViewList {
  const narrowed = [lists.targets, lists.regions, lists.variants].map((l) => l !== undefined);
  return { field: 'rows', keys: HISTORY_KEYS.slice(0, narrowed.lastIndexOf(true) + 1) };
}

/** An incident's line starts with its target and status: what a request narrows by. */
export const INCIDENT_LIST: ViewList = { field: 'incidents', keys: ['target', 'status'] };

/** The lines an incidents request keeps (a ViewFilter): the first `limit` of its target and status, each line read once, in order. */
export function incidentLines(
  target: string | undefined,
  status: string | undefined,
  limit: number,
): { keys: number; keep: (keys: readonly string[]) => boolean; id: string } {
  let kept = 0;
  return {
    keys: INCIDENT_LIST.keys.length,
    keep: (keys) => (target === undefined || keys[0] === target) && (status === undefined || keys[1] === status) && kept++ < limit,
    id: `target=${target ?? '*'};status=${status ?? '*'};limit=${limit}`,
  };
}
