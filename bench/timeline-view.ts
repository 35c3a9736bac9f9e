/**
 * The largest timeline view as bench/duties.ts measures it at the goal's 6 regions × 10 targets: 90 days of points
 * in a series a region × target × variant (the 90 d window unpooled), stored as the builder stores it; what answering
 * an anonymous request from it costs is bench/view-serving.ts viewRequests (whole, narrowed, 304).
 */
import type { Rollup } from '../shared/rollup/rollup.ts';
import { TIMELINE_KEYS, timelineDoc } from '../shared/rollup/timeline.ts';
import { viewText } from '../shared/views/view-text.ts';
import { storedView, type StoredView } from '../workers/observatory/views/view-answer.ts';

/** The 90-day timeline of these rows (daily rows) as the builder stores it. */
export function timelineView(rows: Rollup[], from: number, to: number): StoredView {
  const doc = timelineDoc(rows, { from, to, resolution: 'day' }, false, 2);
  const text = viewText(doc as unknown as Record<string, unknown>, { field: 'series', keys: TIMELINE_KEYS });
  return storedView({ name: 'timeline/90d', text, hash: '0123456789abcdef', builtAt: to });
}
