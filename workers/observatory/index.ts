/** The observatory Worker: wiring only. */
import { app } from './api/app.ts';
import { applyRetention, runBursts, runTick, tickIdFor } from './scheduler.ts';
import { getConfig } from './config.ts';
import { MS_PER_MINUTE } from '../../shared/config/capacity.ts';

export { RegionProber } from './region-prober.ts';
export { StatusKeeper } from './status-keeper.ts';
export { BurstRunner } from './burst-runner.ts';
export { ReadBudget } from './read-budget.ts';

export default {
  fetch: app.fetch,
  async scheduled(controller, env, ctx) {
    // The concurrency runs have a cron of their own (config.bursts.schedule); every other cron is the tick.
    if (controller.cron === getConfig().bursts?.schedule) {
      ctx.waitUntil(runBursts(env, Math.floor(controller.scheduledTime / MS_PER_MINUTE) * MS_PER_MINUTE));
      return;
    }
    const tickId = tickIdFor(controller.scheduledTime);
    ctx.waitUntil(runTick(env, tickId));
    ctx.waitUntil(applyRetention(env, tickId));
  },
} satisfies ExportedHandler<Env>;
