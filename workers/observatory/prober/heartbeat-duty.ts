/**
 * A region object's heartbeat duty (tick-heartbeat.ts): when the tick after the newest one here is overdue,
 * this region's share of it is queued, flagged late. Its state is one meta row (`ticks`); no table of its own.
 */
import { getCapacity, tickJobs } from '../config.ts';
import { afterDelivery, cadenceOf, heartbeatDue, heartbeatVerdict, type Delivery, type TickState } from './tick-heartbeat.ts';
import { queueJobs } from './job-queue.ts';
import type { Duty } from '../duty/duty.ts';
import type { ProberStore } from '../duty/prober-store.ts';

/** What the region knows of the schedule's ticks (tick-heartbeat.ts): one meta row, written once a tick. */
export function tickState(store: ProberStore): TickState | null {
  const text = store.meta('ticks');
  return text === null ? null : (JSON.parse(text) as TickState);
}

function setTickState(store: ProberStore, state: TickState): void {
  store.setMeta('ticks', JSON.stringify(state));
}

/** A delivered tick of the schedule (tick-heartbeat.ts's afterDelivery); a retried or stray older one writes nothing. */
export function noteDelivered(store: ProberStore, delivery: Delivery): void {
  const before = tickState(store);
  const next = afterDelivery(before, delivery);
  if (JSON.stringify(next) !== JSON.stringify(before)) setTickState(store, next);
}

/** Idle: the heartbeat's alarm waits for the next tick (and is moved to now when it comes). */
export async function armHeartbeat(store: ProberStore): Promise<void> {
  const ticks = tickState(store);
  if (ticks?.heartbeat && (await store.storage.getAlarm()) === null)
    await store.storage.setAlarm(heartbeatDue(ticks.newest, cadenceOf(getCapacity().tickMinutes)));
}

/** The overdue tick's jobs queued here, late; true when jobs were queued. */
async function runLateTick(store: ProberStore, db: D1Database, region: string): Promise<boolean> {
  const state = tickState(store);
  if (!state?.heartbeat) return false;
  const verdict = heartbeatVerdict(Date.now(), state.newest, state.delivered, cadenceOf(getCapacity().tickMinutes));
  if (verdict.kind === 'waiting') return false;
  if (verdict.kind === 'stopped') {
    console.warn(
      `region ${region}: no tick delivered for ${verdict.ticksWithoutDelivery} ticks; taking the schedule to be stopped, waiting for the next tick it sends`,
    );
    setTickState(store, { ...state, heartbeat: false });
    return false;
  }
  const queued = await queueJobs(store, db, region, tickJobs(region, verdict.tickId, { late: true }));
  setTickState(store, { ...state, newest: verdict.tickId, late: state.late + 1, missed: state.missed + verdict.missed });
  console.warn(
    `region ${region}: tick ${new Date(verdict.tickId).toISOString()} never came; run here, late (${queued} probes${verdict.missed > 0 ? `; ${verdict.missed} tick(s) before it missed` : ''})`,
  );
  return queued > 0;
}

export const heartbeatDuty: Duty = {
  name: 'heartbeat',
  tables: [],
  pending: () => 0,
  // Once no queued job waits: a late tick's jobs are run at once.
  async run({ store, env, region }) {
    return (await runLateTick(store, env.DB, region.code)) ? 'again' : 'done';
  },
  healthKey: null,
  errors: [],
};
