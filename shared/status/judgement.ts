/**
 * When the status keeper judges a tick of a target × prompt variant (workers/observatory/keeper/status-judge.ts), and from
 * which regions' states. A tick is judged once every region expected for it has reported it (each region that runs
 * the pair, on the ticks its share of a spread schedule comes round), or once its deadline has passed; then each
 * region counts as it stood at that tick: a region that has not reported it yet, as it last stood, unless it has been
 * silent so long that it is taken as stopped (then as no data). A report that comes after its tick was judged is
 * late: it is still applied, on top of the judgement, and flagged late in the history. Pure: `now` is a parameter.
 */
import { MINUTE_MS } from '../time.ts';
import { pairAt, type PairState } from './pair-state.ts';

/** A tick is judged at the latest this many ticks of wall time after its first report reached the keeper. */
export const DEADLINE_TICKS = 2;
/** ... and never sooner than this after it (on a schedule of one-minute ticks). */
export const MIN_DEADLINE_MINUTES = 5;

/** The deadline after a tick's first report: DEADLINE_TICKS ticks of the schedule, at least MIN_DEADLINE_MINUTES. */
export function reportDeadlineMs(tickMinutes: number): number {
  return Math.max(DEADLINE_TICKS * tickMinutes, MIN_DEADLINE_MINUTES) * MINUTE_MS;
}

/** A region that has reported nothing for this many of its pair's turns (ticks × spread) of wall time is taken as stopped. */
export const SILENT_TICKS = 3;
/** ... and at least this long. */
export const MIN_SILENT_MINUTES = 10;

/** How long a region may be silent and still count as it last stood. */
export function silentAfterMs(tickMinutes: number, spread: number): number {
  return Math.max(SILENT_TICKS * tickMinutes * spread, MIN_SILENT_MINUTES) * MINUTE_MS;
}

/**
 * A tick is judged, whoever is still missing, once some region has reported this many newer ticks of the pair: each
 * pair keeps its last PAIR_HISTORY (36) evaluations, and the tick's must still be among them when it is judged.
 */
export const MAX_TICKS_AHEAD = 24;

/** The regions due at the tick that have not reported it (nor any later tick): none, and the tick is complete. */
export function missingAt(tick: number, due: readonly string[], pairs: readonly PairState[]): string[] {
  return due.filter((r) => {
    const p = pairs.find((x) => x.region === r);
    return !p || p.last_tick < tick;
  });
}

/** How many ticks newer than `tick` the region furthest ahead has reported. */
export function ticksAhead(tick: number, pairs: readonly PairState[]): number {
  return Math.max(0, ...pairs.map((p) => (p.history ?? []).filter((h) => h.tick > tick).length));
}

/**
 * Each region as it stood at `tick` (its last evaluation at or before it), leaving out a region silent for longer
 * than `silentMs` before `now` (stopped: it can neither hold an incident open nor tip the half) and one with no
 * evaluation yet.
 */
export function viewAt(pairs: readonly PairState[], tick: number, now: number, silentMs: number): PairState[] {
  return pairs
    .filter((p) => (p.reported_at ?? 0) >= now - silentMs)
    .map((p) => pairAt(p, tick))
    .filter((p): p is PairState => p !== null);
}

/**
 * What a late report is judged on: the regions as they stood when the keeper last judged (`frontier`), the late
 * region as it now stands (at its late tick). So a late report adds what it says to the judgement it missed, and
 * takes nothing back from the regions judged since.
 */
export function lateView(pairs: readonly PairState[], late: string, frontier: number, now: number, silentMs: number): PairState[] {
  const own = pairs.filter((p) => p.region === late);
  const others = pairs.filter((p) => p.region !== late);
  return [...viewAt(others, frontier, now, silentMs), ...own.map((p) => pairAt(p, p.last_tick)).filter((p): p is PairState => p !== null)];
}
