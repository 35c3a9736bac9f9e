/**
 * The paired comparisons at the goal's 6 regions × 10 targets (45 pairs a region), as bench/duties.ts measures them:
 * one region's stored hourly rows of blocks (as D1 holds them: JSON, a row an hour), what GET /api/v1/compare does
 * with a week of them for one family, what the view builder does with 90 days of every family
 * (views/compare-build.ts), and the answers of an anonymous request from the largest compare view.
 */
import type { RollupSample } from '../shared/rollup/rollup.ts';
import { encodeBlocks, pairedHours, PAIRED_FIGURES, type StoredBlocks } from '../shared/rollup/paired-hours.ts';
import { familySeries, familySeriesComparisons, type PairedFamily } from '../shared/rollup/paired-families.ts';
import { CompareViewBuilderBefore, familiesBefore } from '../tests/helpers/paired-reference.ts';
import { viewText } from '../shared/views/view-text.ts';
import { pairFilter, type ViewMatch } from '../shared/views/view-match.ts';
import { compareSpan, VIEW_WINDOW_IDS, viewSpan, type ViewWindowId } from '../shared/views/windows.ts';
import { COMPARE_LIST, CompareViewBuilder } from '../workers/observatory/views/compare-build.ts';
import { storedView, viewAnswer, type StoredView } from '../workers/observatory/views/view-answer.ts';
import { familyReport } from '../workers/observatory/reports/family-report.ts';
import { createHash } from 'node:crypto';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../shared/time.ts';
import { packPairedDay } from '../shared/rollup/paired-days.ts';
import { hexToBytes } from '../shared/bytes.ts';

const HOUR = HOUR_MS;
const TICK = 5 * MINUTE_MS;
const TICKS_PER_HOUR = 12;

export interface StoredRow {
  hour: number;
  text: string;
}

/** One region's rows of `hours` hours up to `to`: 10 targets a tick, each at its own level, on a path they share. */
export function regionRows(targets: readonly string[], hours: number, to: number): StoredRow[] {
  let seed = 7;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const rows: StoredRow[] = [];
  for (let h = hours; h >= 1; h--) {
    const hour = to - h * HOUR;
    const samples: RollupSample[] = [];
    for (let k = 0; k < TICKS_PER_HOUR; k++) {
      const path = 1 + 0.3 * Math.sin(h * 0.7 + k);
      targets.forEach((target, t) => {
        samples.push({
          tick_id: hour + k * TICK,
          region: 'weur',
          target,
          prompt_variant: 'chat',
          method_version: 2,
          error: null,
          ttfa_ms: (300 + 20 * t) * path * (1 + 0.05 * (random() - 0.5)),
          tpot_ms: (10 + t) * (1 + 0.05 * (random() - 0.5)),
        } as unknown as RollupSample);
      });
    }
    rows.push({ hour, text: encodeBlocks(pairedHours(samples)[0].blocks) });
  }
  return rows;
}

const parse = (rows: readonly StoredRow[]) => rows.map((r) => ({ hour: r.hour, blocks: JSON.parse(r.text) as StoredBlocks }));

/**
 * A family's rows as D1 holds them once its days are packed (db/paired.ts familyStoredIn reads them so): the whole days
 * of the rows' span as the hex text of their packed bytes (a D1 row a day), and the hourly rows at either edge.
 */
export interface StoredFamily {
  days: Array<{ day: number; hex: string }>;
  edges: StoredRow[];
}

export function packedFamily(rows: readonly StoredRow[]): StoredFamily {
  const first = Math.ceil(rows[0].hour / DAY_MS) * DAY_MS;
  const last = Math.floor((rows[rows.length - 1].hour + HOUR) / DAY_MS) * DAY_MS;
  const days: StoredFamily['days'] = [];
  for (let day = first; day < last; day += DAY_MS) {
    const packed = packPairedDay(day, parse(rows.filter((r) => r.hour >= day && r.hour < day + DAY_MS)));
    if (packed) days.push({ day, hex: Buffer.from(packed).toString('hex').toUpperCase() });
  }
  return { days, edges: rows.filter((r) => r.hour < first || r.hour >= last) };
}

/** What a compare build over these windows reads of a family's rows (compareSpan's range of them), as D1 holds them. */
export function familyCovering(rows: readonly StoredRow[], windows: readonly ViewWindowId[], now: number): StoredFamily {
  const spans = windows.map((id) => compareSpan(id, now));
  const from = Math.min(...spans.map((s) => s.from));
  const to = Math.max(...spans.map((s) => s.to));
  return packedFamily(rows.filter((r) => r.hour >= from && r.hour < to));
}

/** What a read of a packed family hands the code: the days' bytes from their hex, the edges' JSON parsed. */
const readFamily = (f: StoredFamily) => ({
  days: f.days.map((d) => ({ day: d.day, packed: hexToBytes(d.hex) })),
  rows: parse(f.edges),
});

/** GET /api/v1/compare of one family on one figure: its packed days and edge hours read, its pairs decoded and compared. */
export function liveFamily(family: PairedFamily, stored: StoredFamily) {
  const { days, rows } = readFamily(stored);
  return familySeriesComparisons(family, familySeries(family, rows, ['ttfa_ms'], days), ['ttfa_ms']).get('ttfa_ms')!;
}

/** liveFamily as it was before issue 33's speed-up (tests/helpers/paired-reference.ts): every hour's JSON, blocks as objects. */
export function liveFamilyBefore(family: PairedFamily, rows: readonly StoredRow[]) {
  return familiesBefore
    .familyComparisons(family, familiesBefore.familyBlocks(family, parse(rows), ['ttfa_ms']), ['ttfa_ms'])
    .get('ttfa_ms')!;
}

/**
 * The compare part's build over these families (each with the same rows, as one read each gives them): every window
 * and figure, and each view's text as stored. Returns the views' texts. Today's: from the family's packed days and edge
 * hours (`stored`); `before`: from every hour's JSON with the builder as it was before issue 33's speed-up
 * (tests/helpers/paired-reference.ts).
 */
export function buildCompareViews(
  families: readonly PairedFamily[],
  rows: readonly StoredRow[],
  now: number,
  before = false,
  stored?: StoredFamily,
  windows: readonly ViewWindowId[] = VIEW_WINDOW_IDS,
): string[] {
  if (before) {
    // Before: every window to the last whole hour, rebuilt each hour.
    const builder = new CompareViewBuilderBefore(windows.map((id) => viewSpan(id, now)));
    for (const f of families) builder.add(f, parse(rows));
    return builder.views().map((v) => viewText(v.doc as Record<string, unknown>, v.list));
  }
  const builder = new CompareViewBuilder(windows.map((id) => compareSpan(id, now)));
  const packed = stored ?? familyCovering(rows, windows, now);
  for (const f of families) {
    const { days, rows: edges } = readFamily(packed);
    builder.add(f, edges, days);
  }
  return builder.views().map((v) => viewText(v.doc as Record<string, unknown>, v.list));
}

/** The largest compare view (90 days, TTFA, every family) as stored, and the answers of an anonymous request from it. */
export function compareViewRequests(text: string, builtAt: number, region: string, a: string, b: string) {
  const view: StoredView = storedView({ name: 'compare/90d/ttfa_ms', text, hash: '0123456789abcdef', builtAt });
  const whole: ViewMatch = { view: view.name };
  const oneRegion: ViewMatch = { view: view.name, filter: pairFilter(COMPARE_LIST, { regions: [region], variants: ['chat'] }) };
  const onePair: ViewMatch = {
    view: view.name,
    filter: pairFilter(COMPARE_LIST, { regions: [region], targets: [a, b], variants: ['chat'] }),
  };
  const at = builtAt + 30_000;
  return {
    whole: () => viewAnswer(view, whole, 'GET', null, at).body!.length,
    region: () => viewAnswer(view, oneRegion, 'GET', null, at).body!.length,
    pair: () => viewAnswer(view, onePair, 'GET', null, at).body!.length,
  };
}

export const COMPARE_VIEW_COUNT = VIEW_WINDOW_IDS.length * PAIRED_FIGURES.length;

/**
 * Publishing a week's report (reports/build-report.ts) over these families, each with the same rows (two weeks up to
 * `to`, as one read per family gives them): each family's rows parsed once, both weeks compared on every figure, the
 * leaders and changes, then the document's text and its SHA-256 (the Worker's is WebCrypto's). Returns its bytes.
 */
export function publishWeek(families: readonly PairedFamily[], rows: readonly StoredRow[], to: number): number {
  const WEEK = 7 * 24 * HOUR;
  const week = { from: to - WEEK, to };
  const before = { from: to - 2 * WEEK, to: to - WEEK };
  const text = JSON.stringify({ families: families.map((f) => familyReport(f, parse(rows), week, before)) });
  createHash('sha256').update(text).digest('hex');
  return text.length;
}
