/** GET /api/v1/health: D1, the schedule, the plan, each region's duties and the status keeper's notifications. */
import { paramsOf } from '../../../shared/api-contract/params.ts';
import { Hono } from 'hono';
import { getCapacity, getConfig } from '../config.ts';
import { latestTick } from '../db/samples.ts';
import type { ReaderEnv } from './public-reads.ts';
import type { ProberStatus } from '../prober/region-prober.ts';
import { vendorPagesHealth } from './vendor-incidents.ts';
import { onlyKnown } from './query.ts';
import type { ViewAges } from '../views/manifest.ts';
import { promptVariantInfo } from '../../../shared/config/catalog-info.ts';

/** One region's duties as health reports them: what waits, and each duty's last failure (null: none since it last succeeded). */
export function regionDuties(s: ProberStatus) {
  return {
    region: s.region,
    colo: s.colo,
    waiting: {
      probes: s.queued,
      samples_unwritten: s.outbox,
      rollups: s.pendingRollups,
      evaluations: s.pendingEvaluations,
      concurrency_runs: s.pendingBursts,
      otlp_hours: s.pendingOtlp,
    },
    errors: {
      sample_writes: s.lastFlushError,
      rollups: s.lastRollupError,
      status_evaluation: s.lastEvaluationError,
      concurrency: s.lastBurstError,
      otlp: s.lastOtlpError,
      archive: s.lastArchiveError,
      burst_archive: s.lastBurstArchiveError,
      rollup_archive: s.lastRollupArchiveError,
    },
    missing_secrets: s.missingSecrets,
    ticks: s.ticks,
  };
}

export const healthRoutes = new Hono<ReaderEnv>();

healthRoutes.get('/health', async (c) => {
  onlyKnown(new URL(c.req.url).searchParams, paramsOf('health'));
  const views = c.env.PUBLIC_VIEWS.getByName('global');
  const { doc, ok } = await healthDocument(c.env, (now) => views.ages(now));
  return c.json(doc, ok ? 200 : 503);
});

/**
 * The health answer (the live route's, and the health view's): D1 and the last tick, the schedule and the plan,
 * each region's duties and the status keeper's notifications (their objects' storage), the vendor status pages,
 * and how old each public view is. `ok` false when D1 cannot be read.
 */
export async function healthDocument(env: Env, viewAges: (now: number) => Promise<ViewAges>) {
  const config = getConfig();
  const capacity = getCapacity();
  let db: 'ok' | 'unavailable' = 'ok';
  let last: Awaited<ReturnType<typeof latestTick>> = null;
  try {
    last = await latestTick(env.DB);
  } catch {
    db = 'unavailable';
  }
  // Every notification attempt (recent ones), and what waits: the keeper's own storage, no D1 read.
  const keeper = await env.STATUS_KEEPER.getByName('global')
    .status()
    .catch((e: unknown) => ({ error: e instanceof Error ? e.message : String(e) }));
  // Each region's own object: its queue and each duty's last failure (its storage, no D1 read).
  const duties = await Promise.all(
    config.regions.map((r) =>
      env.REGION_PROBER.getByName(r.code, { locationHint: r.locationHint })
        .status()
        .then((s) => ({ ...regionDuties(s), region: r.code }))
        .catch((e: unknown) => ({ region: r.code, error: e instanceof Error ? e.message : String(e) })),
    ),
  );
  // The public views: when each part was built, and its last failure (the view builder's storage).
  const views = await viewAges(Date.now()).catch((e: unknown) => ({ error: e instanceof Error ? e.message : String(e) }));
  const doc = {
    status: db === 'ok' ? 'ok' : 'degraded',
    db,
    last_tick_at: last ? new Date(last.tick_id).toISOString() : null,
    schedule: config.schedule,
    plan: config.plan,
    spread: capacity.spread,
    limited_by: capacity.bindingLimit,
    regions: config.regions.length,
    targets: config.targets.length,
    prompt_variants: config.promptVariants.map(promptVariantInfo),
    simulated: env.SIMULATED_REGIONS === '1',
    open_incidents: 'error' in keeper ? null : keeper.open_incidents.length,
    incidents_unwritten: 'error' in keeper ? null : keeper.incidents_unwritten,
    notifications: 'error' in keeper ? { error: keeper.error } : keeper.notifications,
    duties,
    // Each vendor status page's poll: the failure holding now, if any (vendor-status.ts).
    vendor_status: await vendorPagesHealth(env.DB),
    views,
  };
  return { doc, ok: db === 'ok' };
}
