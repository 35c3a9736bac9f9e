/**
 * Issue 33's merge figures for bench/duties.ts, each as today's code and the code before it (the issue's
 * "today", kept in tests/helpers/merge-before.ts), on the same rows, from D1's response on: what D1 sends
 * for the read each makes (bench/d1-response.ts), the rows workerd's D1 client makes of it, the BLOBs
 * turned to bytes, the merge, the answer. Each duty's two sides are checked to give the same answer
 * before they are timed.
 */
import { DAY_WINDOWS, percentileWindows } from '../shared/views/percentile-windows.ts';
import { LONGEST_VIEW_DAYS } from '../shared/views/windows.ts';
import { isDeepStrictEqual } from 'node:util';
import { ROLLUP_METRICS, SPLIT_METRICS, type Rollup, type RollupMetric } from '../shared/rollup/rollup.ts';
import {
  packedColumnsOf,
  packedPercentileGroupsByFigure,
  type RollupFigure,
  type RollupGroupColumn,
  type StoredFigureRow,
  type PackedRollupRows,
} from '../shared/rollup/percentiles.ts';
import { forgetCiRanks } from '../shared/stats/percentile-ci.ts';
import { PERCENTILE_ROW_UNITS } from '../shared/config/read-limits.ts';
import { blobBytes, fromRollupRow } from '../workers/observatory/db/rollup-row.ts';
import { prometheusText } from '../workers/observatory/api/prometheus.ts';
import { prometheusTextBefore, rollupPercentileGroupsBefore, storedFigurePercentileGroupsBefore } from '../tests/helpers/merge-before.ts';
import { PACKED_COLUMNS, d1ClientRows, d1ResponseText, packedRows, sqliteHex } from './d1-response.ts';
import { hexToBytes } from '../shared/bytes.ts';
import { coverOf, type Piece } from '../shared/rollup/spans.ts';
import { DAY_MS, HOUR_MS } from '../shared/time.ts';
import { pieceRows } from './stored-rows.ts';

/** The CPU the public views of an hour may take in the Durable Object that builds them (issue 33). */
export const VIEWS_OF_AN_HOUR_MS = 100;

/**
 * Node 22 has no Uint8Array.fromHex, which workerd has: the bench lends it Node's own native hex decoder, so
 * that hex text costs here what it costs a Worker (shared/bytes.ts hexToBytes uses the runtime's decoder).
 */
export function lendNativeHex(): void {
  const u = Uint8Array as unknown as { fromHex?: (text: string) => Uint8Array };
  u.fromHex ??= (text) => {
    const bytes = Buffer.from(text, 'hex');
    if (bytes.length * 2 !== text.length) throw new SyntaxError('not hex text');
    return bytes;
  };
}

export interface MergeData {
  /** 90 days of daily rows of every pair, newest day first, as stored (period column `day`). */
  dailyRows90: () => Array<Record<string, unknown>>;
  /** 46 hours of hourly rows of every pair, as stored (`hour`). */
  edgeHourRows: () => Array<Record<string, unknown>>;
  /** The running totals of every pair, as stored. */
  totalsRows: () => Array<Record<string, unknown>>;
  pairs: number;
  /** What a free-plan read is held to (half its CPU), in ms. */
  readBudgetMs: number;
}

export interface PairedDuty {
  name: string;
  /** The CPU `now` may take, in ms. */
  budgetMs: number;
  budgetOf: string;
  before: () => unknown;
  now: () => unknown;
  /**
   * What must answer alike, when the two sides do different work by design (the compare views of an hour: before,
   * every window; now, the 24 h ones): the answers both give. Absent: the two sides whole.
   */
  alike?: () => [unknown, unknown];
}

const BLOB_COLUMNS = [...ROLLUP_METRICS, 'split'] as const;
const FIGURES: RollupFigure[] = [...ROLLUP_METRICS, ...SPLIT_METRICS];
const VIEW_BY: RollupGroupColumn[] = ['region', 'target', 'prompt_variant'];
const PARTS_BY: RollupGroupColumn[] = [...VIEW_BY, 'split_source'];
/** The views' TTFT by target, its regions pooled. */
const POOLED_BY: RollupGroupColumn[] = ['target', 'prompt_variant'];
/** The columns the views' packed reads hold, in their order. */
const VIEW_COLUMNS = packedColumnsOf(FIGURES);

/** A value made when first asked for (a duty's process makes only what it reads). */
function once<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

/** Today's read of one figure (db/rollups.ts figureRowsCovering before): a row per period, the column as a BLOB. */
const FIGURE_ROW = ['region', 'target', 'prompt_variant', 'probes', 'successes'] as const;
const figureResponse = (rows: Array<Record<string, unknown>>, metric: RollupMetric) =>
  d1ResponseText(
    [...FIGURE_ROW, 'figure'],
    rows.map((r) => [...FIGURE_ROW.map((c) => r[c]), r[metric]]),
  );

/** Today's read of whole rows (rollupsCovering, rollupTotals before): every column, BLOBs as arrays. */
const wholeResponse = (rows: Array<Record<string, unknown>>) => {
  const columns = Object.keys(rows[0]);
  return d1ResponseText(
    columns,
    rows.map((r) => columns.map((c) => r[c])),
  );
};

/** The running totals as read now (rollupTotals: hex(column) AS column). */
const totalsHexResponse = (rows: Array<Record<string, unknown>>) => {
  const columns = Object.keys(rows[0]);
  const blob = new Set<string>(BLOB_COLUMNS);
  return d1ResponseText(
    columns,
    rows.map((r) => columns.map((c) => (blob.has(c) ? sqliteHex(r[c] as Uint8Array) : r[c]))),
  );
};

/** A packed read's response over rows of one table (packedRowsCovering). */
const packedResponse = (rows: Array<Record<string, unknown>>, period: 'hour' | 'day', columns: readonly string[]) =>
  d1ResponseText(PACKED_COLUMNS, packedRows(rows, period, columns));

/**
 * What packedRowsCovering's reads answer for a window's pieces (db/packed-reads.ts): a response per table, each
 * piece's rows packed per region. `rowsOf(from, to)`: the bench's stored base rows of the periods in [from, to).
 */
function piecesResponses(
  pieces: readonly Piece[],
  rowsOf: (from: number, to: number) => Array<Record<string, unknown>>,
  columns: readonly string[],
): string[] {
  const tables = new Map<string, Array<Record<string, unknown>>>();
  for (const { table, rows } of pieceRows(pieces, rowsOf)) tables.set(table, [...(tables.get(table) ?? []), ...rows]);
  return [...tables.values()].map((rows) => packedResponse(rows, 'hour', columns));
}

/** The pieces of a window that ends now (spans of hours kept for the recent days alone: shared/rollup/spans.ts). */
const piecesToNow = ([from, to]: [number, number]) => coverOf(from, to, { now: to });

/** A window's start at a day's midnight of [from, from + 64 days) whose pieces are the most (the worst alignment of the spans). */
function worstAlignment(from: number, window: (day: number) => [number, number]): number {
  let worst = from;
  for (let d = 0; d < 64; d++) {
    const day = from + d * DAY_MS;
    if (piecesToNow(window(day)).length > piecesToNow(window(worst)).length) worst = day;
  }
  return worst;
}

const figureRowsOf = (text: string): StoredFigureRow[] =>
  d1ClientRows(text).map((r) => ({ ...(r as unknown as StoredFigureRow), figure: blobBytes(r.figure) }));

const packedRowsOf = (text: string): PackedRollupRows[] =>
  d1ClientRows(text).map((r) => ({ region: String(r.region), bytes: hexToBytes(String(r.packed)) }));

/** Throws unless the duty's two sides give the same answer (run once, before it is timed). */
export function checkSameAnswer(d: PairedDuty): void {
  const [before, now] = d.alike ? d.alike() : [d.before(), d.now()];
  if (!isDeepStrictEqual(JSON.parse(JSON.stringify(before)), JSON.parse(JSON.stringify(now))))
    throw new Error(`${d.name}: today's code and the code before it answer differently`);
}

export function mergeDuties(data: MergeData): PairedDuty[] {
  const pairs = data.pairs;
  // The heaviest read: 90 days of every pair, 90 daily rows and 46 edge hours each (as 'percentiles over 90 days').
  const ninety = once(() => ({
    daily: data.dailyRows90(),
    hourly: data.edgeHourRows(),
  }));
  const ninetyBefore = once(() => [figureResponse(ninety().daily, 'ttft_ms'), figureResponse(ninety().hourly, 'ttft_ms')]);
  // Now: the same 90 days and 23 + 23 edge hours read as their pieces (shared/rollup/spans.ts) for a window that ends
  // now (its oldest hours one by one), at the spans' worst alignment.
  const ninetyNow = once(() => {
    const window = (day: number): [number, number] => [day - 23 * HOUR_MS, day + LONGEST_VIEW_DAYS * DAY_MS + 23 * HOUR_MS];
    const day0 = worstAlignment(Date.UTC(2026, 0, 1), window);
    const { daily, hourly } = ninety();
    // The edge hours 0-22 before the first day, 23-45 after the last; day j the j-th day's rows.
    const rowsOf = (from: number, to: number) => {
      const out: Array<Record<string, unknown>> = [];
      if (to - from < DAY_MS)
        for (let t = from; t < to; t += HOUR_MS) {
          const i = t < day0 ? 23 - (day0 - t) / HOUR_MS : 23 + (t - day0 - LONGEST_VIEW_DAYS * DAY_MS) / HOUR_MS;
          out.push(...hourly.slice(i * pairs, (i + 1) * pairs));
        }
      else
        for (let t = from; t < to; t += DAY_MS) out.push(...daily.slice(((t - day0) / DAY_MS) * pairs, ((t - day0) / DAY_MS + 1) * pairs));
      return out;
    };
    return piecesResponses(piecesToNow(window(day0)), rowsOf, ['ttft_ms']);
  });
  // As the read API answers (api/percentiles.ts percentileGroupsFromRollups): before, rows of one column; now, packed rows.
  const ttftBefore = (texts: string[]) => storedFigurePercentileGroupsBefore(texts.flatMap(figureRowsOf), ['region', 'target']);
  const ttftNow = (texts: string[]) =>
    packedPercentileGroupsByFigure(texts.flatMap(packedRowsOf), ['ttft_ms'], ['region', 'target']).get('ttft_ms');

  const capRows = once(() => data.dailyRows90().slice(0, PERCENTILE_ROW_UNITS.free));
  const capBefore = once(() => figureResponse(capRows(), 'ttft_ms'));
  const capNow = once(() => packedResponse(capRows(), 'day', ['ttft_ms']));

  const totalsBefore = once(() => wholeResponse(data.totalsRows()));
  const totalsNow = once(() => totalsHexResponse(data.totalsRows()));

  // The public views of an hour (at 23:00, the day's heaviest): 24 h of hourly rows; 7, 30 and 90 days of daily rows and the day's 23 hours.
  const TODAY_HOURS = 23;
  const WINDOW_DAYS = [7, 30, 90];
  const views = once(() => {
    const hours = data.edgeHourRows();
    const days = data.dailyRows90();
    const lastDay = hours.slice(0, 24 * pairs);
    const today = hours.slice(0, TODAY_HOURS * pairs);
    // Before: each window read whole (every column, a row a period) and answered figure by figure.
    const before = [[lastDay], ...WINDOW_DAYS.map((n) => [days.slice(0, n * pairs), today])].map((parts) => parts.map(wholeResponse));
    // Now: read grouped, the nested windows as their disjoint parts (today's hours, then days 1-7, 8-30, 31-90), each
    // read once as its pieces (shared/rollup/spans.ts), at the spans' worst alignment for 90 days.
    const day0 = worstAlignment(Date.UTC(2026, 0, 1), (day) => [day - LONGEST_VIEW_DAYS * DAY_MS, day + TODAY_HOURS * HOUR_MS]);
    const hoursFrom = (first: number) => (from: number, to: number) => {
      const out: Array<Record<string, unknown>> = [];
      for (let t = from; t < to; t += HOUR_MS)
        out.push(...hours.slice(((t - first) / HOUR_MS) * pairs, ((t - first) / HOUR_MS + 1) * pairs));
      return out;
    };
    const daysBack = (from: number, to: number) => {
      const out: Array<Record<string, unknown>> = [];
      for (let t = from; t < to; t += DAY_MS) {
        const j = (day0 - t) / DAY_MS - 1;
        out.push(...days.slice(j * pairs, (j + 1) * pairs));
      }
      return out;
    };
    const bounds = [0, ...WINDOW_DAYS];
    const now = {
      lastDay: piecesResponses(piecesToNow([day0 - HOUR_MS, day0 + TODAY_HOURS * HOUR_MS]), hoursFrom(day0 - HOUR_MS), VIEW_COLUMNS),
      today: piecesResponses(piecesToNow([day0, day0 + TODAY_HOURS * HOUR_MS]), hoursFrom(day0), VIEW_COLUMNS),
      days: WINDOW_DAYS.map((_, i) =>
        piecesResponses(coverOf(day0 - bounds[i + 1] * DAY_MS, day0 - bounds[i] * DAY_MS), daysBack, VIEW_COLUMNS),
      ),
    };
    return { before, now };
  });
  const byOf = (f: RollupFigure) => ((SPLIT_METRICS as readonly string[]).includes(f) ? PARTS_BY : VIEW_BY);

  return [
    {
      name: 'percentiles over 90 days, every pair (90 daily rows and 46 edge hours a pair)',
      budgetMs: data.readBudgetMs,
      budgetOf: 'read API (Worker, free plan)',
      before: () => {
        forgetCiRanks();
        return ttftBefore(ninetyBefore());
      },
      now: () => {
        forgetCiRanks();
        return ttftNow(ninetyNow());
      },
    },
    {
      // What the free plan's cap (PERCENTILE_ROW_UNITS) lets one request merge, in daily rows of every pair.
      name: `percentiles from ${PERCENTILE_ROW_UNITS.free} daily rows (the free plan's cap)`,
      budgetMs: data.readBudgetMs,
      budgetOf: 'read API (Worker, free plan)',
      before: () => {
        forgetCiRanks();
        return ttftBefore([capBefore()]);
      },
      now: () => {
        forgetCiRanks();
        return ttftNow([capNow()]);
      },
    },
    {
      name: '/metrics, every pair (6 × 10)',
      budgetMs: data.readBudgetMs,
      budgetOf: 'read API (Worker, free plan)',
      before: () => prometheusTextBefore(d1ClientRows(totalsBefore()).map(fromRollupRow)),
      now: () => prometheusText(d1ClientRows(totalsNow()).map(fromRollupRow)),
    },
    {
      // As the view builder makes them (workers/observatory/views/percentile-views.ts, shared/views/percentile-windows.ts):
      // every figure by region × target and TTFT by target with the regions pooled, each window.
      name: 'every percentile view of an hour (8 figures by pair, TTFT by target; 24 h, 7 d, 30 d, 90 d)',
      budgetMs: VIEWS_OF_AN_HOUR_MS,
      budgetOf: 'Durable Object alarm (issue 33)',
      before: () => {
        forgetCiRanks();
        return views().before.map((texts) => {
          const rows: Rollup[] = texts.flatMap((t) => d1ClientRows(t).map(fromRollupRow));
          return [
            ...FIGURES.map((f) => rollupPercentileGroupsBefore(rows, f, byOf(f))),
            rollupPercentileGroupsBefore(rows, 'ttft_ms', POOLED_BY),
          ];
        });
      },
      now: () => {
        forgetCiRanks();
        const { lastDay, today, days } = views().now;
        const records = percentileWindows(
          {
            lastDay: lastDay.flatMap(packedRowsOf),
            todaysHours: today.flatMap(packedRowsOf),
            days: new Map(DAY_WINDOWS.map((w, i) => [w.id, days[i].flatMap(packedRowsOf)])),
          },
          { figures: FIGURES, by: VIEW_BY, partsBy: PARTS_BY, pooledBy: POOLED_BY },
        );
        return [...records.values()].map(({ grid, pooledTtft }) => [...grid.values(), pooledTtft]);
      },
    },
  ];
}
