/**
 * Every figure's percentile groups of each window the public views hold, from packed rows read once (db/rollups.ts
 * packedRowsCovering): the 24 hours' hourly rows for the 24 h view; for the others today's ended hours and the daily
 * rows back to 7, 30 and 90 days, added to sums kept open, so the nested windows are summed once
 * (shared/rollup/percentiles.ts PercentileSums). By region × target (`by`, the split's parts by `partsBy`), and
 * TTFT by target with the regions pooled (`pooledBy`), summed from the region × target sums, no row read twice.
 * Pure: the view builder reads the rows, the benchmark hands it the same rows at the goal's size.
 */
import { PercentileSums, type GroupRecord, type RollupFigure, type RollupGroupColumn } from '../rollup/percentiles.ts';
import type { PackedRollupRows } from '../rollup/packed-rows.ts';
import { VIEW_WINDOWS, type ViewWindowId } from './windows.ts';

/** The rows of each piece: the last 24 hours', today's ended hours', and each longer window's days beyond the last. */
export interface WindowRows {
  lastDay: Iterable<PackedRollupRows>;
  todaysHours: Iterable<PackedRollupRows>;
  /** Per window of days, shortest first: its days not in the shorter one (7 d: days 1–7; 30 d: 8–30; 90 d: 31–90). */
  days: ReadonlyMap<ViewWindowId, Iterable<PackedRollupRows>>;
}

export interface Groupings {
  figures: readonly RollupFigure[];
  by: readonly RollupGroupColumn[];
  partsBy: readonly RollupGroupColumn[];
  pooledBy: readonly RollupGroupColumn[];
}

/** Per window: every figure's groups by region × target, and TTFT's by target with its regions pooled. */
export type WindowRecords = Map<ViewWindowId, { grid: Map<RollupFigure, GroupRecord[]>; pooledTtft: GroupRecord[] }>;

/** The windows of days, shortest first. */
export const DAY_WINDOWS = VIEW_WINDOWS.filter((w) => w.id !== '24h').sort((a, b) => a.days - b.days);

export function percentileWindows(rows: WindowRows, g: Groupings): WindowRecords {
  const records = (sums: PercentileSums) => ({ grid: sums.records(), pooledTtft: sums.coarserRecords('ttft_ms', g.pooledBy) });
  const out: WindowRecords = new Map();
  const day = new PercentileSums(g.figures, g.by, g.partsBy);
  day.addPacked(rows.lastDay);
  out.set('24h', records(day));
  const nested = new PercentileSums(g.figures, g.by, g.partsBy);
  nested.addPacked(rows.todaysHours);
  for (const w of DAY_WINDOWS) {
    nested.addPacked(rows.days.get(w.id) ?? []);
    out.set(w.id, records(nested));
  }
  return out;
}
