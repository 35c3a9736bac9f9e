/**
 * Scheduled regional faults: the reference endpoint degrades chosen regions for part of every
 * cycle, so status rules and incidents can be seen working on real probes. The observatory tells
 * the reference endpoint (and only it: targets marked `reference`) which region and tick a probe
 * belongs to, in `x-ref-region` and `x-ref-tick`; a schedule is keyed to that tick, so a backfilled
 * tick meets the fault its time would have had.
 *
 * A schedule: `region=apac|enam; every=60; at=20; for=15; slow_ms=1500; fault=http-503`, several
 * separated by `,`. Minutes `at` to `at + for` of each `every`-minute cycle (UTC, from the epoch)
 * are degraded — or, with `from=<ISO time>; to=<ISO time>` instead, the ticks in [from, to) — with
 * `slow_ms` more server time before the first token (prefill), and/or `fault` (one of faults.ts).
 * From the `x-ref-scheduled-fault` request header, or the SCHEDULED_FAULTS variable.
 */
import { FAULTS, FaultError, type Fault } from './faults.ts';
import { MINUTE_MS } from '../../shared/time.ts';

export interface ScheduledFault {
  regions: string[];
  /** A cycle (minutes) … */
  every: number;
  at: number;
  for: number;
  /** … or a window of ticks [from, to), epoch ms (every = 0). */
  from: number;
  to: number;
  slowMs: number;
  fault: Fault | null;
}

const MAX_SLOW_MS = 120_000;

export function parseSchedules(text: string | null | undefined): ScheduledFault[] {
  if (!text || text.trim() === '') return [];
  return text.split(',').map((spec) => {
    const fields = new Map(
      spec
        .split(';')
        .map((p) => p.trim())
        .filter(Boolean)
        .map((p) => {
          const eq = p.indexOf('=');
          if (eq < 0) throw new FaultError(`scheduled fault "${spec.trim()}": "${p}" is not name=value`);
          return [p.slice(0, eq).trim(), p.slice(eq + 1).trim()] as const;
        }),
    );
    const known = ['region', 'every', 'at', 'for', 'from', 'to', 'slow_ms', 'fault'];
    for (const k of fields.keys())
      if (!known.includes(k)) throw new FaultError(`scheduled fault: unknown field "${k}"; known: ${known.join(', ')}`);
    const num = (k: string, min: number, max: number, fallback?: number) => {
      const raw = fields.get(k);
      if (raw === undefined && fallback !== undefined) return fallback;
      const v = Number(raw);
      if (!Number.isInteger(v) || v < min || v > max)
        throw new FaultError(`scheduled fault: ${k} must be a whole number from ${min} to ${max}, got "${raw ?? ''}"`);
      return v;
    };
    const time = (k: string) => {
      const t = Date.parse(fields.get(k) ?? '');
      if (!Number.isFinite(t))
        throw new FaultError(`scheduled fault: ${k} must be an ISO time like 2026-03-02T10:00Z, got "${fields.get(k) ?? ''}"`);
      return t;
    };
    const windowed = fields.has('from') || fields.has('to');
    const every = windowed ? 0 : num('every', 1, 10_080);
    const s: ScheduledFault = {
      regions: (fields.get('region') ?? '')
        .split('|')
        .map((r) => r.trim())
        .filter(Boolean),
      every,
      at: windowed ? 0 : num('at', 0, every - 1),
      for: windowed ? 0 : num('for', 1, every),
      from: windowed ? time('from') : 0,
      to: windowed ? time('to') : 0,
      slowMs: num('slow_ms', 0, MAX_SLOW_MS, 0),
      fault: null,
    };
    if (s.regions.length === 0) throw new FaultError('scheduled fault: region is required (region=apac, or apac|enam)');
    const fault = fields.get('fault');
    if (fault !== undefined) {
      if (!(FAULTS as readonly string[]).includes(fault))
        throw new FaultError(`scheduled fault: unknown fault "${fault}"; known: ${FAULTS.join(', ')}`);
      s.fault = fault as Fault;
    }
    if (s.slowMs === 0 && s.fault === null) throw new FaultError('scheduled fault: give slow_ms, fault or both');
    return s;
  });
}

/** The schedule in force for this region at this tick (the first that matches), or null. */
export function activeFault(schedules: readonly ScheduledFault[], region: string | null, tick: number | null): ScheduledFault | null {
  if (!region || tick === null || !Number.isFinite(tick)) return null;
  const minute = Math.floor(tick / MINUTE_MS);
  const inForce = (s: ScheduledFault) => {
    if (s.every === 0) return tick >= s.from && tick < s.to;
    const m = ((minute % s.every) + s.every) % s.every;
    return m >= s.at && m < s.at + s.for;
  };
  return schedules.find((s) => s.regions.includes(region) && inForce(s)) ?? null;
}
