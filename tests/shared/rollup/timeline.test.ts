/**
 * The timeline from rollups (shared/rollup/timeline.ts): per period and region × target × variant (or pooled over
 * regions), the probes, failures by class and TTFT p50/p95, checked against the samples themselves; a day's hours
 * merged into their day; rows as D1 returns them (stored histogram bytes) giving the same points; the answer
 * written as view text.
 */
import { describe, expect, it } from 'vitest';
import { mergeByGroup, rollUp, type Rollup, type RollupSample } from '../../../shared/rollup/rollup.ts';
import {
  pointsOfSeries,
  POOLED_REGION,
  spanRows,
  TIMELINE_KEYS,
  timelineDoc,
  timelinePoints,
  timelineResolution,
} from '../../../shared/rollup/timeline.ts';
import { HISTOGRAM_RELATIVE_ERROR } from '../../../shared/stats/exp-histogram.ts';
import { percentile } from '../../../shared/stats/percentile.ts';
import { DAY_MS, HOUR_MS } from '../../../shared/time.ts';
import { filterViewText, viewText } from '../../../shared/views/view-text.ts';
import { bodyValues, fromRollupRow } from '../../../workers/observatory/db/rollup-row.ts';
import { ROLLUP_METRICS } from '../../../shared/rollup/rollup.ts';

const DAY0 = Date.UTC(2026, 2, 10);
const REGIONS = ['apac', 'weur'];
const TARGETS = ['a', 'b', 'c'];
const VARIANTS = ['chat', 'long'];
const ERRORS = ['http', 'timeout_first_token', 'no_answer'] as const;

// A fixed pseudo-random sequence, so the samples are the same each run.
let seed = 7;
const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;

/** Four ticks an hour over `hours` hours from `from`, every pair; a sample in six fails, with one of three classes. */
function samples(from: number, hours: number): RollupSample[] {
  const out: RollupSample[] = [];
  for (let h = 0; h < hours; h++)
    for (let k = 0; k < 4; k++)
      for (const region of REGIONS)
        for (const target of TARGETS)
          for (const prompt_variant of VARIANTS) {
            const failed = random() < 1 / 6;
            const ttft = 100 + 900 * random() + (target === 'c' ? 500 : 0);
            out.push({
              tick_id: from + h * HOUR_MS + k * 15 * 60_000,
              region,
              target,
              prompt_variant,
              method_version: 2,
              error: failed ? ERRORS[Math.floor(random() * ERRORS.length)] : null,
              split_source: null,
              ttft_ms: failed ? null : ttft,
              ttfa_ms: failed ? null : ttft,
              tpot_ms: failed ? null : 10,
              itl_p99_ms: failed ? null : 20,
              total_ms: failed ? null : ttft + 300,
              decode_tps: failed ? null : 100,
              network_ms: null,
              server_ms: null,
            } as RollupSample);
          }
  return out;
}

const all = samples(DAY0, 30);
const hourly = rollUp(all);

/** What the samples of one point say directly: probes, failures per class, the exact TTFT percentiles. */
function truth(of: RollupSample[]) {
  const errors: Record<string, number> = {};
  for (const s of of) if (s.error) errors[s.error] = (errors[s.error] ?? 0) + 1;
  const ttft = of.filter((s) => s.error === null).map((s) => s.ttft_ms!);
  return { probes: of.length, failures: of.filter((s) => s.error).length, errors, p50: percentile(ttft, 0.5), p95: percentile(ttft, 0.95) };
}

function expectPoint(point: ReturnType<typeof timelinePoints>[number], of: RollupSample[]) {
  const t = truth(of);
  expect(point.probes).toBe(t.probes);
  expect(point.failures).toBe(t.failures);
  expect(point.errors).toEqual(t.errors);
  // No success, no percentile.
  if (t.p50 === null) return expect([point.ttft_p50, point.ttft_p95]).toEqual([null, null]);
  expect(Math.abs(point.ttft_p50! - t.p50) / t.p50).toBeLessThanOrEqual(HISTOGRAM_RELATIVE_ERROR);
  expect(Math.abs(point.ttft_p95! - t.p95!) / t.p95!).toBeLessThanOrEqual(HISTOGRAM_RELATIVE_ERROR);
}

describe('the timeline', () => {
  it('gives a point per hour and region × target × variant, as the samples say, in the order of start and keys', () => {
    const points = timelinePoints(hourly, 'hour', false);
    expect(points).toHaveLength(30 * REGIONS.length * TARGETS.length * VARIANTS.length);
    for (const p of points) {
      const start = Date.parse(p.start);
      expectPoint(
        p,
        all.filter(
          (s) =>
            s.tick_id >= start &&
            s.tick_id < start + HOUR_MS &&
            s.region === p.region &&
            s.target === p.target &&
            s.prompt_variant === p.prompt_variant,
        ),
      );
      // The keys first, in their order: the views narrow lines by them.
      expect(Object.keys(p).slice(0, TIMELINE_KEYS.length)).toEqual([...TIMELINE_KEYS]);
    }
    const order = points.map((p) => `${p.start} ${p.region} ${p.target} ${p.prompt_variant}`);
    expect(order).toEqual([...order].sort());
  });

  it('pools the regions of a target × variant (region *), and merges a day of hours into the day', () => {
    const pooled = timelinePoints(hourly, 'day', true);
    // Day 0 whole, day 1's first 6 hours.
    expect(pooled).toHaveLength(2 * TARGETS.length * VARIANTS.length);
    for (const p of pooled) {
      expect(p.region).toBe(POOLED_REGION);
      const start = Date.parse(p.start);
      expect(start % DAY_MS).toBe(0);
      expectPoint(
        p,
        all.filter(
          (s) => s.tick_id >= start && s.tick_id < start + DAY_MS && s.target === p.target && s.prompt_variant === p.prompt_variant,
        ),
      );
    }
    // A day's daily row gives the points its hours give.
    const daily = [...new Set(hourly.map((r) => Math.floor(r.hour / DAY_MS) * DAY_MS))].flatMap((day) =>
      mergeByGroup(
        hourly.filter((r) => r.hour >= day && r.hour < day + DAY_MS),
        day,
      ),
    );
    expect(timelinePoints(daily, 'day', false)).toEqual(timelinePoints(hourly, 'day', false));
    expect(timelinePoints(daily, 'day', true)).toEqual(pooled);
  });

  it('gives the same points from rows as D1 returns them (histograms as their stored bytes)', () => {
    const stored = (r: Rollup) => {
      const [probes, successes, errors, ...rest] = bodyValues(r);
      const row: Record<string, unknown> = { ...r, probes, successes, errors, split: rest[ROLLUP_METRICS.length] };
      ROLLUP_METRICS.forEach((m, i) => {
        row[m] = rest[i];
      });
      return fromRollupRow(row);
    };
    for (const [resolution, pooled] of [
      ['hour', false],
      ['day', false],
      ['day', true],
    ] as const)
      expect(timelinePoints(hourly.map(stored), resolution, pooled)).toEqual(timelinePoints(hourly, resolution, pooled));
  });

  it('takes a window of days from daily rows and its last day from hours; hours for a day or less', () => {
    const daily = mergeByGroup(
      hourly.filter((r) => r.hour < DAY0 + DAY_MS),
      DAY0,
    );
    const day = { from: DAY0, to: DAY0 + 30 * HOUR_MS, resolution: timelineResolution(DAY0, DAY0 + 30 * HOUR_MS) };
    expect(day.resolution).toBe('day');
    const rows = spanRows(hourly, daily, day);
    expect(rows.filter((r) => r.hour < DAY0 + DAY_MS)).toEqual(daily);
    expect(rows.filter((r) => r.hour >= DAY0 + DAY_MS)).toEqual(hourly.filter((r) => r.hour >= DAY0 + DAY_MS));
    const hours = {
      from: DAY0 + 6 * HOUR_MS,
      to: DAY0 + 30 * HOUR_MS,
      resolution: timelineResolution(DAY0 + 6 * HOUR_MS, DAY0 + 30 * HOUR_MS),
    };
    expect(hours.resolution).toBe('hour');
    expect(spanRows(hourly, daily, hours)).toEqual(hourly.filter((r) => r.hour >= hours.from));
  });

  it('answers a series a line, each its periods oldest first; the series give back every point', () => {
    const span = { from: DAY0, to: DAY0 + 30 * HOUR_MS, resolution: 'hour' as const };
    const doc = timelineDoc(hourly, span, false, 2);
    expect(doc.window).toEqual({ from: new Date(DAY0).toISOString(), to: new Date(DAY0 + 30 * HOUR_MS).toISOString() });
    expect(doc.series).toHaveLength(REGIONS.length * TARGETS.length * VARIANTS.length);
    const keys = doc.series.map((s) => `${s.region} ${s.target} ${s.prompt_variant}`);
    expect(keys).toEqual([...keys].sort());
    for (const s of doc.series) {
      expect(Object.keys(s).slice(0, TIMELINE_KEYS.length)).toEqual([...TIMELINE_KEYS]);
      expect(s.points.map((p) => p.start)).toEqual(Array.from({ length: 30 }, (_, h) => new Date(DAY0 + h * HOUR_MS).toISOString()));
    }
    for (const pooled of [false, true])
      for (const resolution of ['hour', 'day'] as const) {
        const points = timelinePoints(hourly, resolution, pooled);
        expect(pointsOfSeries(timelineDoc(hourly, { ...span, resolution }, pooled, 2).series)).toEqual(points);
      }
    // Stored as the views store it, and narrowed by the keys its lines start with.
    const text = viewText(doc as unknown as Record<string, unknown>, { field: 'series', keys: TIMELINE_KEYS });
    expect(text.split('\n')).toHaveLength(doc.series.length + 2);
    expect(JSON.parse(text)).toEqual(doc);
    const narrowed = JSON.parse(filterViewText(text, 3, ([region, , variant]) => region === 'weur' && variant === 'long'));
    expect(narrowed.series).toEqual(doc.series.filter((s) => s.region === 'weur' && s.prompt_variant === 'long'));
  });
});
