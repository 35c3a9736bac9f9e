/**
 * Long windows read packed (db/packed-reads.ts packedRowsCovering: per piece of the window and region, the rows'
 * keys and columns as one hex string, the pieces span rollups of hours and days where they fit) give, in real
 * local D1, what merging the hourly and daily rows read one by one gives, for every figure and the split's parts
 * per source, and D1 counts each row read once.
 */
import { describe, expect, it } from 'vitest';
import { SELF } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { METHOD_VERSION } from '../../shared/constants.ts';
import { ROLLUP_METRICS, SPLIT_METRICS, rollUp, type RollupSample } from '../../shared/rollup/rollup.ts';
import {
  packedColumnsOf,
  packedPercentileGroupsByFigure,
  rollupPercentileGroups,
  type RollupFigure,
} from '../../shared/rollup/percentiles.ts';
import { rollupsCovering, upsertDailyRollups, upsertRollups } from '../../workers/observatory/db/rollups.ts';
import { packedRowsCovering } from '../../workers/observatory/db/packed-reads.ts';
import { writeSpanRollups } from './span-rollups.ts';
import { writeSpanMark } from '../../workers/observatory/db/span-rollups.ts';
import { coverOf } from '../../shared/rollup/spans.ts';
import { getConfig } from '../../workers/observatory/config.ts';
import { meterD1 } from '../../workers/observatory/db/meter.ts';
import { DAY_MS, HOUR_MS } from '../../shared/time.ts';

// The window ends yesterday at noon, so that its last hours are read from their spans (kept for the recent days alone).
const DAY0 = Math.floor(Date.now() / DAY_MS) * DAY_MS - 40 * DAY_MS;
const DAYS = 40;
const PAIRS = [
  ['weur', 'ref-chat', 'chat'],
  ['weur', 'ref-chat', 'code'],
  ['enam', 'ref-messages', 'chat'],
] as const;
const SOURCES = ['server-timing.total', 'server-timing.upstream'];
const FIGURES: RollupFigure[] = [...ROLLUP_METRICS, ...SPLIT_METRICS];

/** A day's samples of one pair: 24 a day, a few failed, two split sources. */
function samplesOf(day: number, [region, target, variant]: (typeof PAIRS)[number], seed: number): RollupSample[] {
  let x = seed;
  const u = () => (x = (x * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  return Array.from({ length: 24 }, (_, h) => {
    const failed = u() < 0.05;
    const ttft = 100 + 900 * u() ** 2;
    return {
      tick_id: day + h * HOUR_MS,
      region,
      target,
      prompt_variant: variant,
      method_version: METHOD_VERSION,
      error: failed ? 'http' : null,
      split_source: failed ? null : SOURCES[h % 2],
      ttft_ms: failed ? null : ttft,
      ttfa_ms: failed ? null : ttft + 10,
      tpot_ms: failed ? null : 5 + 10 * u(),
      itl_p99_ms: failed ? null : 20 + 200 * u(),
      total_ms: failed ? null : ttft + 1_000 * u(),
      decode_tps: failed ? null : 50 + 100 * u(),
      network_ms: failed ? null : 10 + 50 * u(),
      server_ms: failed ? null : ttft * u(),
    } as unknown as RollupSample;
  });
}

describe('packed reads of long windows', () => {
  it('merge to what the rows read one by one merge to, every figure, a value a period and region, each row read once', async () => {
    for (let d = 0; d < DAYS; d++) {
      const day = DAY0 + d * DAY_MS;
      const samples = PAIRS.flatMap((p, i) => samplesOf(day, p, 1 + d * 7 + i));
      // Daily rows for the whole days, hourly rows for the last day (the window's edge).
      if (d < DAYS - 1) await upsertDailyRollups(env.DB, rollUp(samples.map((s) => ({ ...s, tick_id: day }))));
      else await upsertRollups(env.DB, rollUp(samples));
    }
    // The span rollups of those days and hours, as the rollup duty writes them once their hours have ended.
    await writeSpanRollups(env.DB, [...new Set(PAIRS.map((p) => p[0]))], DAY0, DAY0 + DAYS * DAY_MS);
    const f = { fromHour: DAY0, toHour: DAY0 + (DAYS - 1) * DAY_MS + 12 * HOUR_MS, methodVersion: METHOD_VERSION };
    // As the reader covers it: each region's spans whole through today (writeSpanRollups marked them so).
    const pieces = coverOf(f.fromHour, f.toHour, {
      now: Date.now(),
      spansThrough: DAY0 + DAYS * DAY_MS,
      rollupDays: getConfig().rollupRetentionDays,
    });
    const metered = meterD1(env.DB);
    const packed = await packedRowsCovering(metered.db, f, packedColumnsOf(FIGURES));
    const packedRead = metered.rowsRead;
    metered.reset();
    const rows = await rollupsCovering(metered.db, f);
    expect(rows.length).toBe(PAIRS.length * (DAYS - 1 + 12));
    // A string per piece and region (39 days and 12 hours in at most 16 pieces, whatever today's alignment, of 2
    // regions), each row of a piece read once (D1 counts two rows more for each key it seeks), beside the regions'
    // marks (a row each) and the ranges of the regions without one (none here: a row or so a range).
    expect(pieces.length).toBeLessThanOrEqual(16);
    expect(pieces.length * 3).toBeLessThan(DAYS - 1 + 12);
    expect(packed.length).toBe(pieces.length * 2);
    expect(packedRead).toBeGreaterThanOrEqual(pieces.length * PAIRS.length);
    expect(packedRead).toBeLessThanOrEqual(pieces.length * (PAIRS.length + 2) + 2 + 1 + 2 * 3);
    for (const by of [
      ['region', 'target'],
      ['target', 'prompt_variant'],
      ['region', 'target', 'prompt_variant', 'split_source'],
    ] as const) {
      const all = packedPercentileGroupsByFigure(packed, FIGURES, by);
      for (const figure of FIGURES) expect(all.get(figure), `${figure} by ${by}`).toEqual(rollupPercentileGroups(rows, figure, by));
    }
    // A region whose spans are not whole (its object's last passes failed, or have not yet written an upgraded
    // database's past spans: its mark says so) is read from its hourly and daily rows: the same answer, none missing.
    await env.DB.prepare("DELETE FROM span_rollups WHERE region = 'enam'").run();
    await writeSpanMark(env.DB, 'enam', 0);
    const fallback = await packedRowsCovering(env.DB, f, packedColumnsOf(FIGURES));
    for (const figure of FIGURES)
      expect(packedPercentileGroupsByFigure(fallback, FIGURES, ['region', 'target']).get(figure), figure).toEqual(
        rollupPercentileGroups(rows, figure, ['region', 'target']),
      );
    // … and one whose spans are whole only up to some day (a midnight: this test's older days have daily rows alone):
    // its spans to there, its rows beyond.
    await writeSpanRollups(env.DB, ['enam'], DAY0, DAY0 + DAYS * DAY_MS);
    await writeSpanMark(env.DB, 'enam', DAY0 + 17 * DAY_MS);
    await env.DB.prepare("DELETE FROM span_rollups WHERE region = 'enam' AND block >= ?")
      .bind(DAY0 + 17 * DAY_MS)
      .run();
    const partly = await packedRowsCovering(env.DB, f, packedColumnsOf(FIGURES));
    expect(packedPercentileGroupsByFigure(partly, FIGURES, ['region', 'target']).get('ttft_ms')).toEqual(
      rollupPercentileGroups(rows, 'ttft_ms', ['region', 'target']),
    );
    await writeSpanRollups(env.DB, ['enam'], DAY0, DAY0 + DAYS * DAY_MS);
    // The read API answers the split's parts per source from the split column alone, grouped, the same way.
    const window = `from=${f.fromHour}&to=${f.toHour}&by=region,target,prompt_variant`;
    for (const metric of ['ttft_ms', 'network_ms', 'server_ms'] as const) {
      const r = await SELF.fetch(`https://observatory.test/api/v1/percentiles?metric=${metric}&source=rollups&${window}`);
      expect(r.status, await r.clone().text()).toBe(200);
      const by =
        metric === 'ttft_ms'
          ? (['region', 'target', 'prompt_variant'] as const)
          : (['region', 'target', 'prompt_variant', 'split_source'] as const);
      const { groups } = await r.json<{ groups: unknown[] }>();
      expect(groups, metric).toEqual(rollupPercentileGroups(rows, metric, by));
      expect(groups.length).toBe(metric === 'ttft_ms' ? PAIRS.length : PAIRS.length * SOURCES.length);
    }
  });
});
