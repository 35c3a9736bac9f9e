/**
 * Hysteresis for one region × target × prompt variant: a worse finding flips the state at once
 * (the rules already demand N failures in a row, or a whole interval past its threshold); a better
 * one flips it only after `recoverAfter` consecutive evaluations find it, so a flapping pair does not
 * open and close incidents. A finding without enough data never flips anything. Evaluations arrive
 * in tick order; an old or repeated one (a retried tick, a repeated alarm) changes nothing.
 */
import type { Finding } from './evaluate.ts';
import { isWorse, worstState, type PairStatus } from './levels.ts';
import type { StatusRules } from './rules.ts';
import { wholeTarget } from './period-tally.ts';

export type { PairStatus };

export interface PairState {
  region: string;
  target: string;
  variant: string;
  state: PairStatus;
  /** Tick at which it entered this state. */
  since_tick: number;
  /** Consecutive evaluations that found a better level than the state. */
  better_streak: number;
  last_tick: number;
  /** The last evaluation: the evidence shown with the state. */
  finding: Finding;
  /** Wall time of the last report (a region that stopped reporting is not waited for). */
  reported_at?: number;
  /** The recent evaluations, oldest first: the state at each tick, so regions reporting out of step still make one step per tick. */
  history?: Array<{ tick: number; state: PairStatus; finding: Finding }>;
}

/** Evaluations kept per pair. */
export const PAIR_HISTORY = 36;

/** The pair as it stood at `tick` (its last evaluation at or before it), or null when it had none. */
export function pairAt(p: PairState, tick: number): PairState | null {
  const entry = (p.history ?? []).filter((h) => h.tick <= tick).at(-1);
  return entry ? { ...p, state: entry.state, finding: entry.finding, last_tick: entry.tick } : null;
}

export const worse = (a: PairStatus, b: PairStatus): boolean => isWorse(a, b);
export const worst = (states: Iterable<PairStatus>): PairStatus => worstState(states);

/** The pair's state after this finding, or null when the finding is not newer than the state. */
export function nextPairState(
  prev: PairState | null,
  key: { region: string; target: string; variant: string },
  finding: Finding,
  rules: StatusRules,
): PairState | null {
  if (prev && finding.tick_id <= prev.last_tick) return null;
  const next = transition(prev, key, finding, rules);
  return { ...next, history: [...(prev?.history ?? []), { tick: finding.tick_id, state: next.state, finding }].slice(-PAIR_HISTORY) };
}

function transition(
  prev: PairState | null,
  key: { region: string; target: string; variant: string },
  finding: Finding,
  rules: StatusRules,
): PairState {
  const base = { ...key, last_tick: finding.tick_id, finding };
  if (!prev) return { ...base, state: finding.level ?? 'no-data', since_tick: finding.tick_id, better_streak: 0 };
  const level = finding.level;
  if (level === null) return { ...base, state: prev.state, since_tick: prev.since_tick, better_streak: prev.better_streak };
  if (prev.state === 'no-data' || worse(level, prev.state)) return { ...base, state: level, since_tick: finding.tick_id, better_streak: 0 };
  if (level === prev.state) return { ...base, state: prev.state, since_tick: prev.since_tick, better_streak: 0 };
  const streak = prev.better_streak + 1;
  if (streak >= rules.recoverAfter) return { ...base, state: level, since_tick: finding.tick_id, better_streak: 0 };
  return { ...base, state: prev.state, since_tick: prev.since_tick, better_streak: streak };
}

export interface TargetStatus {
  target: string;
  variant: string;
  /** The target as a whole: degraded or down only when at least half of its regions agree. */
  state: PairStatus;
  /** Regions in a worse state than operational, when fewer than half: a regional problem. */
  regional: Array<{ region: string; state: PairStatus }>;
  regions: Array<{ region: string; state: PairStatus }>;
}

/** Per target: its regions' states, and whether at least half of them agree on a problem. */
export function targetStatus(target: string, variant: string, regions: readonly string[], pairs: readonly PairState[]): TargetStatus {
  const states = regions.map((region) => ({
    region,
    state: pairs.find((p) => p.region === region && p.target === target && p.variant === variant)?.state ?? ('no-data' as PairStatus),
  }));
  const whole = wholeTarget(states.map((s) => s.state));
  if (whole === 'degraded' || whole === 'down') return { target, variant, state: whole, regional: [], regions: states };
  const bad = states.filter((s) => s.state === 'degraded' || s.state === 'down');
  return { target, variant, state: whole === 'no-data' ? 'no-data' : 'operational', regional: bad, regions: states };
}
