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

/** A state's count column in the status history (D1's status_hours and status_days, the API's rows): no-data as no_data. */
export type StateColumn<S extends string = PeriodState> = S extends `${infer A}-${infer B}` ? `${A}_${B}` : S;
export const stateColumn = <S extends PeriodState>(s: S): StateColumn<S> => s.replace('-', '_') as StateColumn<S>;
/** The count columns, in the order of PERIOD_STATES. */
export const STATE_COLUMNS: readonly StateColumn[] = PERIOD_STATES.map(stateColumn);

/**
 * What a mark of a target's strip (a period of the status page, a badge's history) shows: the target's state as a
 * whole, or `partial` when it stayed operational as a whole while one of its regions was degraded or down in the
 * period (a regional incident; Statuspage calls it a partial outage). Only a target's period is partial, never a
 * region's or a tick.
 */
export const STRIP_STATES = ['operational', 'partial', 'degraded', 'down', 'maintenance', 'no-data'] as const;
export type StripState = (typeof STRIP_STATES)[number];

/** How bad each state is, least first: what a period's worst tick and a target's worst variant are judged by. */
export const STATE_RANK: Record<StripState, number> = { 'no-data': 0, maintenance: 1, operational: 2, partial: 3, degraded: 4, down: 5 };

/** True when `a` is worse than `b`. */
export const isWorse = (a: StripState, b: StripState): boolean => STATE_RANK[a] > STATE_RANK[b];

/** The worst of the states, no-data when there are none. */
export function worstState<S extends StripState>(states: Iterable<S>): S | 'no-data' {
  let w: S | 'no-data' = 'no-data';
  for (const s of states) if (isWorse(s, w)) w = s;
  return w;
}

/** Each state in words, as every page, legend and message shows it. */
export const STATE_LABELS: Record<StripState, string> = {
  operational: 'Operational',
  partial: 'Partial outage',
  degraded: 'Degraded',
  down: 'Down',
  maintenance: 'Maintenance',
  'no-data': 'No data',
};

/**
 * Each state's colour, in a light and a dark colour scheme: the site's marks, swatches, pills and dots
 * (site/src/data/state-styles.ts) and the badges (site/src/data/badge.ts) all paint from here.
 */
export const STATE_COLORS: Record<StripState, { light: string; dark: string }> = {
  operational: { light: '#1a7f37', dark: '#3fb950' },
  partial: { light: '#bc4c00', dark: '#db6d28' },
  degraded: { light: '#9a6700', dark: '#d29922' },
  down: { light: '#cf222e', dark: '#f85149' },
  maintenance: { light: '#3b6fb6', dark: '#6b9ee8' },
  'no-data': { light: '#6e7781', dark: '#8b949e' },
};

/**
 * A partial mark is drawn as operational (the target as a whole was) with a band of its own colour across its top,
 * this share of its height: a clean green mark would hide the regional problem, a solid one would claim the whole.
 */
export const PARTIAL_BAND = 0.4;
