/**
 * The two time caps every response obeys, whatever its plan asks (x-ref-params, a fault, a prompt's size):
 * at most MAX_HOLD_MS without headers, and at most MAX_STREAM_MS in all from its arrival. A stream that
 * reaches the second ends where it is, without its end event (stream-engine.ts). A response whose plan puts
 * its headers past the first (hold mode's queue and prefill, a non-streamed response's whole decode) waits
 * until the cap and is then answered 504, as a gateway gives up on a slow upstream: nothing arrives before
 * its plan would have it, and nothing holds a connection longer than the caps.
 */
export interface TimeCaps {
  /** MAX_HOLD_MS: the longest a connection is held without its headers. */
  maxHoldMs: number;
  /** MAX_STREAM_MS: the longest a response lasts from its arrival. */
  maxStreamMs: number;
}

/** The status of a response whose headers were planned past the caps. */
export const GATEWAY_TIMEOUT = 504;

/** How long after its arrival a response may still send its headers. */
export function headerDeadlineMs(caps: TimeCaps): number {
  return Math.min(caps.maxHoldMs, caps.maxStreamMs);
}

/**
 * A planned wait before the headers (ms after arrival), clamped to the caps: how long to wait, and whether
 * the plan lay past them (then the answer, at the deadline, is GATEWAY_TIMEOUT).
 */
export function clampHeaderWait(plannedMs: number, caps: TimeCaps): { waitMs: number; overCap: boolean } {
  const deadline = headerDeadlineMs(caps);
  return plannedMs > deadline ? { waitMs: deadline, overCap: true } : { waitMs: Math.max(0, plannedMs), overCap: false };
}

/** What a GATEWAY_TIMEOUT says: the plan, and the cap it passed. */
export function overCapMessage(what: string, plannedMs: number, caps: TimeCaps): string {
  const cap = caps.maxHoldMs <= caps.maxStreamMs ? `MAX_HOLD_MS (${caps.maxHoldMs} ms)` : `MAX_STREAM_MS (${caps.maxStreamMs} ms)`;
  return `reference endpoint: ${what} was planned ${Math.round(plannedMs)} ms after arrival, past ${cap}; given up at the cap`;
}
