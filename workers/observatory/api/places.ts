/**
 * Where each region × target × prompt variant was answered, and how far its vendor's timing claims held, over
 * whole hours (default the last 24), from the hours' place records (shared/rollup/hour-places.ts):
 * - GET /api/v1/served-by: each place the vendor said it answered from (`served_by`, with the header, body field
 *   or URL part that said so), its samples and its successful probes' median TTFT, most samples first;
 * - GET /api/v1/fidelity: the share of successful samples split by the vendor's own claim, the share of claims set
 *   aside as implausible, the median of the claim's network time less the round trip, the split source most had.
 * Both take `window` or `from`/`to`, and `region`, `target`, `variant`.
 */
import { paramsOf } from '../../../shared/api-contract/params.ts';
import { Hono, type Context } from 'hono';
import type { FidelityDoc, ServedByDoc } from '../../../shared/api-types.ts';
import { ANON_LIMITS } from '../../../shared/config/read-limits.ts';
import { fidelityOf, servedPlaces, type HourPlaces } from '../../../shared/rollup/hour-places.ts';
import { placesIn } from '../db/places.ts';
import { wholeHours } from './catalog.ts';
import { badRequest } from './errors.ts';
import { ANON_HOURLY_MS, pairLists } from './filters.ts';
import { requireTokenFor, type ReaderEnv } from './public-reads.ts';
import { onlyKnown, parseWindow, type Window } from './query.ts';

export const placeRoutes = new Hono<ReaderEnv>();

const iso = (t: number) => new Date(t).toISOString();

async function placesAsked(c: Context<ReaderEnv>, what: 'served-by' | 'fidelity'): Promise<{ window: Window; places: HourPlaces[] }> {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, paramsOf(what === 'served-by' ? 'servedBy' : 'fidelity'));
  if (q.get('format') === 'csv') throw badRequest(`${what} answers JSON only`);
  const window = wholeHours(parseWindow(q, Date.now()));
  if (window.from >= window.to) throw badRequest(`${what} answers whole hours: the window holds none`);
  if (window.to - window.from > ANON_HOURLY_MS) requireTokenFor(c, `${what} over more than ${ANON_LIMITS.hourlyWindowDays} days`);
  return { window, places: await placesIn(c.env.DB, { ...window, ...pairLists(q) }) };
}

/** The records of each region × target × variant, in that order. */
function byPair(places: readonly HourPlaces[]): Array<{ region: string; target: string; prompt_variant: string; rows: HourPlaces[] }> {
  const out = new Map<string, { region: string; target: string; prompt_variant: string; rows: HourPlaces[] }>();
  for (const p of places) {
    const key = `${p.region}\u0000${p.target}\u0000${p.prompt_variant}`;
    const g = out.get(key) ?? out.set(key, { region: p.region, target: p.target, prompt_variant: p.prompt_variant, rows: [] }).get(key)!;
    g.rows.push(p);
  }
  return [...out.values()].sort(
    (a, b) => a.region.localeCompare(b.region) || a.target.localeCompare(b.target) || a.prompt_variant.localeCompare(b.prompt_variant),
  );
}

export function servedByDocument(places: readonly HourPlaces[], w: Window): ServedByDoc {
  return {
    window: { from: iso(w.from), to: iso(w.to) },
    source: 'rollups',
    rows: byPair(places).map((g) => ({
      region: g.region,
      target: g.target,
      prompt_variant: g.prompt_variant,
      places: servedPlaces(g.rows),
    })),
  };
}

export function fidelityDocument(places: readonly HourPlaces[], w: Window): FidelityDoc {
  return {
    window: { from: iso(w.from), to: iso(w.to) },
    source: 'rollups',
    rows: byPair(places).map((g) => ({ region: g.region, target: g.target, prompt_variant: g.prompt_variant, ...fidelityOf(g.rows) })),
  };
}

placeRoutes.get('/served-by', async (c) => {
  const { window, places } = await placesAsked(c, 'served-by');
  return c.json(servedByDocument(places, window));
});

placeRoutes.get('/fidelity', async (c) => {
  const { window, places } = await placesAsked(c, 'fidelity');
  return c.json(fidelityDocument(places, window));
});
