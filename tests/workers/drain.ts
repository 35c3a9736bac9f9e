import { runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';

/** Runs (or waits for, when one is already running) a region object's alarms until `done` says so, bounded at 20 s. */
export async function alarmsUntil(region: string, done: () => Promise<boolean>): Promise<void> {
  const stub = env.REGION_PROBER.getByName(region);
  for (let i = 0; i < 400 && !(await done()); i++) {
    await runDurableObjectAlarm(stub);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Runs each region's alarms until its queue and outbox are empty (bounded at 50 alarms a region). */
export async function drain(regions: readonly string[]): Promise<void> {
  for (const region of regions) {
    const stub = env.REGION_PROBER.getByName(region);
    await alarmsUntil(region, async () => {
      const s = await stub.status();
      return s.queued === 0 && s.outbox === 0;
    });
  }
}
