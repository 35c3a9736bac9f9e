/**
 * The public views as bench/duties.ts measures them at the goal's 6 regions × 10 targets: the text of the largest
 * percentile view (90 days of TTFT by region × target, interval and all), and what answering an anonymous request
 * from it costs: whole (the stored bytes as they are), narrowed to one region, and to one region × target (string
 * operations on its lines, then the text encoded as the runtime encodes a body), a 304 for a reader that holds it. Each answer is timed on its own, for its p99.
 */
import { rollupPercentileGroups } from '../shared/rollup/percentiles.ts';
import type { Rollup } from '../shared/rollup/rollup.ts';
import { viewText } from '../shared/views/view-text.ts';
import { rollupPercentileDoc } from '../shared/rollup/percentile-doc.ts';
import { viewAnswer } from '../workers/observatory/views/view-answer.ts';
import { keysFirst, pairFilter, type ViewMatch } from '../shared/views/view-match.ts';
import { storedView, type StoredView } from '../workers/observatory/views/view-answer.ts';

const BY = ['region', 'target'] as const;
const LIST = { field: 'groups', keys: ['region', 'target'] };

/** The 90-day TTFT view of these rows (90 daily rows a pair) as the builder stores it. */
export function percentileView(rows: Rollup[], from: number, to: number): StoredView {
  const groups = rollupPercentileGroups(rows, 'ttft_ms', ['region', 'target']).map((g) => keysFirst(g, LIST.keys));
  const text = viewText(rollupPercentileDoc(groups, 'ttft_ms', BY, from, to, 2) as unknown as Record<string, unknown>, LIST);
  return storedView({ name: 'percentiles/90d/ttft_ms', text, hash: '0123456789abcdef', builtAt: to });
}

export function viewRequests(view: StoredView, region: string, target: string) {
  const whole: ViewMatch = { view: view.name };
  const oneRegion: ViewMatch = { view: view.name, filter: pairFilter(LIST, { regions: [region] }) };
  const onePair: ViewMatch = { view: view.name, filter: pairFilter(LIST, { regions: [region], targets: [target] }) };
  const at = view.builtAt + 30_000;
  // The bytes that go out: a narrowed answer's text encoded, as the runtime encodes a string body.
  const encoder = new TextEncoder();
  const sent = (body: Uint8Array | string | null) => (typeof body === 'string' ? encoder.encode(body).byteLength : (body?.byteLength ?? 0));
  return {
    whole: () => sent(viewAnswer(view, whole, 'GET', null, at).body),
    region: () => sent(viewAnswer(view, oneRegion, 'GET', null, at).body),
    pair: () => sent(viewAnswer(view, onePair, 'GET', null, at).body),
    notModified: () => viewAnswer(view, whole, 'GET', `"${view.hash}"`, at).status,
  };
}
