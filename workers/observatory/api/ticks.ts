/** POST /api/v1/ticks (admin): a tick now, or a backfill of a past one, queued in every region before it answers. */
import { Hono } from 'hono';
import { DAY_MS } from '../../../shared/time.ts';
import { hourOf } from '../../../shared/rollup/rollup.ts';
import { getConfig } from '../config.ts';
import { samplesRetainedFrom } from '../db/rollups.ts';
import { runTick, tickIdFor, unreachedRegions } from '../prober/scheduler.ts';
import { requireAdmin } from './admin.ts';
import { ApiError, badRequest } from './errors.ts';
import type { ReaderEnv } from './public-reads.ts';

export const tickRoutes = new Hono<ReaderEnv>();

tickRoutes.post('/ticks', async (c) => {
  await requireAdmin(c.req.raw, (c.env as { ADMIN_TOKEN?: string }).ADMIN_TOKEN);
  let body: { tick_id?: unknown; backfill?: unknown } = {};
  const text = await c.req.text();
  if (text.trim() !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      throw badRequest('body must be JSON, like {} or {"tick_id": 1767225600000, "backfill": true}');
    }
  }
  const now = Date.now();
  // The tick of now, on the schedule's grid: a retried POST is the same tick, and queues nothing twice.
  let tickId = tickIdFor(now);
  if (body.tick_id !== undefined) {
    // As far back as rollups are kept: samples older than the raw retention go at its next run, their rollups stay.
    const days = getConfig().rollupRetentionDays;
    if (typeof body.tick_id !== 'number' || !Number.isInteger(body.tick_id) || body.tick_id > now || body.tick_id < now - days * DAY_MS) {
      throw badRequest(`tick_id must be epoch milliseconds within the last ${days} days (the rollup retention)`);
    }
    if (body.backfill !== true) throw badRequest('a past tick_id is only accepted with "backfill": true (its samples are flagged as such)');
    tickId = tickIdFor(body.tick_id);
    // Raw retention has already deleted that hour's other samples: its rollup could not be rewritten, so the
    // samples would be measured, never rolled up, and deleted at the next retention run.
    const retainedFrom = await samplesRetainedFrom(c.env.DB);
    if (hourOf(tickId) < retainedFrom) {
      throw new ApiError(
        400,
        'beyond_retention',
        `tick_id ${new Date(tickId).toISOString()} lies before ${new Date(retainedFrom).toISOString()}, where raw retention has already deleted samples: its hour cannot be rolled up again`,
      );
    }
  }
  const report = await runTick(c.env, tickId, { backfill: body.backfill === true });
  // Every region holds its jobs before this answers 202: whatever dies after, the tick is carried out.
  const unreached = unreachedRegions(report);
  if (unreached.length > 0) {
    return c.json(
      {
        error: {
          code: 'regions_unreachable',
          message: `regions ${unreached.join(', ')} could not be reached; the others hold their jobs. Send the same tick again: it queues nothing twice`,
        },
        ...report,
      },
      503,
    );
  }
  return c.json(report, 202);
});
