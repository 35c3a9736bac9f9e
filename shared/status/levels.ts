/**
 * The status levels, defined once: what a rule finds of a pair, what a pair or a target is in, and what a
 * period of its history was. Every page, badge, message and API answer names them from here.
 */

/** What the rules can find (shared/status/evaluate.ts), worst last. */
export const LEVELS = ['operational', 'degraded', 'down'] as const;
export type Level = (typeof LEVELS)[number];

/** A pair's or a target's state: a level, or no data yet (shared/status/pair-state.ts). */
export const PAIR_STATES = [...LEVELS, 'no-data'] as const;
export type PairStatus = (typeof PAIR_STATES)[number];

/** A tick as the history counts it: the state the keeper judged, or maintenance when a window covered it. */
export const PERIOD_STATES = [...LEVELS, 'maintenance', 'no-data'] as const;
export type PeriodState = (typeof PERIOD_STATES)[number];

/** How bad each state is, least first: what a period's worst tick and a target's worst variant are judged by. */
export const STATE_RANK: Record<PeriodState, number> = { 'no-data': 0, maintenance: 1, operational: 2, degraded: 3, down: 4 };

/** True when `a` is worse than `b`. */
export const isWorse = (a: PeriodState, b: PeriodState): boolean => STATE_RANK[a] > STATE_RANK[b];

/** The worst of the states, no-data when there are none. */
export function worstState<S extends PeriodState>(states: Iterable<S>): S | 'no-data' {
  let w: S | 'no-data' = 'no-data';
  for (const s of states) if (isWorse(s, w)) w = s;
  return w;
}

/** Each state in words, as every page and message shows it. */
export const STATE_LABELS: Record<PeriodState, string> = {
  operational: 'Operational',
  degraded: 'Degraded',
  down: 'Down',
  maintenance: 'Maintenance',
  'no-data': 'No data',
};
