/** The observatory Worker: wiring only. */
import { app } from './api/app.ts';
import { applyRetention, runTick, tickIdFor } from './scheduler.ts';

export { RegionProber } from './region-prober.ts';
export { StatusKeeper } from './status-keeper.ts';

export default {
  fetch: app.fetch,
  async scheduled(controller, env, ctx) {
    const tickId = tickIdFor(controller.scheduledTime);
    ctx.waitUntil(runTick(env, tickId));
    ctx.waitUntil(applyRetention(env, tickId));
  },
} satisfies ExportedHandler<Env>;
