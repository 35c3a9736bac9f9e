/** The observatory Worker: wiring only. */
import { app } from './api/app.ts';
import { applyRetention, runBursts, runTick, tickIdFor, unreachedRegions } from './prober/scheduler.ts';
import { getCapacity, getConfig } from './config.ts';
import { handOverVendorStatus } from './vendor/vendor-status-poller.ts';
import { MINUTE_MS } from '../../shared/time.ts';
import { markViews } from './views/mark-views.ts';
import { publishOnSchedule } from './reports/publish.ts';

export { RegionProber } from './prober/region-prober.ts';
export { StatusKeeper } from './keeper/status-keeper.ts';
export { BurstRunner } from './bursts/burst-runner.ts';
export { ReadBudget } from './read-budget.ts';
export { PublicViews } from './views/public-views.ts';
export { VendorStatusPoller } from './vendor/vendor-status-poller.ts';

export default {
  fetch: app.fetch,
  async scheduled(controller, env, ctx) {
    // The concurrency runs have a cron of their own (config.bursts.schedule); every other cron is the tick.
    if (controller.cron === getConfig().bursts?.schedule) {
      ctx.waitUntil(runBursts(env, Math.floor(controller.scheduledTime / MINUTE_MS) * MINUTE_MS));
      return;
    }
    const tickId = tickIdFor(controller.scheduledTime);
    ctx.waitUntil(applyRetention(env, tickId));
    ctx.waitUntil(handOverVendorStatus(env, tickId));
    ctx.waitUntil(publishOnSchedule(env, tickId, getCapacity().tickMinutes * MINUTE_MS));
    // Health's view follows each tick (the regions' queues and duties change with it).
    ctx.waitUntil(markViews(env, ['health']));
    // Awaited, not left to waitUntil: the handler ends once every region holds its jobs. A region it did not
    // reach (the handler died first) runs the tick itself once it is overdue (tick-heartbeat.ts).
    const report = await runTick(env, tickId, { fromCron: true });
    const failed = unreachedRegions(report);
    if (failed.length > 0)
      throw new Error(
        `tick ${new Date(tickId).toISOString()}: regions ${failed.join(', ')} not reached; each runs it itself once it is overdue`,
      );
  },
} satisfies ExportedHandler<Env>;
