/**
 * The views of what changes every tick: GET /api/v1/status (the status keeper's verdict now), GET /api/v1/health
 * (each region's duties, the keeper's notifications, how old each view is); and, rebuilt with each rolled-up hour,
 * the catalog of regions and targets, where each was answered and how its timing claims held, over the last 24
 * whole hours (GET /api/v1/regions, /targets, /served-by and /fidelity, from one read of the hours' place records).
 */
import { DAY_MS, HOUR_MS } from '../../../shared/time.ts';
import { healthDocument } from '../api/health.ts';
import { regionsFromPlaces, targetsFromPlaces } from '../api/catalog.ts';
import { pairLists } from '../api/filters.ts';
import { fidelityDocument, servedByDocument } from '../api/places.ts';
import { placesIn } from '../db/places.ts';
import { statusDocument } from '../api/status.ts';
import type { ViewAges } from './manifest.ts';
import { onlyParams, pairFilter, type ViewMatcher, type ViewPart } from './view-part.ts';

/** A view answered whole, for a request that names no parameter (or only format=json). */
const whole = (view: string) => (q: URLSearchParams) => (onlyParams(q, ['format']) ? { view } : null);
/** The catalog's window: the 24 whole hours before the last one, as a request `window=24h` asks (its default). */
const catalog =
  (view: string): ViewMatcher =>
  (q) =>
    onlyParams(q, ['window', 'source', 'format']) && (q.get('window') ?? '24h') === '24h' && (q.get('source') ?? 'rollups') === 'rollups'
      ? { view }
      : null;
/** The same for a route of region × target × variant rows, narrowed by them. */
const PAIR_ROWS = { field: 'rows', keys: ['region', 'target', 'prompt_variant'] };
const pairRows =
  (view: string): ViewMatcher =>
  (q) =>
    onlyParams(q, ['window', 'region', 'target', 'variant', 'format']) && (q.get('window') ?? '24h') === '24h'
      ? { view, filter: pairFilter(PAIR_ROWS, pairLists(q)) }
      : null;

export const statusViews: ViewPart = {
  name: 'status',
  routes: { '/api/v1/status': whole('status') },
  async build({ env, now }) {
    const status = await env.STATUS_KEEPER.getByName('global').status();
    return [{ name: 'status', doc: statusDocument(status, now) }];
  },
};

export const catalogViews: ViewPart = {
  name: 'catalog',
  settle: 'rollups',
  routes: {
    '/api/v1/regions': catalog('regions'),
    '/api/v1/targets': catalog('targets'),
    '/api/v1/served-by': pairRows('served-by'),
    '/api/v1/fidelity': pairRows('fidelity'),
  },
  async build({ env, db, now }) {
    const to = Math.floor(now / HOUR_MS) * HOUR_MS;
    const window = { from: to - DAY_MS, to };
    const places = await placesIn(db, window);
    return [
      { name: 'regions', doc: { ...regionsFromPlaces(places, window), source: 'rollups' } },
      { name: 'targets', doc: { ...targetsFromPlaces(places, window, env.REFERENCE_URL), source: 'rollups' } },
      { name: 'served-by', doc: servedByDocument(places, window), list: PAIR_ROWS },
      { name: 'fidelity', doc: fidelityDocument(places, window), list: PAIR_ROWS },
    ];
  },
};

/** The health view; its builder is handed the views' ages (the builder's own manifest). */
export function healthViews(ages: (now: number) => Promise<ViewAges>): ViewPart {
  return {
    name: 'health',
    routes: { '/api/v1/health': whole('health') },
    async build({ env, db }) {
      // Its own entry says it was built now (the manifest holds its last build's until this one is written).
      const withSelf = async (now: number): Promise<ViewAges> => {
        const all = await ages(now);
        const last = all.health;
        all.health = {
          built_at: new Date(now).toISOString(),
          age_seconds: 0,
          views: 1,
          bytes: last?.bytes ?? 0,
          rows_read: last?.rows_read ?? 0,
          error: null,
        };
        return all;
      };
      const { doc } = await healthDocument({ ...env, DB: db }, withSelf);
      return [{ name: 'health', doc }];
    },
  };
}
