/** What is probed, and from where: GET /api/v1/regions and /api/v1/targets, with what each has sampled. */
import type { RegionInfo, TargetInfo } from '../../../shared/api-types.ts';
import { Hono } from 'hono';
import { toCsv } from '../../../shared/csv.ts';
import { getConfig } from '../config.ts';
import { colosByRegion, lastSampleByTarget } from '../db/samples.ts';
import { boundRaw, csvResponse, WINDOW_PARAMS } from './filters.ts';
import type { ReaderEnv } from './public-reads.ts';
import { onlyKnown, parseWindow } from './query.ts';

export const catalogRoutes = new Hono<ReaderEnv>();

catalogRoutes.get('/api/v1/regions', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, [...WINDOW_PARAMS, 'format']);
  const now = Date.now();
  const w = parseWindow(q, now);
  // Every sample from `from` on is read, whatever `to` says.
  boundRaw(c, Math.max(w.to, now) - w.from, 'regions');
  const { regions } = await regionsDocument(c.env.DB, w.from, w.to);
  if (q.get('format') === 'csv')
    return csvResponse(
      toCsv(regions.map(({ colos: list, ...r }) => ({ ...r, colos: list.map((x) => x.colo ?? 'unknown').join(' ') }))),
      'regions.csv',
    );
  return c.json({ window: { from: new Date(w.from).toISOString(), to: new Date(w.to).toISOString() }, regions });
});

/** Every configured region with what it has sampled from `from` on (the live route's answer, and the catalog view's). */
export async function regionsDocument(db: D1Database, from: number, to: number) {
  const colos = await colosByRegion(db, from);
  const regions = getConfig().regions.map((r) => {
    const seen = colos.filter((x) => x.region === r.code);
    return {
      code: r.code,
      label: r.label,
      location_hint: r.locationHint,
      samples: seen.reduce((n, x) => n + x.samples, 0),
      last_sample_at: seen.length ? new Date(Math.max(...seen.map((x) => x.last_started_at))).toISOString() : null,
      colos: seen.map((x) => ({ colo: x.colo, samples: x.samples, outside_region: x.outside })),
    } satisfies RegionInfo;
  });
  return { window: { from: new Date(from).toISOString(), to: new Date(to).toISOString() }, regions };
}

catalogRoutes.get('/api/v1/targets', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, [...WINDOW_PARAMS, 'format']);
  const now = Date.now();
  const w = parseWindow(q, now);
  boundRaw(c, Math.max(w.to, now) - w.from, 'targets');
  const { targets } = await targetsDocument(c.env.DB, c.env.REFERENCE_URL, w.from);
  if (q.get('format') === 'csv') return csvResponse(toCsv(targets), 'targets.csv');
  return c.json({ targets });
});

/** Every configured target with what it has sampled from `from` on (the live route's answer, and the catalog view's). */
export async function targetsDocument(db: D1Database, referenceUrl: string, from: number) {
  const seen = await lastSampleByTarget(db, from);
  const targets = getConfig().targets.map((t) => {
    const s = seen.find((x) => x.target === t.id);
    const host = new URL(t.url.replace('{REFERENCE_URL}', referenceUrl)).host;
    return {
      id: t.id,
      label: t.label,
      provider: t.provider,
      api: t.api,
      model: t.model,
      endpoint_host: host,
      reference: t.reference === true,
      prompt_cache: t.promptCache === true,
      regions: t.regions ?? getConfig().regions.map((r) => r.code),
      samples: s?.samples ?? 0,
      last_sample_at: s ? new Date(s.last_started_at).toISOString() : null,
    } satisfies TargetInfo;
  });
  return { targets };
}
