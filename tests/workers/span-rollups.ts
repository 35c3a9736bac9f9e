/**
 * The span rollups the rollup duty writes (workers/observatory/rollup/rollup-duty.ts), for tests that write hourly
 * and daily rows straight to D1: every span of each region within the days of [from, to) whose hours have all ended by `to` (spans of hours of the
 * recent days alone), and each region's mark: whole through `to`.
 */
import { rewriteSpanRollups, writeSpanMark } from '../../workers/observatory/db/span-rollups.ts';
import { hourSpansFrom, pieceEnd, spanKey, spansWithin, type Piece } from '../../shared/rollup/spans.ts';
import { DAY_MS, HOUR_MS } from '../../shared/time.ts';

export async function writeSpanRollups(db: D1Database, regions: readonly string[], from: number, to: number): Promise<void> {
  const spans = new Map<number, Piece>();
  for (let day = Math.floor(from / DAY_MS) * DAY_MS; day < to; day += DAY_MS)
    for (const s of spansWithin(day))
      if (pieceEnd(s) <= to && (s.hours >= 24 || s.start >= hourSpansFrom(Date.now()))) spans.set(spanKey(s.start, s.hours), s);
  for (const region of regions) {
    await rewriteSpanRollups(db, region, [...spans.values()]);
    await writeSpanMark(db, region, Math.floor(to / HOUR_MS) * HOUR_MS);
  }
}
