/**
 * The status history as the site shows it, from the status keeper's counted judgements (GET /api/v1/status-history;
 * shared/status/period-tally.ts) and nothing else: the same states the incidents follow. A region's period is its
 * worst tick; the target's is the keeper's own rule over its regions (wholeTarget: degraded or down when at least
 * half of the regions not in maintenance agree), or `partial` when it stayed operational as a whole while one of its
 * regions was degraded or down (levels.ts); a target with several prompt variants shows the worst of them.
 */
import {
  emptyCounts,
  mergeTallies,
  periodState,
  wholeTarget,
  type PeriodCounts,
  type PeriodTally,
} from '../../../shared/status/period-tally.ts';
import { PERIOD_STATES, STATE_LABELS, stateColumn, worstState, type PeriodState, type StripState } from '../../../shared/status/levels.ts';
import type { StatusHistoryRowDoc } from '../../../shared/api-types.ts';
import { DAY_MS, HOUR_MS } from '../../../shared/time.ts';
import type { SiteData, WindowView } from './types.ts';

export { STATE_LABELS };
export type Status = StripState;

/** One row of GET /api/v1/status-history. */
export type HistoryRow = StatusHistoryRowDoc;

const worse = (a: PeriodState, b: PeriodState): PeriodState => worstState([a, b]);

export const startOf = (r: HistoryRow): string => (r.hour ?? r.day)!;

export function tallyOfRow(r: HistoryRow): PeriodTally {
  const counts = emptyCounts();
  for (const s of PERIOD_STATES) counts[s] = r[stateColumn(s)];
  return { counts, note: r.note, late: r.late ?? 0 };
}

/** One period of a target: its state as a whole (or partial), each region's, the ticks judged, and the worst evidence in words. */
export interface StatusCell {
  start: string;
  state: StripState;
  regions: Array<{ region: string; state: PeriodState }>;
  /** Region-ticks judged (a tick of 3 regions counts 3). */
  n: number;
  counts: PeriodCounts;
  note: string | null;
}

/**
 * The target's cells, one per period start (oldest first), over `variants` (the worst of them) and `regions`; a
 * period without rows is no data.
 */
export function statusCells(
  rows: readonly HistoryRow[],
  target: string,
  variants: readonly string[],
  regions: readonly string[],
  starts: readonly string[],
): StatusCell[] {
  const byKey = new Map<string, HistoryRow>();
  for (const r of rows)
    if (r.target === target && variants.includes(r.prompt_variant)) byKey.set(`${startOf(r)}|${r.prompt_variant}|${r.region}`, r);
  return starts.map((start) => {
    let state: PeriodState = 'no-data';
    const regionStates = new Map<string, PeriodState>(regions.map((r) => [r, 'no-data']));
    const tallies: PeriodTally[] = [];
    for (const v of variants) {
      const states = regions.map((region) => {
        const row = byKey.get(`${start}|${v}|${region}`);
        if (!row) return 'no-data' as PeriodState;
        const t = tallyOfRow(row);
        tallies.push(t);
        const s = periodState(t.counts);
        regionStates.set(region, worse(regionStates.get(region)!, s));
        return s;
      });
      state = worse(state, wholeTarget(states));
    }
    const merged = mergeTallies(tallies);
    const n = PERIOD_STATES.reduce((sum, s) => sum + merged.counts[s], 0);
    const regional = [...regionStates.values()].some((s) => s === 'degraded' || s === 'down');
    return {
      start,
      state: state === 'operational' && regional ? 'partial' : state,
      regions: regions.map((region) => ({ region, state: regionStates.get(region)! })),
      n,
      counts: merged.counts,
      note: merged.note,
    };
  });
}

/** Period starts (ISO) from `from` to before `to`, a step apart. */
export function periodStarts(from: number, to: number, step: number): string[] {
  const out: string[] = [];
  for (let t = Math.floor(from / step) * step; t < to; t += step) out.push(new Date(t).toISOString());
  return out;
}

/** A cell in words, for its tooltip and its accessible name: "2026-11-30: Degraded in apac — 864 region-ticks; …". */
export function cellWords(c: StatusCell, stamp: string): string {
  const bad = c.regions.filter((r) => r.state !== 'operational' && r.state !== 'no-data');
  const where =
    bad.length > 0 && c.state !== 'no-data' ? ` (${bad.map((r) => `${r.region} ${STATE_LABELS[r.state].toLowerCase()}`).join(', ')})` : '';
  const judged = c.n === 0 ? 'nothing judged' : `${c.n.toLocaleString('en-US')} region-ticks judged`;
  return `${stamp}: ${STATE_LABELS[c.state]}${where}, ${judged}${c.note ? `; ${c.note}` : ''}`;
}

/** A view's stamp of a period: its hour in the 24 h view, its day in the others. */
export const periodStamp = (iso: string, hourly: boolean): string =>
  hourly ? `${iso.slice(0, 13).replace('T', ' ')}:00 UTC` : iso.slice(0, 10);

/**
 * A target's strip over a view, as the status page and its history badge both draw it: an hour a mark in the 24 h
 * view, a day in the others, over the variants the status judges it in (or the site's variant) and every region.
 */
export function viewCells(data: SiteData, view: WindowView, target: string): StatusCell[] {
  const hourly = view.resolution === 'hour';
  const starts = periodStarts(Date.parse(view.window.from), Date.parse(view.window.to), hourly ? HOUR_MS : DAY_MS);
  const judged = (data.status?.targets ?? []).filter((x) => x.target === target);
  const variants = judged.length > 0 ? judged.map((x) => x.prompt_variant) : [data.variant.id];
  const rows = hourly ? data.status_history.hours : data.status_history.days;
  return statusCells(
    rows,
    target,
    variants,
    data.regions.map((r) => r.code),
    starts,
  );
}
