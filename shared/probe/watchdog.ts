import type { Clock, ErrorClass, Timeouts } from '../types.ts';

export type Phase = 'headers' | 'first_token' | 'streaming';

export interface Expiry {
  error: ErrorClass;
  detail: string;
}

/**
 * One timer that enforces every probe timeout: headers, first token, idle stall after the first
 * token, and the total bound. Reads only update a number; the timer re-arms itself for the
 * nearest deadline, so a hung stream never hangs the caller.
 */
export class Watchdog {
  phase: Phase = 'headers';
  expired: Expiry | null = null;
  private lastTokenAt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private readonly t0: number;
  private readonly timeouts: Timeouts;
  private readonly now: Clock;
  private readonly onExpire: (expiry: Expiry) => void;

  constructor(t0: number, timeouts: Timeouts, now: Clock, onExpire: (expiry: Expiry) => void) {
    this.t0 = t0;
    this.timeouts = timeouts;
    this.now = now;
    this.onExpire = onExpire;
    this.arm(Math.min(timeouts.headersMs, timeouts.totalMs));
  }

  /** The headers are in: from now on the first-token deadline applies, so the timer moves to it. */
  headersArrived(t: number): void {
    if (this.phase !== 'headers') return;
    this.phase = 'first_token';
    this.rearm(Math.min(this.timeouts.firstTokenMs, this.timeouts.totalMs) - (t - this.t0));
  }

  /** A token arrived. The first one moves the timer to the idle deadline; later ones only move the deadline, checked lazily. */
  tokenArrived(t: number): void {
    this.lastTokenAt = t;
    if (this.phase === 'streaming') return;
    this.phase = 'streaming';
    this.rearm(Math.min(this.timeouts.idleMs, this.timeouts.totalMs - (t - this.t0)));
  }

  private rearm(ms: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.arm(Math.max(0, ms));
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
  }

  private arm(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => this.check(), Math.max(1, Math.ceil(ms)));
  }

  private check(): void {
    if (this.stopped) return;
    const t = this.now();
    const { headersMs, firstTokenMs, idleMs, totalMs } = this.timeouts;
    const totalLeft = this.t0 + totalMs - t;
    let left: number;
    let expiry: Expiry;
    if (this.phase === 'headers') {
      left = Math.min(this.t0 + headersMs - t, totalLeft);
      expiry = { error: 'timeout_headers', detail: `no response headers within ${Math.min(headersMs, totalMs)} ms` };
    } else if (this.phase === 'first_token') {
      left = Math.min(this.t0 + firstTokenMs - t, totalLeft);
      expiry = { error: 'timeout_first_token', detail: `no token within ${Math.min(firstTokenMs, totalMs)} ms` };
    } else {
      const idleLeft = this.lastTokenAt + idleMs - t;
      left = Math.min(idleLeft, totalLeft);
      expiry =
        idleLeft <= totalLeft
          ? { error: 'stall', detail: `no token for ${idleMs} ms` }
          : { error: 'stall', detail: `stream still running at the ${totalMs} ms total limit` };
    }
    if (left > 0) {
      this.arm(left);
      return;
    }
    this.stopped = true;
    this.expired = expiry;
    this.onExpire(expiry);
  }
}
