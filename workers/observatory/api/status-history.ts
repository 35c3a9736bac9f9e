/**
 * The status history and maintenance windows:
 * - GET /api/v1/status-history: the keeper's counted judgements per hour or UTC day for each region × target ×
 *   prompt variant (shared/status/period-tally.ts), in pages of whole periods;
 * - GET /api/v1/maintenance: the windows, the configuration's and the admin API's, that end after `from`;
 * - POST /api/v1/maintenance and DELETE /api/v1/maintenance/:id (admin): a window made or taken back.
 */
import { paramsOf } from '../../../shared/api-contract/params.ts';
import { Hono } from 'hono';
import { HISTORY_PAGE_ROWS, ANON_LIMITS } from '../../../shared/config/read-limits.ts';
import { MAX_API_WINDOWS, toWindow, windowProblems, type MaintenanceConfig } from '../../../shared/status/maintenance.ts';
import { DAY_MS, HOUR_MS } from '../../../shared/time.ts';
import { getConfig } from '../config.ts';
import { historyPage, listMaintenance } from '../db/status-history.ts';
import { markViews } from '../views/mark-views.ts';
import { requireAdmin } from './admin.ts';
import { ApiError, badRequest } from './errors.ts';
import { pairLists, periodWindow } from './filters.ts';
import { requireTokenFor, type ReaderEnv } from './public-reads.ts';
import { onlyKnown, parseChoice, parseWindow } from './query.ts';
import { MAINTENANCE_WINDOW, maintenanceDocument, statusHistoryDocument, windowDoc } from './status-history-docs.ts';
import { LONGEST_VIEW_ID } from '../../../shared/views/windows.ts';

export const statusHistoryRoutes = new Hono<ReaderEnv>();

/**
 * The periods a status-history query asks for: its resolution (day unless asked), and the whole periods inside its
 * window (`window`, or `from`/`to`; 24 hours of hours or 90 days of days unless asked), with where its page starts.
 * A window of days ends with today: its row holds the hours ended so far (the keeper writes a day with each of its
 * hours), so an incident of this morning marks the 7, 30 and 90 days' strips, not only the 24 hours'.
 */
export function historyWindow(q: URLSearchParams, now = Date.now()) {
  const resolution = parseChoice(q, 'resolution', ['hour', 'day'] as const, 'day');
  if (resolution === 'hour') return { resolution, ...periodWindow(q, HOUR_MS, '24h', now) };
  return { resolution, ...periodWindow(q, DAY_MS, LONGEST_VIEW_ID, Math.ceil(now / DAY_MS) * DAY_MS) };
}

statusHistoryRoutes.get('/status-history', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, paramsOf('statusHistory'));
  const { resolution, from, to, start } = historyWindow(q);
  if (resolution === 'hour' && to - from > ANON_LIMITS.hourlyWindowDays * DAY_MS)
    requireTokenFor(c, `hourly status history over more than ${ANON_LIMITS.hourlyWindowDays} days`);
  const page = await historyPage(c.env.DB, { resolution, from: start, to, ...pairLists(q) }, HISTORY_PAGE_ROWS);
  return c.json(statusHistoryDocument(resolution, from, to, page.rows, page.next));
});

statusHistoryRoutes.get('/maintenance', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, paramsOf('maintenance'));
  if (!q.has('window') && !q.has('from')) q.set('window', MAINTENANCE_WINDOW);
  const w = parseWindow(q, Date.now());
  return c.json(maintenanceDocument(w.from, await listMaintenance(c.env.DB, w.from, MAX_API_WINDOWS)));
});

statusHistoryRoutes.post('/maintenance', async (c) => {
  await requireAdmin(c.req.raw, (c.env as { ADMIN_TOKEN?: string }).ADMIN_TOKEN);
  const text = await c.req.text();
  if (text.length > 4_096) throw badRequest('body larger than 4096 bytes');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw badRequest(
      'body must be JSON, like {"target": "openai-gpt-4o-mini", "start": "2026-12-02T01:00:00Z", "end": "2026-12-02T02:00:00Z", "note": "key rotation"}',
    );
  }
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw badRequest('body must be a JSON object: { target?, region?, start, end, note }');
  const extra = Object.keys(body).filter((k) => !['target', 'region', 'start', 'end', 'note'].includes(k));
  if (extra.length > 0) throw badRequest(`unknown field(s) ${extra.join(', ')}; a window has target, region, start, end and note`);
  const config = getConfig();
  const problems = windowProblems(
    body as Partial<MaintenanceConfig>,
    { targets: config.targets.map((t) => t.id), regions: config.regions.map((r) => r.code) },
    'window',
  );
  if (problems.length > 0) throw badRequest(problems.join('; '));
  const window = toWindow(body as MaintenanceConfig, `m-${Date.now().toString(36)}-${crypto.randomUUID().slice(0, 8)}`, 'api');
  if (window.ends_at <= Date.now()) throw badRequest('end lies in the past: a window mutes what is still to come');
  try {
    const made = await c.env.STATUS_KEEPER.getByName('global').addMaintenance(window);
    await markViews(c.env, ['history']);
    return c.json({ window: windowDoc(made) }, 201);
  } catch (e) {
    throw new ApiError(503, 'not_stored', `the window was not stored: ${e instanceof Error ? e.message : e}`);
  }
});

statusHistoryRoutes.delete('/maintenance/:id', async (c) => {
  await requireAdmin(c.req.raw, (c.env as { ADMIN_TOKEN?: string }).ADMIN_TOKEN);
  const id = c.req.param('id');
  if (id.startsWith('config-')) throw badRequest('a window of the configuration is taken back by editing observatory.config.ts');
  const gone = await c.env.STATUS_KEEPER.getByName('global').removeMaintenance(id);
  if (!gone) throw new ApiError(404, 'not_found', `no maintenance window "${id}"`);
  await markViews(c.env, ['history']);
  return c.json({ deleted: id });
});
