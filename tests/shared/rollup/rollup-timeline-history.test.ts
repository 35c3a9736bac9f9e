/**
 * The history the site draws (each window's `history` and `target_history`) comes from the shared timeline function
 * (shared/rollup/timeline.ts), which GET /api/v1/timeline and its views call: it must give what the site derived
 * before the move, kept here verbatim as the reference, for every window and prompt variant.
 */
import { describe, expect, it } from 'vitest';
import { spanRows, timelinePoints } from '../../../shared/rollup/timeline.ts';
import { VIEW_WINDOWS, viewSpan } from '../../../shared/views/windows.ts';
import type { HistoryPoint } from '../../../site/src/data/types.ts';
import { mergeGroups } from '../../../shared/rollup/percentiles.ts';
import { dayOf, mergeByGroup, rollUp, type Rollup, type RollupSample } from '../../../shared/rollup/rollup.ts';
import { quantile } from '../../../shared/stats/exp-histogram.ts';
import { DAY_MS, HOUR_MS } from '../../../shared/time.ts';

const iso = (t: number) => new Date(t).toISOString();

/** collect.ts's historyOf before the move: one point per row, or per target and period with `byTarget` (region '*'). */
function historyBefore(rows: Rollup[], byTarget = false): HistoryPoint[] {
  const periods = new Map<number, Rollup[]>();
  for (const r of rows) periods.set(r.hour, [...(periods.get(r.hour) ?? []), r]);
  const points = byTarget
    ? [...periods.entries()].flatMap(([start, inPeriod]) =>
        mergeGroups(inPeriod, ['target']).map((r) => ({ ...r, hour: start, region: '*' })),
      )
    : rows;
  return points
    .map((r) => ({
      start: iso(r.hour),
      region: r.region,
      target: r.target,
      probes: r.probes,
      failures: r.probes - r.successes,
      errors: { ...r.errors },
      ttft_p50: quantile(r.histograms.ttft_ms, 0.5),
      ttft_p95: quantile(r.histograms.ttft_ms, 0.95),
    }))
    .sort((a, b) => a.start.localeCompare(b.start) || a.region.localeCompare(b.region) || a.target.localeCompare(b.target));
}

/** And its windows' rows: the 24 h view's hours; N whole days before today, then today's hours merged into one row. */
function windowsBefore(hourly: Rollup[], daily: Rollup[], now: number) {
  const today = dayOf(now);
  const todaySoFar = mergeByGroup(
    hourly.filter((r) => r.hour >= today),
    today,
  );
  return [1, 7, 30, 90].map((days) => {
    if (days === 1) return { history: historyBefore(hourly), target_history: historyBefore(hourly, true) };
    const rows = [...daily.filter((r) => r.hour >= today - days * DAY_MS), ...todaySoFar];
    return { history: historyBefore(rows), target_history: historyBefore(rows, true) };
  });
}

let seed = 11;
const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
const ERRORS = ['http', 'rate_limited', 'timeout_first_token', 'stall'] as const;

/** Three ticks an hour of 3 regions × 4 targets × 2 variants at these hours; some fail, weur's `d` always. */
function samplesAt(hours: number[]): RollupSample[] {
  return hours.flatMap((hour) =>
    ['apac', 'enam', 'weur'].flatMap((region) =>
      ['a', 'b', 'c', 'd'].flatMap((target) =>
        ['chat', 'long'].flatMap((prompt_variant) =>
          [0, 1, 2].map((k) => {
            const failed = (region === 'weur' && target === 'd') || random() < 0.1;
            const ttft = 80 + 1_500 * random() ** 2;
            return {
              tick_id: hour + k * 20 * 60_000,
              region,
              target,
              prompt_variant,
              method_version: 2,
              error: failed ? ERRORS[Math.floor(random() * ERRORS.length)] : null,
              split_source: null,
              ttft_ms: failed ? null : ttft,
              ttfa_ms: failed ? null : ttft,
              tpot_ms: failed ? null : 9,
              itl_p99_ms: failed ? null : 30,
              total_ms: failed ? null : ttft + 400,
              decode_tps: failed ? null : 110,
              network_ms: null,
              server_ms: null,
            } as RollupSample;
          }),
        ),
      ),
    ),
  );
}

describe("the site's history from the shared timeline", () => {
  it('is what collect.ts derived before, for every window and variant', () => {
    const now = Date.UTC(2026, 5, 30, 10, 25);
    const lastHour = Math.floor(now / HOUR_MS) * HOUR_MS;
    const today = dayOf(now);
    // The last 24 whole hours (today's ten among them), and whole days up to 89 days back, some missing.
    const hourly = rollUp(samplesAt(Array.from({ length: 24 }, (_, h) => lastHour - (24 - h) * HOUR_MS)));
    const daily = [1, 2, 3, 6, 7, 8, 29, 31, 60, 89].flatMap((d) =>
      mergeByGroup(rollUp(samplesAt(Array.from({ length: 24 }, (_, h) => today - d * DAY_MS + h * HOUR_MS))), today - d * DAY_MS),
    );
    for (const variant of ['chat', 'long']) {
      const mine = (rows: Rollup[]) => rows.filter((r) => r.prompt_variant === variant);
      const views = VIEW_WINDOWS.map((w) => {
        const span = viewSpan(w.id, now);
        const rows = spanRows(mine(hourly), mine(daily), span);
        const strip = (pooled: boolean): HistoryPoint[] =>
          timelinePoints(rows, span.resolution, pooled).map(({ prompt_variant: _, ...p }) => p);
        return { id: w.id, history: strip(false), target_history: strip(true) };
      });
      const before = windowsBefore(mine(hourly), mine(daily), now);
      expect(views.map((v) => v.id)).toEqual(['24h', '7d', '30d', '90d']);
      views.forEach((v, i) => {
        expect(v.history.length, `${variant} ${v.id}`).toBeGreaterThan(0);
        expect(v.history, `${variant} ${v.id} history`).toEqual(before[i].history);
        expect(v.target_history, `${variant} ${v.id} target_history`).toEqual(before[i].target_history);
      });
    }
  });
});
