/**
 * The vendor status pages' poller: one Durable Object for the whole observatory, in whose alarm each tick's
 * vendor-status duty runs (vendor-status.ts): the polls, reading each page's body (up to VENDOR_BODY_MAX_BYTES of
 * JSON: about 3 ms of CPU for a real 530 KB page, about 8 ms for the worst a body may list within the count caps,
 * `npm run bench:duties`) and the retention delete. An alarm has 30 s of CPU; the cron's invocation has 10 ms on the
 * free plan, and only hands the duty over (one RPC). The duty is kept in the object's storage until its alarm has
 * done it: a duty handed over while an older one still waits replaces it (the newer tick polls for both; a
 * retention delete asked for is kept), and an alarm that dies is retried by the runtime.
 */
import { DurableObject } from 'cloudflare:workers';
import { needsPoller, runVendorStatusDuty, vendorStatusWork, type VendorStatusWork } from './vendor-status.ts';

/** The one poller's name. */
export const POLLER_NAME = 'global';

export class VendorStatusPoller extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS pending (k INTEGER PRIMARY KEY CHECK (k = 0), work TEXT NOT NULL)');
    });
  }

  /** Keeps the tick's duty (the newer of it and one still waiting) and sets the alarm that does it. */
  async schedule(work: VendorStatusWork): Promise<void> {
    const waiting = this.pending();
    const kept = waiting === null || work.tickId >= waiting.tickId ? work : waiting;
    const merged = { ...kept, retention: work.retention || (waiting?.retention ?? false) };
    this.ctx.storage.sql.exec(
      'INSERT INTO pending (k, work) VALUES (0, ?) ON CONFLICT (k) DO UPDATE SET work = excluded.work',
      JSON.stringify(merged),
    );
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now());
  }

  /** The duty waiting for the alarm, or null. */
  pending(): VendorStatusWork | null {
    const row = this.ctx.storage.sql.exec<{ work: string }>('SELECT work FROM pending').toArray()[0];
    return row ? (JSON.parse(row.work) as VendorStatusWork) : null;
  }

  override async alarm(): Promise<void> {
    const work = this.pending();
    if (work === null) return;
    await runVendorStatusDuty(this.env, work);
    // A duty handed over while this one ran stays, for an alarm of its own.
    const next = this.pending();
    if (next !== null && next.tickId === work.tickId && next.retention === work.retention) this.ctx.storage.sql.exec('DELETE FROM pending');
    else if (next !== null) await this.ctx.storage.setAlarm(Date.now());
  }
}

/** The cron's part: the tick's duty handed to the poller, when it has one (cheap: no fetch, no parse here); never throws. */
export async function handOverVendorStatus(env: Env, tickId: number): Promise<void> {
  const work = vendorStatusWork(env, tickId);
  if (!needsPoller(work)) return;
  try {
    await env.VENDOR_STATUS_POLLER.getByName(POLLER_NAME).schedule(work);
  } catch (e) {
    console.error(`vendor status: tick ${new Date(tickId).toISOString()} not handed to the poller: ${(e as Error).message}`);
  }
}
