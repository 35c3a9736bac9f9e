/**
 * Issue 33's merge figures for bench/duties.ts, each as today's code and the code before it (the issue's
 * "today", kept in tests/helpers/merge-before.ts), on the same rows, from D1's response on: what D1 sends
 * for the read each makes (bench/d1-response.ts), the rows workerd's D1 client makes of it, the BLOBs
 * turned to bytes, the merge, the answer. Each duty's two sides are checked to give the same answer
 * before they are timed.
 */
import { DAY_WINDOWS, percentileWindows } from '../shared/views/percentile-windows.ts';
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
  const ninetyNow = once(() => [packedResponse(ninety().daily, 'day', ['ttft_ms']), packedResponse(ninety().hourly, 'hour', ['ttft_ms'])]);
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
    // Now: read grouped, the nested windows as their disjoint parts (today's hours, then days 1-7, 8-30, 31-90), each read once.
    const bounds = [0, ...WINDOW_DAYS];
    const now = {
      lastDay: packedResponse(lastDay, 'hour', VIEW_COLUMNS),
      today: packedResponse(today, 'hour', VIEW_COLUMNS),
      days: WINDOW_DAYS.map((_, i) => packedResponse(days.slice(bounds[i] * pairs, bounds[i + 1] * pairs), 'day', VIEW_COLUMNS)),
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
            lastDay: packedRowsOf(lastDay),
            todaysHours: packedRowsOf(today),
            days: new Map(DAY_WINDOWS.map((w, i) => [w.id, packedRowsOf(days[i])])),
          },
          { figures: FIGURES, by: VIEW_BY, partsBy: PARTS_BY, pooledBy: POOLED_BY },
        );
        return [...records.values()].map(({ grid, pooledTtft }) => [...grid.values(), pooledTtft]);
      },
    },
  ];
}
