/**
 * A region's heartbeat: once the cron has delivered a tick to a region, the region expects the next
 * one on the schedule's grid. When it has not come a grace period after its start (a cron that did
 * not fire, a scheduler that died before it reached this region), the region runs its share of that
 * tick itself, flagged `late`. Ticks in between that were missed as well are counted, not run: a
 * measurement taken now stands for now, not for a time already past. After `MAX_LATE_TICKS` ticks
 * without a delivery the region takes the scheduler to be stopped on purpose and waits for the next
 * tick it is sent, so an observatory switched off does not keep itself running.
 *
 * On the normal path it costs nothing: the next tick arrives before the heartbeat is due and moves
 * the alarm to now.
 */
import { MINUTE_MS } from '../../../shared/time.ts';

/** Ticks a region runs by itself, in a row, before it takes the scheduler to be stopped. */
export const MAX_LATE_TICKS = 6;

/** How long after a tick's start its region waits for it: a cron fires within seconds, and may be a minute late. */
export function lateTickGraceMs(tickMinutes: number): number {
  return Math.min(90_000, (tickMinutes * MINUTE_MS) / 2);
}

export interface TickCadence {
  stepMs: number;
  graceMs: number;
}

export function cadenceOf(tickMinutes: number): TickCadence {
  return { stepMs: tickMinutes * MINUTE_MS, graceMs: lateTickGraceMs(tickMinutes) };
}

/** When the region next looks for a tick that did not come: the tick after its newest, plus the grace. */
export function heartbeatDue(newestTick: number, c: TickCadence): number {
  return newestTick + c.stepMs + c.graceMs;
}

export type HeartbeatVerdict =
  | { kind: 'waiting' }
  /** Run `tickId` late; `missed` ticks between the newest one run here and it were never run. */
  | { kind: 'late'; tickId: number; missed: number }
  /** No tick delivered for more than MAX_LATE_TICKS ticks: the heartbeat stops until the next delivery. */
  | { kind: 'stopped'; ticksWithoutDelivery: number };

/**
 * What the heartbeat does at `now`, given the newest tick queued here (delivered or run late) and the
 * newest one the scheduler delivered.
 */
export function heartbeatVerdict(now: number, newestTick: number, newestDelivered: number, c: TickCadence): HeartbeatVerdict {
  const due = Math.floor((now - c.graceMs) / c.stepMs) * c.stepMs;
  if (due <= newestTick) return { kind: 'waiting' };
  const ticksWithoutDelivery = Math.round((due - newestDelivered) / c.stepMs);
  if (ticksWithoutDelivery > MAX_LATE_TICKS) return { kind: 'stopped', ticksWithoutDelivery };
  return { kind: 'late', tickId: due, missed: Math.round((due - newestTick) / c.stepMs) - 1 };
}

/** A tick of the schedule, as the scheduler hands it over (a backfill is not one). */
export interface Delivery {
  tickId: number;
  /**
   * Sent by the cron: true arms the heartbeat (the region expects the next tick, and runs it itself should it
   * not come), false disarms it (LATE_TICKS = "off"); absent (a POSTed tick) leaves it as it is.
   */
  heartbeat?: boolean;
}

/** What the region knows of the schedule's ticks (tick-heartbeat.ts); one meta row, written once a tick. */
export interface TickState {
  /** The newest tick queued here, delivered or run late. */
  newest: number;
  /** The newest tick the scheduler delivered. */
  delivered: number;
  heartbeat: boolean;
  /** Ticks run here because they never came, and ticks missed altogether (never run), since this object began. */
  late: number;
  missed: number;
}

/** The state after a delivered tick: the newest so far (a retried or stray older tick changes nothing), and the heartbeat as the cron sets it. */
export function afterDelivery(state: TickState | null, { tickId, heartbeat }: Delivery): TickState {
  const was = state ?? { newest: tickId, delivered: tickId, heartbeat: false, late: 0, missed: 0 };
  return {
    ...was,
    newest: Math.max(was.newest, tickId),
    delivered: Math.max(was.delivered, tickId),
    heartbeat: heartbeat ?? was.heartbeat,
  };
}
