import { runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';

/** Runs each region's alarms until its queue and outbox are empty (bounded at 50 alarms a region). */
export async function drain(regions: readonly string[]): Promise<void> {
  for (const region of regions) {
    const stub = env.REGION_PROBER.getByName(region);
    for (let i = 0; i < 50; i++) {
      const s = await stub.status();
      if (s.queued === 0 && s.outbox === 0) break;
      await runDurableObjectAlarm(stub);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
