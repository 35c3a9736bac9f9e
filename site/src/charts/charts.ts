/** The site's charts: each a plain function of its data, returning inline SVG. */
import * as Plot from '@observablehq/plot';
import { colorScale, ordered, PART_COLORS, partScale, renderPlot, WIDTH, type Part, type SeriesColors } from './render.ts';
import { DAY_MS } from '../../../shared/time.ts';
import { UPTIME_STATES, uptimeColorOf, type UptimeState } from '../../../shared/status/uptime.ts';
import { STATE_COLORS } from '../../../shared/status/levels.ts';

const MS = 'ms';

/** One row of a split chart: a series' median network and server time, and the residual where the server reports its own time to first token. */
export interface SplitRow {
  series: string;
  network_ms: number | null;
  server_ms: number | null;
  residual_ms?: number | null;
}

/**
 * The split's stacked parts of one row: network, then the server's time. When the residual is known
 * and lies inside the server's time, the server's part is drawn as what its own report covers plus
 * the residual (gateways, proxies, buffering); a negative residual cannot be stacked and stays in the table.
 */
export function splitParts(r: SplitRow): Array<{ part: Part; x1: number; x2: number }> {
  if (r.network_ms === null || r.server_ms === null) return [];
  const n = r.network_ms;
  const residual = r.residual_ms ?? null;
  if (residual !== null && residual > 0 && residual < r.server_ms) {
    return [
      { part: 'network', x1: 0, x2: n },
      { part: 'server', x1: n, x2: n + r.server_ms - residual },
      { part: 'residual', x1: n + r.server_ms - residual, x2: n + r.server_ms },
    ];
  }
  return [
    { part: 'network', x1: 0, x2: n },
    { part: 'server', x1: n, x2: n + r.server_ms },
  ];
}

/** TTFT split into network and server time per series (stacked horizontal bars), series in the given order. */
export function ttftSplitChart(rows: SplitRow[], order: string[]): string {
  const parts = rows.flatMap((r) => splitParts(r).map((p) => ({ series: r.series, ...p })));
  const used = [...new Set(parts.map((p) => p.part))];
  const domain = order.filter((o) => rows.some((r) => r.series === o));
  return renderPlot(
    (w) => ({
      height: 60 + 36 * domain.length,
      marginLeft: 60,
      x: { label: `median time to first token (${MS}) →`, grid: true, ticks: w < WIDTH ? 4 : 8 },
      y: { label: null, domain },
      color: partScale(used),
      marks: [Plot.barX(parts, { y: 'series', x1: 'x1', x2: 'x2', fill: 'part' }), Plot.ruleX([0])],
    }),
    'Median TTFT per series split into network and server time',
  );
}

/** Points an ECDF line keeps per series: enough for the eye, light however many samples there are. */
export const ECDF_POINTS = 200;

/** Empirical cumulative distribution of TTFT per series. */
export function ttftEcdfChart(values: Array<{ series: string; ttft_ms: number }>, colors?: SeriesColors): string {
  const series = ordered(
    values.map((v) => v.series),
    colors,
  );
  const points = series.flatMap((name) => {
    const sorted = values
      .filter((v) => v.series === name)
      .map((v) => v.ttft_ms)
      .sort((a, b) => a - b);
    const step = Math.max(1, Math.ceil(sorted.length / ECDF_POINTS));
    const kept = sorted.flatMap((ttft_ms, i) =>
      i % step === step - 1 || i === sorted.length - 1 ? [{ series: name, ttft_ms, share: (i + 1) / sorted.length }] : [],
    );
    return [{ series: name, ttft_ms: sorted[0], share: 0 }, ...kept];
  });
  return renderPlot(
    (w) => ({
      height: 260,
      x: { label: `time to first token (${MS}) →`, grid: true, ticks: w < WIDTH ? 4 : 8 },
      y: { label: '↑ share of samples', domain: [0, 1], tickFormat: '%', grid: true },
      color: colorScale(series, colors),
      marks: [Plot.line(points, { x: 'ttft_ms', y: 'share', stroke: 'series', curve: 'step-after', strokeWidth: 2 })],
    }),
    'Cumulative distribution of time to first token',
  );
}

/** Periods a p95 needs before it is drawn: below this it is a maximum in disguise. */
export const P95_MIN_N = 10;

/**
 * p50 (solid, dotted at each period) and p95 (dashed, where a period had P95_MIN_N samples) TTFT over
 * time per series; a line joins only consecutive periods, so a gap stays a gap.
 */
export function ttftOverTimeChart(
  points: Array<{ series: string; t: number; n: number; p50: number; p95: number }>,
  periodMs: number,
  colors?: SeriesColors,
  window?: { from: number; to: number },
): string {
  const series = ordered(
    points.map((p) => p.series),
    colors,
  );
  const data = points.map((p) => ({ ...p, date: new Date(p.t), run: `${p.series}|${runOf(points, p, periodMs)}` }));
  const tails = data.filter((p) => p.n >= P95_MIN_N);
  return renderPlot(
    (w) => ({
      height: 260,
      x: timeAxis(w, window),
      y: { label: `↑ TTFT (${MS})`, grid: true, zero: true },
      color: colorScale(series, colors),
      marks: [
        Plot.line(data, { x: 'date', y: 'p50', stroke: 'series', z: 'run', strokeWidth: 2 }),
        Plot.dot(data, { x: 'date', y: 'p50', fill: 'series', r: 2.5 }),
        Plot.line(tails, { x: 'date', y: 'p95', stroke: 'series', z: 'run', strokeDasharray: '4,3', strokeOpacity: 0.8 }),
      ],
    }),
    'Median (solid) and 95th percentile (dashed) time to first token over time',
  );
}

/** A UTC time axis in hours and minutes over the whole window (so one busy hour is a bar in its place, not the whole chart). */
function timeAxis(width: number, window?: { from: number; to: number }): Plot.ScaleOptions {
  const multiDay = window !== undefined && window.to - window.from > 2 * DAY_MS;
  return {
    label: 'time (UTC) →',
    type: 'utc',
    ticks: width < WIDTH ? 4 : 8,
    tickFormat: multiDay ? '%b %-d' : '%H:%M',
    ...(window ? { domain: [new Date(window.from), new Date(window.to)] } : {}),
  };
}

/** The start of the unbroken run of periods a point belongs to (its series' periods without a gap). */
export function runOf(points: Array<{ series: string; t: number }>, p: { series: string; t: number }, periodMs: number): number {
  const times = new Set(points.filter((q) => q.series === p.series).map((q) => q.t));
  let t = p.t;
  while (times.has(t - periodMs)) t -= periodMs;
  return t;
}

/** A histogram of one quantity. */
export function histogramChart(values: number[], label: string, unit: string): string {
  return renderPlot(
    (w) => ({
      height: 220,
      x: { label: `${label} (${unit}) →`, ticks: w < WIDTH ? 4 : 8 },
      y: { label: '↑ count', grid: true },
      marks: [
        Plot.rectY(values, {
          ...Plot.binX({ y: 'count' }, { x: (d: number) => d, thresholds: w < WIDTH ? 20 : 30 }),
          fill: PART_COLORS.server,
        }),
        Plot.ruleY([0]),
      ],
    }),
    `Histogram of ${label}`,
  );
}

/**
 * Server time against prompt size (log scale): each sample a dot, each series' fitted prefill line
 * (server time = overhead + rate × prompt tokens, a curve on the log axis) drawn over the sizes it ran.
 */
export function prefillChart(
  points: Array<{ series: string; prompt_tokens: number; server_ms: number }>,
  fits: Array<{ series: string; slope: number; intercept: number; from: number; to: number }>,
  colors?: SeriesColors,
): string {
  const series = ordered([...points.map((p) => p.series), ...fits.map((f) => f.series)], colors);
  const curve = fits.flatMap((f) =>
    Array.from({ length: 41 }, (_, i) => {
      const x = f.from * (f.to / f.from) ** (i / 40);
      return { series: f.series, x, y: f.intercept + f.slope * x };
    }),
  );
  const xs = points.map((p) => p.prompt_tokens);
  return renderPlot(
    (w) => ({
      height: 260,
      x: {
        label: 'prompt tokens (log scale) →',
        type: 'log',
        grid: true,
        ticks: logTicks(Math.min(...xs), Math.max(...xs), w < WIDTH ? 4 : 7) as never,
      },
      y: { label: `↑ server time (${MS})`, grid: true, zero: true },
      color: colorScale(series, colors),
      marks: [
        Plot.dot(points, { x: 'prompt_tokens', y: 'server_ms', stroke: 'series', r: 2.5, strokeOpacity: 0.5 }),
        Plot.line(curve, { x: 'x', y: 'y', stroke: 'series', strokeWidth: 2 }),
      ],
    }),
    "Server time against prompt size, with each series' fitted prefill line",
  );
}

/** One point of a concurrency chart: a series (region or target) at one level. */
export interface LevelPoint {
  series: string;
  level: number;
  ttft_p50: number | null;
  ttft_p95: number | null;
  decode_tps_p50: number | null;
  decode_tps_min: number | null;
}

/** The levels on a log-2 axis, each a tick. */
function levelAxis(levels: number[]): Plot.ScaleOptions {
  return {
    label: 'simultaneous streams →',
    type: 'log',
    base: 2,
    ticks: levels as never,
    tickFormat: (d: number) => String(d),
    grid: true,
  };
}

/**
 * One figure by concurrency level, per series: a main line with dots (`main`) and a second, thinner one
 * (`second`, dashed or dotted), on a log-2 axis of the levels.
 */
function levelChart(
  points: LevelPoint[],
  main: keyof LevelPoint,
  second: keyof LevelPoint,
  dash: string,
  yLabel: string,
  label: string,
  colors?: SeriesColors,
): string {
  const series = ordered(
    points.map((p) => p.series),
    colors,
  );
  const levels = [...new Set(points.map((p) => p.level))].sort((a, b) => a - b);
  const first = points.filter((p) => p[main] !== null);
  const other = points.filter((p) => p[second] !== null);
  return renderPlot(
    () => ({
      height: 240,
      x: levelAxis(levels),
      y: { label: yLabel, grid: true, zero: true },
      color: colorScale(series, colors),
      marks: [
        Plot.line(first, { x: 'level', y: main, stroke: 'series', strokeWidth: 2 }),
        Plot.dot(first, { x: 'level', y: main, fill: 'series', r: 3 }),
        Plot.line(other, { x: 'level', y: second, stroke: 'series', strokeDasharray: dash, strokeOpacity: 0.85 }),
      ],
    }),
    label,
  );
}

/** TTFT p50 (solid, dots) and p95 (dashed) by concurrency level, per series. */
export function concurrencyTtftChart(points: LevelPoint[], colors?: SeriesColors): string {
  return levelChart(
    points,
    'ttft_p50',
    'ttft_p95',
    '4,3',
    `↑ TTFT (${MS})`,
    'Median (solid) and 95th percentile (dashed) time to first token by number of simultaneous streams',
    colors,
  );
}

/** Decode speed each stream saw by concurrency level: the median (solid) and the slowest stream (dotted). */
export function concurrencyDecodeChart(points: LevelPoint[], colors?: SeriesColors): string {
  return levelChart(
    points,
    'decode_tps_p50',
    'decode_tps_min',
    '1,3',
    '↑ decode speed per stream (tokens/s)',
    'Decode speed per stream by number of simultaneous streams: median (solid) and slowest stream (dotted)',
    colors,
  );
}

/** Failed samples per error class over time (stacked bars). */
export function errorsOverTimeChart(
  rows: Array<{ t: number; error: string; count: number }>,
  bucketMs: number,
  window?: { from: number; to: number },
): string {
  const classes = [...new Set(rows.map((r) => r.error))].sort();
  const data = rows.map((r) => ({ ...r, start: new Date(r.t), end: new Date(r.t + bucketMs) }));
  return renderPlot(
    (w) => ({
      height: 220,
      x: timeAxis(w, window),
      y: { label: '↑ failed samples', grid: true },
      color: colorScale(classes),
      marks: [Plot.rectY(data, { x1: 'start', x2: 'end', y: 'count', fill: 'error', inset: 1 }), Plot.ruleY([0])],
    }),
    'Failed samples by error class over time',
  );
}

/** Tick values for a log axis over [lo, hi]: 1, 2 and 5 times powers of ten, thinned to at most `max`. */
export function logTicks(lo: number, hi: number, max: number): number[] {
  const all: number[] = [];
  for (let p = Math.floor(Math.log10(Math.max(lo, 1e-9))); 10 ** p <= hi; p++)
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** p;
      if (v >= lo && v <= hi) all.push(v);
    }
  if (all.length <= max) return all;
  const decades = all.filter((v) => Math.log10(v) % 1 === 0);
  return decades.length >= 2 ? decades : [all[0], all.at(-1)!];
}

/** Expected total time against output length per target, log-scaled, with the lengths where the winner flips. */
export function expectedTotalChart(
  lines: Array<{ target: string; tokens: number; total_ms: number }>,
  flips: Array<{ tokens: number; label: string }>,
  colors?: SeriesColors,
): string {
  const targets = ordered(
    lines.map((l) => l.target),
    colors,
  );
  const xs = lines.map((l) => l.tokens);
  const ys = lines.map((l) => l.total_ms);
  return renderPlot(
    (w) => ({
      height: 280,
      marginRight: 20,
      x: {
        label: 'answer tokens →',
        type: 'log',
        grid: true,
        ticks: logTicks(Math.min(...xs), Math.max(...xs), w < WIDTH ? 4 : 7) as never,
      },
      y: {
        label: `↑ expected total (${MS})`,
        type: 'log',
        grid: true,
        ticks: logTicks(Math.min(...ys), Math.max(...ys), w < WIDTH ? 4 : 6) as never,
      },
      color: colorScale(targets, colors),
      marks: [
        Plot.line(lines, { x: 'tokens', y: 'total_ms', stroke: 'target', strokeWidth: 2 }),
        Plot.ruleX(flips, { x: 'tokens', strokeDasharray: '3,3', strokeOpacity: 0.6 }),
        Plot.text(flips, { x: 'tokens', frameAnchor: 'top', text: 'label', dy: -4, lineAnchor: 'bottom' }),
      ],
    }),
    'Expected total time by answer length for each target',
  );
}

export interface OverviewBar {
  /** Row label: region · target. */
  row: string;
  /** The target's colour (identity.ts), on a dot before the label. */
  color: string;
  network_ms: number | null;
  server_ms: number | null;
  ttft_ms: number;
  ttfa_ms: number | null;
}

/** Height of one overview row: its label above, its bar below. */
const OVERVIEW_ROW = 34;

/**
 * The overview's answer: per region × target (rows in the order given: by region, fastest first), the
 * median network and server time stacked, TTFT's median as a tick, and the median first *answer* token
 * as a ring where it comes later (a model that reasons first). Rows without a split show TTFT alone.
 * Each row's label sits above its bar, so the bars keep the chart's whole width on a phone.
 */
export function overviewSplitChart(rows: OverviewBar[]): string {
  const parts = rows.flatMap((r) => {
    const split = splitParts({ series: r.row, network_ms: r.network_ms, server_ms: r.server_ms });
    return split.length ? split.map((p) => ({ row: r.row, ...p })) : [{ row: r.row, part: 'no split' as Part, x1: 0, x2: r.ttft_ms }];
  });
  const used = (['network', 'server', 'no split'] as Part[]).filter((p) => parts.some((x) => x.part === p));
  const later = rows.filter((r) => r.ttfa_ms !== null && r.ttfa_ms > r.ttft_ms * 1.05);
  return renderPlot(
    (w) => ({
      height: 60 + OVERVIEW_ROW * rows.length,
      marginLeft: 8,
      marginRight: 48,
      x: { label: `median time (${MS}) →`, grid: true, ticks: w < WIDTH ? 4 : 8 },
      y: { axis: null, domain: rows.map((r) => r.row), paddingInner: 0, paddingOuter: 0 },
      color: partScale(used),
      marks: [
        Plot.barX(parts, { y: 'row', x1: 'x1', x2: 'x2', fill: 'part', insetTop: OVERVIEW_ROW / 2, insetBottom: 3 }),
        Plot.tickX(rows, {
          y: 'row',
          x: 'ttft_ms',
          stroke: 'currentColor',
          strokeWidth: 2,
          insetTop: OVERVIEW_ROW / 2 - 2,
          insetBottom: 1,
        }),
        Plot.dot(later, { y: 'row', x: 'ttfa_ms', dy: OVERVIEW_ROW / 4, stroke: 'currentColor', fill: 'none', r: 4 }),
        Plot.text(later, { y: 'row', x: 'ttfa_ms', dy: OVERVIEW_ROW / 4, dx: 7, text: () => 'answer', textAnchor: 'start', fontSize: 10 }),
        Plot.dot(rows, { y: 'row', frameAnchor: 'left', dx: 5, dy: -OVERVIEW_ROW / 4 + 1, fill: 'color', r: 4 }),
        Plot.text(rows, { y: 'row', text: 'row', frameAnchor: 'left', textAnchor: 'start', dx: 13, dy: -OVERVIEW_ROW / 4 + 1 }),
        Plot.ruleX([0]),
      ],
    }),
    'Median time to first token per region and target, split into network and server time, with the first answer token where it comes later',
  );
}

/**
 * An incident's probes: TTFT of each affected region's probe over time (UTC), failed probes as ×
 * along the top, the baseline p99 (dashed) and the rule's threshold (dotted) where they existed.
 */
export function incidentChart(
  points: Array<{ t: number; region: string; ttft_ms: number | null; error: boolean; baseline: number | null; threshold: number | null }>,
  colors?: SeriesColors,
): string {
  const regions = ordered(
    points.map((p) => p.region),
    colors,
  );
  const ok = points.filter((p) => !p.error && p.ttft_ms !== null).map((p) => ({ ...p, date: new Date(p.t) }));
  const top = Math.max(1, ...ok.map((p) => p.ttft_ms!), ...points.map((p) => p.threshold ?? 0)) * 1.1;
  const failed = points.filter((p) => p.error).map((p) => ({ ...p, date: new Date(p.t), y: top }));
  const lines = (key: 'baseline' | 'threshold') =>
    points.filter((p) => p[key] !== null).map((p) => ({ date: new Date(p.t), region: p.region, v: p[key]! }));
  return renderPlot(
    (w) => ({
      height: 240,
      x: { label: 'time (UTC) →', type: 'utc', tickFormat: '%H:%M', ticks: w < WIDTH ? 4 : 8 },
      y: { label: `↑ TTFT (${MS})`, grid: true, zero: true, domain: [0, top] },
      color: colorScale(regions, colors),
      symbol: { legend: false },
      marks: [
        Plot.line(lines('baseline'), { x: 'date', y: 'v', stroke: 'region', strokeDasharray: '6,3', strokeOpacity: 0.7 }),
        Plot.line(lines('threshold'), { x: 'date', y: 'v', stroke: 'region', strokeDasharray: '1,3', strokeOpacity: 0.9 }),
        Plot.dot(ok, { x: 'date', y: 'ttft_ms', stroke: 'region', fill: 'region', r: 3 }),
        Plot.dot(failed, { x: 'date', y: 'y', stroke: 'region', symbol: 'times', r: 5, strokeWidth: 2 }),
      ],
    }),
    'TTFT of the affected regions during the incident against their baseline, failed probes marked ×',
  );
}

/** One cell of a time profile: its weekday (0 Monday) and UTC hour, and its median TTFT (null: too little data). */
export interface ProfileCellRow {
  region: string;
  weekday: number;
  hour: number;
  ttft_p50: number | null;
  probes: number;
}

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** Median TTFT by UTC hour of day × day of week, one panel per region (Plot's cell mark); cells with too little data left blank. */
export function timeProfileChart(cells: ProfileCellRow[], regions: string[]): string {
  const shown = cells.filter((c) => c.ttft_p50 !== null).map((c) => ({ ...c, day: WEEKDAYS[c.weekday] }));
  return renderPlot(
    (w) => ({
      height: 60 + regions.length * 150,
      marginLeft: 40,
      x: {
        label: 'UTC hour →',
        domain: Array.from({ length: 24 }, (_, h) => h),
        tickFormat: (h: number) => (w < WIDTH && h % 6 ? '' : String(h)),
      },
      y: { label: null, domain: WEEKDAYS },
      fy: { label: null, domain: regions },
      // No colour legend: its ramp needs a canvas, which the build (linkedom) has not; the caption says darker is slower.
      color: { type: 'linear', scheme: 'blues', label: 'TTFT p50 (ms)' },
      marks: [
        Plot.cell(shown, {
          x: 'hour',
          y: 'day',
          fy: 'region',
          fill: 'ttft_p50',
          inset: 0.5,
          title: (d: { day: string; hour: number; ttft_p50: number; probes: number }) =>
            `${d.day} ${d.hour}:00 UTC: ${Math.round(d.ttft_p50)} ms (${d.probes} probes)`,
        }),
      ],
    }),
    'Median TTFT by hour of day and day of week',
  );
}

/** One target's month: the share of its ticks due in each state, for the uptime page. */
export interface UptimeBar {
  target: string;
  state: UptimeState;
  share: number;
}

/** Each uptime state in its status colour (the light scheme's: the chart is drawn once, for both). */
const UPTIME_COLORS = Object.fromEntries(UPTIME_STATES.map((s) => [s, STATE_COLORS[uptimeColorOf(s)].light])) as Record<
  UptimeState,
  string
>;

/** Stacked bars: per target, what share of its ticks due was operational, degraded, down, in maintenance or unknown. */
export function uptimeChart(bars: UptimeBar[], order: string[]): string {
  return renderPlot(
    () => ({
      height: 40 + order.length * 34,
      marginLeft: 170,
      x: { label: 'share of the ticks due →', domain: [0, 1], percent: true },
      y: { label: null, domain: order },
      color: { domain: Object.keys(UPTIME_COLORS), range: Object.values(UPTIME_COLORS) },
      marks: [
        Plot.barX(bars, {
          x: 'share',
          y: 'target',
          fill: 'state',
          order: Object.keys(UPTIME_COLORS),
          title: (d: UptimeBar) => `${d.target}: ${d.state} ${(d.share * 100).toFixed(2)} %`,
        }),
        Plot.ruleX([0]),
      ],
    }),
    'Uptime: the share of each target’s ticks in each state',
  );
}
