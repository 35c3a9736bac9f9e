/**
 * The status history (README "Status and alerts"): the keeper's judgement, tick by tick, counted per hour and per
 * UTC day for each region × target × prompt variant. A tick it judges in order counts as the state it put the pair
 * in (its incidents follow the same states); a tick judged after a newer one (a backfill of the past) counts as
 * the rules found it, since no state can go back in time; a tick inside a maintenance window counts as
 * `maintenance`. A tick whose report reached the keeper after the keeper had judged that tick without it (its
 * deadline, shared/status/judgement.ts) is also counted as late. Strips, badges' history and uptime read these
 * counts and nothing else, so no period is ever judged by rules other than the incidents'.
 */
import { PERIOD_STATES, STATE_RANK, worstState, type PeriodState } from './levels.ts';

export type PeriodCounts = Record<PeriodState, number>;

/** One region's ticks of an hour as the keeper judged them: tick → [state, what the evidence said, 1 when its report was late]. */
export type TickJudgements = Record<string, [PeriodState, string | null] | [PeriodState, string | null, 1]>;

export interface PeriodTally {
  counts: PeriodCounts;
  /** What the worst tick's evidence said, in words (null while no tick was worse than operational). */
  note: string | null;
  /** Of the ticks counted, those whose report came after the keeper had judged the tick without it. */
  late: number;
}

export const emptyCounts = (): PeriodCounts => Object.fromEntries(PERIOD_STATES.map((s) => [s, 0])) as PeriodCounts;

/** A period's state: its worst tick (down, then degraded, then operational, then maintenance); no-data without any. */
export function periodState(counts: PeriodCounts): PeriodState {
  return worstState(PERIOD_STATES.filter((s) => counts[s] > 0));
}

/** An hour's tally from its ticks: the counts, and the note of its worst tick that was not operational (the latest of equals). */
export function tallyOf(ticks: TickJudgements): PeriodTally {
  const counts = emptyCounts();
  let note: string | null = null;
  let noteRank = 0;
  let late = 0;
  for (const tick of Object.keys(ticks).sort((a, b) => Number(a) - Number(b))) {
    const [state, words, wasLate] = ticks[tick];
    counts[state]++;
    if (wasLate === 1) late++;
    // Only a tick that was not simply operational has something to say (down, degraded, maintenance).
    if (words !== null && state !== 'operational' && STATE_RANK[state] >= noteRank) {
      note = words;
      noteRank = STATE_RANK[state];
    }
  }
  return { counts, note, late };
}

/** Several periods as one (a day from its hours, a month from its days): counts added, the worst one's note (of equals, the one with most such ticks). */
export function mergeTallies(tallies: readonly PeriodTally[]): PeriodTally {
  const counts = emptyCounts();
  let late = 0;
  let worstNote: { rank: number; ticks: number; note: string } | null = null;
  for (const t of tallies) {
    for (const s of PERIOD_STATES) counts[s] += t.counts[s];
    late += t.late;
    const state = periodState(t.counts);
    const rank = STATE_RANK[state];
    const ticks = t.counts[state];
    if (t.note !== null && (worstNote === null || rank > worstNote.rank || (rank === worstNote.rank && ticks > worstNote.ticks)))
      worstNote = { rank, ticks, note: t.note };
  }
  return { counts, note: worstNote?.note ?? null, late };
}

/**
 * The target as a whole from its regions' states (pair-state.ts targetStatus uses it for the state now, the
 * history for each period): degraded or down only when at least half of the regions not in maintenance agree;
 * maintenance when every region was; otherwise operational, or no data when no region had any.
 */
export function wholeTarget(states: readonly PeriodState[]): PeriodState {
  const judged = states.filter((s) => s !== 'maintenance');
  if (states.length > 0 && judged.length === 0) return 'maintenance';
  const bad = judged.filter((s) => s === 'degraded' || s === 'down');
  const half = judged.length / 2;
  if (bad.length > 0 && bad.length >= half) return bad.filter((s) => s === 'down').length >= half ? 'down' : 'degraded';
  return judged.some((s) => s !== 'no-data') ? 'operational' : 'no-data';
}
