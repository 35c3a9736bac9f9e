/**
 * The timeline, from rollups: per period (an hour, or a UTC day) and region × target × prompt variant, the probes,
 * the failures by error class and TTFT p50/p95, which the site draws as "p50/p95 per hour and errors by class" and
 * as each target's and region's history; `pooled`, per target × variant with its regions merged (region '*'). One
 * function for GET /api/v1/timeline, its public views and the site build.
 *
 * The answer holds a series a line (region × target × variant, its periods inside), not a period a line: a view of
 * 90 days then narrows a few dozen lines, not thousands (shared/views/view-text.ts).
 */
import type { ErrorClass } from '../ids.ts';
import type { TimelineDoc, TimelineKey, TimelinePoint, TimelineSeries } from '../api-types.ts';
import { HISTOGRAM_RELATIVE_ERROR, HISTOGRAM_SCALE } from '../stats/exp-histogram.ts';
import { HistogramSum } from '../stats/histogram-sum.ts';
import { DAY_MS } from '../time.ts';
import { dayOf, hourOf, STORED_HISTOGRAM, type Rollup, type WithStoredHistograms } from './rollup.ts';

export type TimelineResolution = TimelineDoc['resolution'];
/** The region of a point whose regions are merged. */
export const POOLED_REGION = '*';
/** The key fields every series starts with, in this order (the public views narrow its lines by them). */
export const TIMELINE_KEYS: readonly TimelineKey[] = ['region', 'target', 'prompt_variant'];

/** Whole hours [from, to) and the period its points are drawn at. */
export interface TimelineSpan {
  from: number;
  to: number;
  resolution: TimelineResolution;
}

/** The period a window of whole hours is drawn at: its hours for a day or less, UTC days beyond. */
export const timelineResolution = (from: number, to: number): TimelineResolution => (to - from <= DAY_MS ? 'hour' : 'day');

/**
 * The rows of a span from two reads, the last 24 hours' hourly rows and the longest window's daily rows (what the
 * views and the site build read): its hours at hourly resolution; else the daily rows of its whole days, then the
 * ended hours of its last day (today), which the points merge into that day.
 */
export function spanRows(hourly: readonly Rollup[], daily: readonly Rollup[], span: TimelineSpan): Rollup[] {
  if (span.resolution === 'hour') return hourly.filter((r) => r.hour >= span.from && r.hour < span.to);
  const lastDay = dayOf(span.to);
  return [...daily.filter((r) => r.hour >= span.from && r.hour < lastDay), ...hourly.filter((r) => r.hour >= lastDay && r.hour < span.to)];
}

/** The TTFT of the point being made, summed from each row's stored bytes when it came from D1 (no histogram decoded a row). */
const ttft = new HistogramSum();

function pointOf(rows: readonly Rollup[], region: string, start: number): TimelinePoint {
  const errors: Partial<Record<ErrorClass, number>> = {};
  let probes = 0;
  let successes = 0;
  ttft.clear();
  for (const r of rows) {
    probes += r.probes;
    successes += r.successes;
    for (const [c, n] of Object.entries(r.errors) as Array<[ErrorClass, number]>) errors[c] = (errors[c] ?? 0) + n;
    const stored = (r.histograms as WithStoredHistograms)[STORED_HISTOGRAM]?.('ttft_ms');
    if (stored) ttft.addEncoded(stored);
    else ttft.add(r.histograms.ttft_ms);
  }
  const [ttft_p50, ttft_p95] = ttft.quantiles([0.5, 0.95]);
  return {
    region,
    target: rows[0].target,
    prompt_variant: rows[0].prompt_variant,
    start: new Date(start).toISOString(),
    probes,
    failures: probes - successes,
    errors,
    ttft_p50,
    ttft_p95,
  };
}

const byKeys = (a: Pick<TimelinePoint, TimelineKey>, b: Pick<TimelinePoint, TimelineKey>) =>
  a.region.localeCompare(b.region) || a.target.localeCompare(b.target) || a.prompt_variant.localeCompare(b.prompt_variant);

/**
 * One point per period and region × target × variant of `rows` (rows of one method version), or with `pooled` per
 * target × variant, its regions merged (region '*'); at daily resolution a day's hourly rows are merged into it.
 * In the order of start, region, target, variant.
 */
export function timelinePoints(rows: Iterable<Rollup>, resolution: TimelineResolution, pooled: boolean): TimelinePoint[] {
  const groups = new Map<string, { start: number; region: string; rows: Rollup[] }>();
  for (const r of rows) {
    const start = resolution === 'hour' ? hourOf(r.hour) : dayOf(r.hour);
    const region = pooled ? POOLED_REGION : r.region;
    const id = `${start}\u0000${region}\u0000${r.target}\u0000${r.prompt_variant}`;
    const g = groups.get(id);
    if (g) g.rows.push(r);
    else groups.set(id, { start, region, rows: [r] });
  }
  return [...groups.values()]
    .map((g) => ({ at: g.start, point: pointOf(g.rows, g.region, g.start) }))
    .sort((a, b) => a.at - b.at || byKeys(a.point, b.point))
    .map((p) => p.point);
}

/** The points as series: one a region × target × variant, in key order, its points oldest first. */
export function timelineSeries(points: readonly TimelinePoint[]): TimelineSeries[] {
  const series = new Map<string, TimelineSeries>();
  for (const { region, target, prompt_variant, ...period } of points) {
    const id = `${region}\u0000${target}\u0000${prompt_variant}`;
    const s = series.get(id);
    if (s) s.points.push(period);
    else series.set(id, { region, target, prompt_variant, points: [period] });
  }
  return [...series.values()].sort(byKeys);
}

/** Every point of these series, in the order timelinePoints gives them (start, region, target, variant). */
export function pointsOfSeries(series: readonly TimelineSeries[]): TimelinePoint[] {
  return series
    .flatMap(({ points, ...key }) => points.map((p) => ({ ...key, ...p })))
    .sort((a, b) => a.start.localeCompare(b.start) || byKeys(a, b));
}

/** The answer of GET /api/v1/timeline over `rows`, the rollups covering `span`: the live route's and the views'. */
export function timelineDoc(rows: Iterable<Rollup>, span: TimelineSpan, pooled: boolean, methodVersion: number): TimelineDoc {
  return {
    window: { from: new Date(span.from).toISOString(), to: new Date(span.to).toISOString() },
    resolution: span.resolution,
    pooled,
    method_version: methodVersion,
    method: `per ${span.resolution} (a UTC day: its daily rollup, or its ended hours merged) and ${pooled ? 'target × prompt variant, its regions merged (region *)' : 'region × target × prompt variant'}: probes, failures (probes that did not succeed) by error class, and TTFT p50/p95 read from the merged base-2 exponential histograms (scale ${HISTOGRAM_SCALE}), each within ${(HISTOGRAM_RELATIVE_ERROR * 100).toFixed(2)} % of the exact value`,
    relative_error: HISTOGRAM_RELATIVE_ERROR,
    series: timelineSeries(timelinePoints(rows, span.resolution, pooled)),
  };
}
