/**
 * A part of the public views: what it builds (from D1 and the observatory's objects, once, when its data changed)
 * and which requests its views answer. The view builder (public-views.ts) loops over the parts; the read API's
 * view gate (serve-view.ts) over their routes.
 */
import type { ViewPartName } from './part-names.ts';
import type { ViewList } from '../../../shared/views/view-text.ts';
import type { ViewMatch } from '../../../shared/views/view-match.ts';

export { keysFirst, onlyParams, pairFilter, type PairLists, type ViewFilter, type ViewMatch } from '../../../shared/views/view-match.ts';

/**
 * One view as built: the answer of its route as JSON, and its list (absent: it is served whole, never narrowed);
 * or the answer as ready text, served whole with its content type (the Prometheus scrape).
 */
export type BuiltView = { name: string; doc: object; list?: ViewList } | { name: string; text: string; contentType: string };

export interface BuildContext {
  env: Env;
  /** D1, metered: what a build reads is counted in the manifest. */
  db: D1Database;
  now: number;
}

/**
 * Matches a request's query to a view, or null when the views do not hold its answer (another window, a
 * grouping no view has, CSV…): the live path answers it. A bad value throws the route's own 400.
 */
export type ViewMatcher = (q: URLSearchParams) => ViewMatch | null;

export interface ViewPart {
  name: ViewPartName;
  /** Route path → matcher. */
  routes: Record<string, ViewMatcher>;
  build(ctx: BuildContext): Promise<BuiltView[]>;
  /**
   * What its marks come with: 'tick' (default), the other regions' reports of a tick, a few seconds apart
   * (SETTLE_MS, public-views.ts); 'rollups', the other regions' rollups of an ended hour, each in the alarm after its
   * tick's probes, minutes apart (ROLLUP_SETTLE_SECONDS in wrangler.toml).
   */
  settle?: 'tick' | 'rollups';
}
