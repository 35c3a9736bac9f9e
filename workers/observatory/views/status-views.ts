/**
 * The views of what changes every tick: GET /api/v1/status (the status keeper's verdict now), GET /api/v1/health
 * (each region's duties, the keeper's notifications, how old each view is), and the catalog of regions and
 * targets with what each sampled over the last 24 whole hours (GET /api/v1/regions and /api/v1/targets).
 */
import { DAY_MS, HOUR_MS } from '../../../shared/time.ts';
import { healthDocument } from '../api/health.ts';
import { regionsDocument, targetsDocument } from '../api/catalog.ts';
import { statusDocument } from '../api/status.ts';
import type { ViewAges } from './manifest.ts';
import { onlyParams, type ViewPart } from './view-part.ts';

/** A view answered whole, for a request that names no parameter (or only format=json). */
const whole = (view: string) => (q: URLSearchParams) => (onlyParams(q, ['format']) ? { view } : null);
/** The catalog's window: the 24 hours before the last whole hour, as a request `window=24h` asks (its default). */
const catalog = (view: string) => (q: URLSearchParams) =>
  onlyParams(q, ['window', 'format']) && (q.get('window') ?? '24h') === '24h' ? { view } : null;

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
  routes: { '/api/v1/regions': catalog('regions'), '/api/v1/targets': catalog('targets') },
  async build({ env, db, now }) {
    const from = Math.floor(now / HOUR_MS) * HOUR_MS - DAY_MS;
    return [
      { name: 'regions', doc: await regionsDocument(db, from, now) },
      { name: 'targets', doc: await targetsDocument(db, env.REFERENCE_URL, from) },
    ];
  },
};

/** The health view; its builder is handed the views' ages (the builder's own manifest). */
export function healthViews(ages: (now: number) => Promise<ViewAges>): ViewPart {
  return {
    name: 'health',
    routes: { '/api/v1/health': whole('health') },
    async build({ env, db }) {
      const { doc } = await healthDocument({ ...env, DB: db }, ages);
      return [{ name: 'health', doc }];
    },
  };
}
