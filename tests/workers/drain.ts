import { runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';

const ALARMS = 400;

/**
 * Runs (or waits for, when one is already running) a region object's alarms until `done` says so,
 * bounded at 400 alarms (about 20 s); past that it fails, naming the region and its state.
 */
export async function alarmsUntil(region: string, done: () => Promise<boolean>): Promise<void> {
  const stub = env.REGION_PROBER.getByName(region);
  for (let i = 0; i < ALARMS; i++) {
    if (await done()) return;
    await runDurableObjectAlarm(stub);
    await new Promise((r) => setTimeout(r, 50));
  }
  if (!(await done()))
    throw new Error(
      `region ${region}: what the test waits for did not happen within ${ALARMS} alarms; its object: ${JSON.stringify(await stub.status())}`,
    );
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
