/**
 * The projection at scale (`npm run capacity -- --project 30x100 --every 1`): it counts with the cost
 * model's measured per-sample constants (unit-costs.ts, held to D1's counters in tests/workers/rollups.test.ts)
 * and the bytes a row measured in tests/workers/row-bytes.test.ts, and names the limit that breaks first.
 */
import { describe, expect, it } from 'vitest';
import { config } from '../../../observatory.config.ts';
import { capacity, FREE_GOAL_ROLLUP_DAYS, freePlanGoal } from '../../../shared/config/capacity.ts';
import { D1_ROWS_WRITTEN_PER_SAMPLE } from '../../../shared/config/unit-costs.ts';
import {
  D1_BYTES_PER_DAILY_ROLLUP,
  D1_BYTES_PER_HOURLY_ROLLUP,
  D1_BYTES_PER_QUIET_HOURLY_ROLLUP,
  D1_BYTES_PER_SAMPLE,
  D1_FREE_DATABASE_BYTES,
  D1_MAX_DATABASE_BYTES,
  KEEP_D1_SHARE,
  KEEP_RAW_DAYS,
  SIZED_SAMPLE_TOKENS,
  keepRunning,
  planStorage,
  project,
  scaledConfig,
} from '../../../shared/config/projection.ts';

describe('the projection at scale', () => {
  it('counts with the cost model per sample and the measured bytes a row', () => {
    // 6 regions × 10 targets every 5 minutes: no spreading, so every figure is the cost model's.
    const small = scaledConfig(config, 6, 10, 5);
    const c = capacity(small);
    const p = project(small);
    expect(p.spread).toBe(1);
    expect(p.samplesPerDay).toBe(6 * 10 * 288);
    expect(p.perDay.d1RowsWritten).toBe(c.d1RowsWrittenPerDay);
    expect(p.perDay.doRowsWritten).toBe(c.doRowsWrittenPerDay);
    expect(p.perDay.doGbSeconds).toBe(c.doGbSecondsPerDay);
    // A day of D1: its samples and the pairs' 24 hourly and one daily rollup rows and their spans of days (31/64 of a
    // row a day, at a daily row's bytes), at the measured bytes (a quiet hour's: 12 probes), and the spans of hours of
    // the recent 2 days (21 a day: a span of h hours at h hourly rows' bytes, at most a daily row's).
    expect(p.d1BytesOnDay(1)).toBe(
      6 * 10 * 288 * D1_BYTES_PER_SAMPLE +
        60 * (24 * D1_BYTES_PER_QUIET_HOURLY_ROLLUP + (1 + 31 / 64) * D1_BYTES_PER_DAILY_ROLLUP) +
        60 * 2 * (12 * 2 + 6 * 4 + 3 * 8) * D1_BYTES_PER_QUIET_HOURLY_ROLLUP,
    );
    // Busier pairs' hours are counted at the busy hour's bytes.
    expect(project(scaledConfig(config, 6, 10, 1)).d1BytesOnDay(1)).toBe(
      6 * 10 * 1_440 * D1_BYTES_PER_SAMPLE +
        60 * (24 * D1_BYTES_PER_HOURLY_ROLLUP + (1 + 31 / 64) * D1_BYTES_PER_DAILY_ROLLUP) +
        60 * 2 * 21 * D1_BYTES_PER_DAILY_ROLLUP,
    );
    // The bytes were measured on the projection's own prompt variant (the chat preset's 64 tokens out).
    expect(small.promptVariants[0].maxTokens).toBe(SIZED_SAMPLE_TOKENS);
    // Spread over 3 ticks, probing's rows are a third; the rollups' rows are not spread.
    const big = project(scaledConfig(config, 30, 100, 1));
    const bc = capacity(scaledConfig(config, 30, 100, 1));
    expect(big.spread).toBe(3);
    expect(bc.d1RowsWrittenPerDay - big.perDay.d1RowsWritten).toBeCloseTo((bc.probesPerDay * D1_ROWS_WRITTEN_PER_SAMPLE * 2) / 3, 3);
    expect(big.perDay.doRowsWritten).toBe(bc.doRowsWrittenPerDay / 3);
  });

  it('at 30 regions × 100 targets every minute, D1 storage breaks first, on its eighth day', () => {
    const asked = scaledConfig(config, 30, 100, 1);
    const p = project(asked);
    expect(p.samplesAskedPerDay).toBe(30 * 100 * 1_440);
    // 100 probes a region at 3 at once and 4 s each take 133 s, of the 48 s a 1-minute tick allows: spread over 3 ticks.
    expect(p.spread).toBe(3);
    expect(p.samplesPerDay).toBe(1_440_000);
    // 1.44 M samples a day at D1_BYTES_PER_SAMPLE each, plus 72,000 hourly and 3,000 daily rollup rows a day and the
    // spans of days, kept 14 and 400 days, beside the recent 3 days' spans of hours.
    const perDay = 1_440_000 * D1_BYTES_PER_SAMPLE + 3_000 * (24 * D1_BYTES_PER_HOURLY_ROLLUP + (1 + 31 / 64) * D1_BYTES_PER_DAILY_ROLLUP);
    // A busy hour's row is already as large as a daily row: a span of hours is counted at a daily row's bytes.
    const recent = 3_000 * 2 * 21 * D1_BYTES_PER_DAILY_ROLLUP;
    const day = Math.floor((D1_MAX_DATABASE_BYTES - recent) / perDay) + 1;
    expect(p.firstBreak?.name).toContain('D1 storage');
    expect(p.firstBreak?.breaksOnDay).toBe(day);
    // 1.44 M × 650 bytes (0.94 GB) and 3,000 pairs' rollups (0.37 GB) a day, beside 0.63 GB of spans of hours: past
    // 10 GB on day 8.
    expect(day).toBe(8);
    // The paid plan's inclusions are passed from the first day, and billed: Durable Object duration most (a probe keeps its object awake).
    const billed = p.limits.filter((l) => !l.hard && l.breaksOnDay === 0).map((l) => l.name.split(' (')[0]);
    expect(billed).toEqual([
      'tick length',
      'D1 rows written',
      'Durable Object requests',
      'Durable Object duration',
      'Durable Object storage rows written',
    ]);
    const parts = Object.entries(p.dollarsPerMonth.parts).sort((a, b) => b[1] - a[1]);
    expect(parts[0][0]).toBe('DO duration');
    // D1's one writer is far from busy: about 17 sample INSERTs a second and the rollups' rows.
    expect(p.d1WriteQueriesPerSecond).toBeLessThan(100);
  });

  it('keeps running with 2 days of raw samples in D1, archives in R2 and shorter rollups in D1', () => {
    const keep = keepRunning(scaledConfig(config, 30, 100, 1));
    expect(keep.retentionDays).toBe(KEEP_RAW_DAYS);
    const p = project(keep);
    expect(p.firstBreak).toBeNull();
    expect(p.d1BytesSteady).toBeLessThanOrEqual(D1_MAX_DATABASE_BYTES * KEEP_D1_SHARE);
    // The archive's PUTs are the capacity model's (measured per region and table: the file's and the manifest's), and
    // the public views' (each view a PUT each build, and the manifest).
    const c = capacity({ ...keep, plan: 'paid' });
    expect(p.perDay.r2ClassA).toBe(c.archive.r2ClassAPerDay + c.views.r2ClassAPerDay);
    // Per region and day, the samples' and rollups' files (no concurrency runs at this scale), each with the manifest.
    expect(c.archive.r2ClassAPerDay).toBe(30 * 2 * 2);
  });

  it('checks D1 storage against the plan: the default configuration and the free-plan goal fit in a free 500 MB database', () => {
    const own = planStorage(config);
    expect(own.limit).toBe(D1_FREE_DATABASE_BYTES);
    expect(own.fullOnDay).toBeNull();
    expect(own.steady).toBeLessThan(D1_FREE_DATABASE_BYTES);
    const goal = freePlanGoal(config);
    expect(goal.rollupRetentionDays).toBe(FREE_GOAL_ROLLUP_DAYS);
    const fits = planStorage(goal);
    expect(fits.fullOnDay).toBeNull();
    // 60 pairs' quiet hours (12 probes each) at the measured bytes, a daily row and its spans each, and 14 days of
    // 17,280 samples a day.
    expect(fits.rollupBytesPerDay).toBe(60 * (24 * D1_BYTES_PER_QUIET_HOURLY_ROLLUP + (1 + 31 / 64) * D1_BYTES_PER_DAILY_ROLLUP));
    expect(fits.rawBytes).toBe(17_280 * 14 * D1_BYTES_PER_SAMPLE);
    // Kept 400 days, the goal's rollups would fill it: the check names the day, and how many days fit.
    const longer = planStorage({ ...goal, rollupRetentionDays: 400 });
    expect(longer.fullOnDay).toBe(fits.rollupDaysThatFit + 1);
    expect(longer.rollupDaysThatFit).toBeGreaterThanOrEqual(FREE_GOAL_ROLLUP_DAYS);
    // On the paid plan the same configuration has 10 GB.
    expect(planStorage({ ...goal, plan: 'paid', rollupRetentionDays: 400 }).fullOnDay).toBeNull();
  });
});
