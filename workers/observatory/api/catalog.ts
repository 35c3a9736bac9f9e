/**
 * What is probed, and from where: GET /api/v1/regions and /api/v1/targets, with what each has sampled, from the
 * raw samples (`source=raw`, the default for a window of `from`/`to`: every sample from `from` on) or from the
 * hours' place records (`source=rollups`: whole hours, a row a pair and hour, what the catalog views hold).
 */
import { paramsOf } from '../../../shared/api-contract/params.ts';
import type { RegionInfo } from '../../../shared/api-types.ts';
import { Hono, type Context } from 'hono';
import { toCsv } from '../../../shared/csv.ts';
import { mergeColos, type HourPlaces } from '../../../shared/rollup/hour-places.ts';
import { HOUR_MS } from '../../../shared/time.ts';
import { getConfig } from '../config.ts';
import { placesIn } from '../db/places.ts';
import { colosByRegion, lastSampleByTarget } from '../db/samples.ts';
import { ApiError } from './errors.ts';
import { ANON_HOURLY_MS, boundRaw, csvResponse } from './filters.ts';
import { requireTokenFor, type ReaderEnv } from './public-reads.ts';
import { onlyKnown, parseChoice, parseWindow, type Window } from './query.ts';
import { ANON_LIMITS } from '../../../shared/config/read-limits.ts';
import { regionInfo, targetInfo } from '../../../shared/config/catalog-info.ts';

export const catalogRoutes = new Hono<ReaderEnv>();

const iso = (t: number) => new Date(t).toISOString();

/** The whole hours [from, to) of a window. */
export function wholeHours(w: Window): Window {
  const from = Math.ceil(w.from / HOUR_MS) * HOUR_MS;
  return { from, to: Math.max(from, Math.floor(w.to / HOUR_MS) * HOUR_MS) };
}

/** The window and source of a catalog request; the place records of its whole hours when it asks for them. */
async function catalogSource(c: Context<ReaderEnv>, what: 'regions' | 'targets') {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, paramsOf(what));
  const now = Date.now();
  const w = parseWindow(q, now);
  const source = parseChoice(q, 'source', ['raw', 'rollups'] as const, 'raw');
  if (source === 'raw') {
    // Every sample from `from` on is read, whatever `to` says.
    boundRaw(c, Math.max(w.to, now) - w.from, what);
    return { q, source, window: w, places: null };
  }
  const hours = wholeHours(w);
  if (hours.to - hours.from > ANON_HOURLY_MS) requireTokenFor(c, `${what} over more than ${ANON_LIMITS.hourlyWindowDays} days of hours`);
  if (hours.from >= hours.to) throw new ApiError(400, 'bad_request', 'source=rollups answers whole hours: the window holds none');
  return { q, source, window: hours, places: await placesIn(c.env.DB, hours) };
}

catalogRoutes.get('/regions', async (c) => {
  const { q, source, window, places } = await catalogSource(c, 'regions');
  const doc = places ? regionsFromPlaces(places, window) : await regionsDocument(c.env.DB, window.from, window.to);
  if (q.get('format') === 'csv')
    return csvResponse(
      toCsv(doc.regions.map(({ colos: list, ...r }) => ({ ...r, colos: list.map((x) => x.colo ?? 'unknown').join(' ') }))),
      'regions.csv',
    );
  return c.json({ ...doc, source });
});

catalogRoutes.get('/targets', async (c) => {
  const { q, source, window, places } = await catalogSource(c, 'targets');
  const doc = places
    ? targetsFromPlaces(places, window, c.env.REFERENCE_URL)
    : await targetsDocument(c.env.DB, c.env.REFERENCE_URL, window.from, window.to);
  if (q.get('format') === 'csv') return csvResponse(toCsv(doc.targets), 'targets.csv');
  return c.json({ ...doc, source });
});

const regionOf = (code: string, samples: number, last: number | null, colos: RegionInfo['colos']): RegionInfo =>
  regionInfo(getConfig().regions.find((x) => x.code === code)!, { samples, last }, colos);

/** Every configured region with what it has sampled from `from` on, from the raw samples. */
export async function regionsDocument(db: D1Database, from: number, to: number) {
  const colos = await colosByRegion(db, from);
  const regions = getConfig().regions.map((r) => {
    const seen = colos.filter((x) => x.region === r.code);
    return regionOf(
      r.code,
      seen.reduce((n, x) => n + x.samples, 0),
      seen.length ? Math.max(...seen.map((x) => x.last_started_at)) : null,
      seen.map((x) => ({ colo: x.colo, samples: x.samples, outside_region: x.outside })),
    );
  });
  return { window: { from: iso(from), to: iso(to) }, regions };
}

/** The same from the place records of whole hours (the catalog view's answer). */
export function regionsFromPlaces(places: readonly HourPlaces[], w: Window) {
  const regions = getConfig().regions.map((r) => {
    const mine = places.filter((p) => p.region === r.code);
    return regionOf(
      r.code,
      mine.reduce((n, p) => n + p.samples, 0),
      mine.length ? Math.max(...mine.map((p) => p.last_started_at)) : null,
      mergeColos(mine).map(([colo, samples, outside]) => ({ colo, samples, outside_region: outside })),
    );
  });
  return { window: { from: iso(w.from), to: iso(w.to) }, regions };
}

const targetOf = (t: ReturnType<typeof getConfig>['targets'][number], referenceUrl: string, samples: number, last: number | null) =>
  targetInfo(getConfig(), t, referenceUrl, { samples, last });

/** Every configured target with what it has sampled from `from` on, from the raw samples. */
export async function targetsDocument(db: D1Database, referenceUrl: string, from: number, to: number) {
  const seen = await lastSampleByTarget(db, from);
  const targets = getConfig().targets.map((t) => {
    const s = seen.find((x) => x.target === t.id);
    return targetOf(t, referenceUrl, s?.samples ?? 0, s ? s.last_started_at : null);
  });
  return { window: { from: iso(from), to: iso(to) }, targets };
}

/** The same from the place records of whole hours (the catalog view's answer). */
export function targetsFromPlaces(places: readonly HourPlaces[], w: Window, referenceUrl: string) {
  const targets = getConfig().targets.map((t) => {
    const mine = places.filter((p) => p.target === t.id);
    return targetOf(
      t,
      referenceUrl,
      mine.reduce((n, p) => n + p.samples, 0),
      mine.length ? Math.max(...mine.map((p) => p.last_started_at)) : null,
    );
  });
  return { window: { from: iso(w.from), to: iso(w.to) }, targets };
}
