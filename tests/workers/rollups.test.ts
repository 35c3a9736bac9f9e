/**
 * Hourly rollups inside workerd: each region's object writes the rollup of an ended hour from that
 * hour's samples once its jobs are done; a retried tick changes no byte; samples that land late (D1
 * down, then the outbox flushed) correct their hour; and the rows are what rolling up the stored
 * samples directly gives, their percentiles within the histogram's relative error of exact ones.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { selectedPairs } from '../../workers/observatory/api/filters.ts';
import { rewriteSpanRollups, writeSpanMark } from '../../workers/observatory/db/span-rollups.ts';
import {
  DAY_SPANS,
  HOUR_SPANS,
  hourSpansFrom,
  pieceEnd,
  spanKey,
  spansOfDay,
  spansOfHour,
  spansWithin,
  type Piece,
} from '../../shared/rollup/spans.ts';
import { SPAN_COLUMNS } from '../../workers/observatory/db/rollups.ts';
import { fromRollupRow } from '../../workers/observatory/db/rollup-row.ts';
import type { SampleFilter } from '../../workers/observatory/db/samples.ts';
import { runDurableObjectAlarm, runInDurableObject, SELF } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { alarmsUntil, drain } from './drain.ts';
import { expectConsoleErrors } from './console-errors.ts';
import { config } from './test-config.ts';
import { METHOD_VERSION } from '../../shared/constants.ts';
import {
  ROLLUP_METRICS,
  dayOf,
  encodeSplit,
  hourOf,
  mergeByGroup,
  rollUp,
  rollupFromBase64Json,
  rollupFromJson,
  type Rollup,
  type RollupBase64Json,
  type RollupJson,
} from '../../shared/rollup/rollup.ts';
import { rollupsCovering, rollupsIn, rollupTotals, samplesOfHour, samplesRetainedFrom } from '../../workers/observatory/db/rollups.ts';
import { deleteSamplesBefore } from '../../workers/observatory/db/samples.ts';
import { rollUpDay, rollUpHour } from '../../workers/observatory/rollup/rollup-hour.ts';
import { SPAN_READS_PER_SEEK } from '../../shared/config/view-costs.ts';
import {
  DAILY_ROWS_READ_PER_HOURLY_ROW,
  DAILY_UPSERT_ROWS_READ_PER_PAIR,
  PAIRED_DAY_ROWS_READ_PER_PAIRED_HOUR,
  PAIRED_DAY_UPSERT_ROWS_READ,
  PAIRED_DAYS_WRITTEN_PER_REGION_VARIANT_DAY,
  DAILY_ROWS_WRITTEN_PER_PAIR,
  ROLLUP_MARK_READS_PER_REGION_HOUR,
  SPAN_MARK_ROWS_WRITTEN_PER_REGION_DAY,
  SPAN_ROWS_READ_PER_HALF_ROW,
  ROLLUP_ROWS_READ_PER_PAIR,
  ROLLUP_ROWS_READ_PER_SAMPLE_IN_HOUR,
  ROLLUP_ROWS_WRITTEN_PER_PAIR,
  PLACES_ROWS_WRITTEN_PER_PAIR_HOUR,
  PAIRED_ROWS_WRITTEN_PER_REGION_VARIANT_HOUR,
  PROFILE_ROWS_WRITTEN_PER_PAIR_DAY,
} from '../../shared/config/unit-costs.ts';
import { ROLLUP_PAGE_ROWS, PERCENTILE_ROW_UNITS, percentileRowUnits } from '../../shared/config/read-limits.ts';
import { deleteArchivedRollupDays } from '../../workers/observatory/db/archive.ts';
import { meterD1 } from '../../workers/observatory/db/meter.ts';
import { getConfig } from '../../workers/observatory/config.ts';
import { MAX_WINDOW_MS } from '../../workers/observatory/api/query.ts';
import { HISTOGRAM_RELATIVE_ERROR, quantile, sumOf } from '../../shared/stats/exp-histogram.ts';
import { encodeHistogram } from '../../shared/stats/histogram-bytes.ts';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { percentile } from '../../shared/stats/percentile.ts';
import { rollupPercentileGroups } from '../../shared/rollup/percentiles.ts';
import { fireCron } from './fire-cron.ts';
import { DAY_MS, HOUR_MS } from '../../shared/time.ts';

const REGIONS = config.regions.map((r) => r.code);
const HOUR = 1_767_268_800_000; // 2026-01-01T12:00:00Z
const FIVE_MIN = 300_000;

const rollupsOfHour = (hour: number) => rollupsIn(env.DB, { fromHour: hour, toHour: hour + HOUR_MS, methodVersion: METHOD_VERSION });
const rowBytes = (r: Rollup) => [
  r.hour,
  r.region,
  r.target,
  r.prompt_variant,
  r.probes,
  r.successes,
  JSON.stringify(r.errors),
  ...ROLLUP_METRICS.map((m) => [...encodeHistogram(r.histograms[m])]),
  [...encodeSplit(r.split)],
];

// The regions' retry alarms (30 s) outlive the file's tests: cleared, so none is still running when the runtime closes.
afterAll(async () => {
  for (const region of config.regions.map((r) => r.code)) {
    await runInDurableObject(env.REGION_PROBER.getByName(region), (_instance, state: DurableObjectState) => state.storage.deleteAlarm());
  }
});

describe('hourly rollups', () => {
  it('are written for each ended hour, one row per region × target × variant, equal to rolling up the samples', async () => {
    for (const t of [HOUR, HOUR + FIVE_MIN, HOUR + 2 * FIVE_MIN]) {
      await fireCron(t);
      await drain(REGIONS);
    }
    const rows = await rollupsOfHour(HOUR);
    // ref-no-key's secret is missing (skipped): 3 regions × 3 targets.
    expect(rows).toHaveLength(9);
    for (const r of rows) {
      expect(r.probes).toBe(3);
      const direct = rollUp(await samplesOfHour(env.DB, r.region, HOUR)).find((x) => x.target === r.target)!;
      expect(encodeHistogram(r.histograms.ttft_ms)).toEqual(encodeHistogram(direct.histograms.ttft_ms));
      expect(r.split).toEqual(direct.split);
    }
    const broken = rows.find((r) => r.target === 'ref-broken' && r.region === 'weur')!;
    expect(broken).toMatchObject({ probes: 3, successes: 0, errors: { http: 3 } });
    const chat = rows.find((r) => r.target === 'ref-chat' && r.region === 'weur')!;
    expect(chat.successes).toBe(3);
    expect([...chat.split.keys()]).toEqual(['server-timing.total']);
    const { results } = await env.DB.prepare(
      "SELECT ttft_ms FROM samples WHERE region = 'weur' AND target = 'ref-chat' AND tick_id >= ? AND tick_id < ?",
    )
      .bind(HOUR, HOUR + HOUR_MS)
      .all<{ ttft_ms: number }>();
    for (const q of [0.5, 0.9]) {
      const exact = percentile(
        results.map((x) => x.ttft_ms),
        q,
      )!;
      expect(Math.abs(quantile(chat.histograms.ttft_ms, q)! - exact) / exact).toBeLessThanOrEqual(HISTOGRAM_RELATIVE_ERROR);
    }
  });

  it('a retried tick changes no byte', async () => {
    const before = (await rollupsOfHour(HOUR)).map(rowBytes);
    await fireCron(HOUR + FIVE_MIN);
    await drain(REGIONS);
    expect((await rollupsOfHour(HOUR)).map(rowBytes)).toEqual(before);
  });

  it('samples that land late, after a D1 outage, correct their hour', async () => {
    const hour = HOUR + 2 * HOUR_MS;
    await fireCron(hour);
    await drain(REGIONS);
    expect((await rollupsOfHour(hour)).filter((r) => r.region === 'enam').map((r) => r.probes)).toEqual([1, 1, 1]);

    expectConsoleErrors(
      /could not check D1 for stored samples/,
      /D1 write failed, \d+ sample\(s\) kept for retry/,
      /rollup of hour .* failed, kept for retry/,
    );
    await env.DB.prepare('ALTER TABLE samples RENAME TO samples_away').run();
    const stub = env.REGION_PROBER.getByName('enam');
    try {
      await fireCron(hour + FIVE_MIN);
      // Runs (or waits for, when one is already running) the object's alarms until its queue is empty: bounded at 20 s.
      for (let i = 0; i < 400 && (await stub.status()).queued > 0; i++) {
        await runDurableObjectAlarm(stub);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect((await stub.status()).outbox).toBe(3);
    } finally {
      await env.DB.prepare('ALTER TABLE samples_away RENAME TO samples').run();
    }
    // The rollup still says 1 probe per target; the outbox flush brings the late samples and a new rollup.
    expect((await rollupsOfHour(hour)).filter((r) => r.region === 'enam').map((r) => r.probes)).toEqual([1, 1, 1]);
    for (let i = 0; i < 400 && ((await stub.status()).outbox > 0 || (await stub.status()).pendingRollups > 0); i++) {
      await runDurableObjectAlarm(stub);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await stub.status()).toMatchObject({ outbox: 0, pendingRollups: 0 });
    expect((await rollupsOfHour(hour)).filter((r) => r.region === 'enam').map((r) => r.probes)).toEqual([2, 2, 2]);
  });
});

const DAY = dayOf(HOUR);

/** Runs a region object's alarms until its rollup work is done: seeded, no hour or day pending. */
async function settle(region: string): Promise<void> {
  const pending = () =>
    runInDurableObject(env.REGION_PROBER.getByName(region), (_instance, state: DurableObjectState) => {
      const one = (q: string) => Number(state.storage.sql.exec(q).one().n);
      return (
        one('SELECT COUNT(*) AS n FROM dirty_hours') +
        one('SELECT COUNT(*) AS n FROM dirty_days') +
        one("SELECT 1 - COUNT(*) AS n FROM meta WHERE key = 'daily_rollups_seeded'")
      );
    });
  await alarmsUntil(region, async () => (await pending()) === 0);
  expect(await pending()).toBe(0);
}

describe('daily rollups', () => {
  it("hold each ended day's hourly rows merged, late samples included, byte for byte", async () => {
    const daily = await rollupsIn(env.DB, { fromHour: DAY, toHour: DAY + DAY_MS, resolution: 'day', methodVersion: METHOD_VERSION });
    expect(daily).toHaveLength(9);
    const hourly = await rollupsIn(env.DB, { fromHour: DAY, toHour: DAY + DAY_MS, methodVersion: METHOD_VERSION });
    expect(daily.map(rowBytes)).toEqual(mergeByGroup(hourly, DAY).map(rowBytes));
    // enam ref-chat: 3 probes at 12:00, 1 + 1 late at 14:00.
    expect(daily.find((r) => r.region === 'enam' && r.target === 'ref-chat')!.probes).toBe(5);
  });

  it('an upgraded database (hourly rows, no daily ones) gets its daily rows, once', async () => {
    await env.DB.prepare('DELETE FROM daily_rollups').run();
    for (const region of REGIONS) {
      const stub = env.REGION_PROBER.getByName(region);
      await runInDurableObject(stub, (_instance, state: DurableObjectState) => {
        state.storage.sql.exec("DELETE FROM meta WHERE key = 'daily_rollups_seeded'");
        return state.storage.setAlarm(Date.now());
      });
      await settle(region);
    }
    const daily = await rollupsIn(env.DB, { fromHour: DAY, toHour: DAY + DAY_MS, resolution: 'day', methodVersion: METHOD_VERSION });
    const hourly = await rollupsIn(env.DB, { fromHour: DAY, toHour: DAY + DAY_MS, methodVersion: METHOD_VERSION });
    expect(daily.map(rowBytes)).toEqual(mergeByGroup(hourly, DAY).map(rowBytes));
  });

  it('an hour whose samples retention cut is never rewritten from what is left', async () => {
    const hour = HOUR + 2 * HOUR_MS;
    const before = (await rollupsOfHour(hour)).map(rowBytes);
    // Retention cuts in the middle of the hour: the rows of the whole hour must stay as they are.
    await env.DB.prepare('CREATE TABLE samples_kept AS SELECT * FROM samples WHERE tick_id < ?')
      .bind(hour + HOUR_MS)
      .run();
    try {
      expect(await deleteSamplesBefore(env.DB, hour + FIVE_MIN)).toBeGreaterThan(0);
      expect(await samplesRetainedFrom(env.DB)).toBe(hour + FIVE_MIN);
      const stub = env.REGION_PROBER.getByName('enam');
      await runInDurableObject(stub, (_instance, state: DurableObjectState) => {
        state.storage.sql.exec('INSERT OR IGNORE INTO dirty_hours (hour) VALUES (?)', hour);
        return state.storage.setAlarm(Date.now());
      });
      await settle('enam');
      expect((await rollupsOfHour(hour)).map(rowBytes)).toEqual(before);
    } finally {
      await env.DB.batch([
        env.DB.prepare('INSERT OR IGNORE INTO samples SELECT * FROM samples_kept'),
        env.DB.prepare('DROP TABLE samples_kept'),
        env.DB.prepare('DELETE FROM retention_marks'),
      ]);
    }
  });
});

/** A span's stored rows, as rollups keyed by its start (every region's). */
async function spanRollupRows(span: Piece): Promise<Rollup[]> {
  const { results } = await env.DB.prepare(
    `SELECT block - ${span.hours} AS hour, ${SPAN_COLUMNS.filter((c) => c !== 'block').join(', ')} FROM span_rollups WHERE block = ? AND method_version = ?`,
  )
    .bind(spanKey(span.start, span.hours), METHOD_VERSION)
    .all<Record<string, unknown>>();
  return results.map(fromRollupRow);
}

/** Every span within the day holds its hourly (or daily) rows merged, byte for byte; returns the spans with rows. */
async function expectSpansOf(day: number): Promise<number> {
  let held = 0;
  for (const span of spansWithin(day)) {
    const base = await rollupsIn(env.DB, {
      fromHour: span.start,
      toHour: pieceEnd(span),
      resolution: span.hours < 24 ? 'hour' : 'day',
      methodVersion: METHOD_VERSION,
    });
    const stored = await spanRollupRows(span);
    const sorted = (rows: Rollup[]) => rows.map(rowBytes).sort();
    // Spans of hours are kept for the recent days alone: an older hour is read from its hourly row.
    const kept = span.hours >= 24 || span.start >= hourSpansFrom(Date.now());
    expect(sorted(stored), `${span.hours} h from ${new Date(span.start).toISOString()}`).toEqual(
      kept ? sorted(mergeByGroup(base, span.start)) : [],
    );
    if (stored.length > 0) held++;
  }
  return held;
}

describe('span rollups', () => {
  it("hold each ended span's hours or days merged, late samples included, byte for byte", async () => {
    // The day's spans of days (its spans of hours, months ago, are not kept).
    expect(await expectSpansOf(DAY)).toBe(DAY_SPANS.length);
  });

  it('an upgraded database (no span rollups) gets them, a few passes at most', async () => {
    await env.DB.prepare('DELETE FROM span_rollups').run();
    for (const region of REGIONS) {
      const stub = env.REGION_PROBER.getByName(region);
      for (let pass = 0; pass < 4; pass++) {
        await runInDurableObject(stub, (_instance, state: DurableObjectState) => {
          if (pass === 0) state.storage.sql.exec("DELETE FROM meta WHERE key = 'span_rollups_seeded'");
          return state.storage.setAlarm(Date.now());
        });
        await settle(region);
      }
    }
    expect(await expectSpansOf(DAY)).toBe(DAY_SPANS.length);
  });
});

describe('percentiles from the rollups', () => {
  const get = async (path: string, token = false) =>
    SELF.fetch(
      `https://observatory.test${path}`,
      token ? { headers: { authorization: `Bearer ${env.READ_TOKEN}`, 'cache-control': 'no-cache' } } : {},
    );
  const window = `from=${HOUR}&to=${HOUR + HOUR_MS}`;

  it('answer whole hours, say so, and stay within the stated error of the exact percentiles', async () => {
    const r = await get(`/api/v1/percentiles?metric=ttft_ms&source=rollups&${window}`);
    expect(r.status).toBe(200);
    const body = await r.json<{
      source: string;
      relative_error: number;
      window: { from: string; to: string };
      groups: Array<Record<string, number | string | null>>;
    }>();
    expect(body).toMatchObject({
      source: 'rollups',
      relative_error: HISTOGRAM_RELATIVE_ERROR,
      window: { from: new Date(HOUR).toISOString(), to: new Date(HOUR + HOUR_MS).toISOString() },
    });
    const raw = await (await get(`/api/v1/percentiles?metric=ttft_ms&source=raw&${window}`)).json<{
      source: string;
      groups: Array<Record<string, number | string | null>>;
    }>();
    expect(raw.source).toBe('raw');
    expect(body.groups.map((g) => [g.region, g.target, g.n, g.samples, g.errors])).toEqual(
      raw.groups.map((g) => [g.region, g.target, g.n, g.samples, g.errors]),
    );
    for (const [i, g] of body.groups.entries()) {
      // The percentiles and their intervals' bounds, each within the stated error of the exact ones.
      for (const p of ['p50', 'p90', 'p99', 'p50_ci_low', 'p50_ci_high', 'p90_ci_low', 'p90_ci_high']) {
        const exact = raw.groups[i][p] as number | null;
        if (exact === null) expect(g[p]).toBeNull();
        else expect(Math.abs((g[p] as number) - exact) / exact).toBeLessThanOrEqual(HISTOGRAM_RELATIVE_ERROR);
      }
    }
  });

  it('read a whole day from its daily rows alone', async () => {
    const day = `from=${DAY}&to=${DAY + DAY_MS}`;
    const r = await get(`/api/v1/percentiles?metric=ttft_ms&source=rollups&${day}`);
    expect(r.status).toBe(200);
    const daily = await rollupsIn(env.DB, { fromHour: DAY, toHour: DAY + DAY_MS, resolution: 'day', methodVersion: METHOD_VERSION });
    // One row per region × target read: the day's 9 daily rows, not its hourly ones (and each once: packed as read),
    // beside the regions' span marks (a row each, db/packed-reads.ts) and the row past the range's end.
    const read = Number(r.headers.get('x-d1-rows-read'));
    expect(read).toBeGreaterThanOrEqual(daily.length + REGIONS.length);
    expect(read).toBeLessThanOrEqual(daily.length + REGIONS.length + 1);
    const body = await r.json<{ groups: Array<{ region: string; target: string; samples: number }> }>();
    const hourly = await rollupsIn(env.DB, { fromHour: DAY, toHour: DAY + DAY_MS, methodVersion: METHOD_VERSION });
    for (const g of body.groups) {
      expect(g.samples).toBe(hourly.filter((h) => h.region === g.region && h.target === g.target).reduce((n, h) => n + h.probes, 0));
    }
    // The API reads one figure's column alone and sums its bytes: the same answer as merging the whole rollups.
    for (const metric of ['ttft_ms', 'tpot_ms'] as const) {
      const api = await (
        await get(`/api/v1/percentiles?metric=${metric}&source=rollups&from=${DAY - 5 * 3_600_000}&to=${DAY + DAY_MS}`)
      ).json<{ groups: unknown[] }>();
      const merged = rollupPercentileGroups(
        await rollupsCovering(env.DB, { fromHour: DAY - 5 * 3_600_000, toHour: DAY + DAY_MS, methodVersion: METHOD_VERSION }),
        metric,
        ['region', 'target'],
      );
      expect(api.groups.length).toBeGreaterThan(0);
      expect(api.groups).toEqual(merged);
    }
  });

  it('are served as rows, hourly or daily, in pages of whole periods, whose histograms decode to the stored bytes', async () => {
    for (const resolution of ['hour', 'day'] as const) {
      const stored = await rollupsIn(env.DB, { fromHour: DAY, toHour: DAY + DAY_MS, resolution, methodVersion: METHOD_VERSION });
      for (const form of ['json', 'base64'] as const) {
        const rows: Rollup[] = [];
        let cursor: number | null = null;
        let pages = 0;
        let read = 0;
        do {
          const r = await get(
            `/api/v1/rollups?resolution=${resolution}&histograms=${form}&from=${DAY}&to=${DAY + DAY_MS}${cursor !== null ? `&cursor=${cursor}` : ''}`,
          );
          expect(r.status).toBe(200);
          const body = await r.json<{ rows: Array<RollupJson & RollupBase64Json>; next_cursor: number | null }>();
          // At most a page, in whole periods: the next page starts where this one's last period ended.
          expect(body.rows.length).toBeLessThanOrEqual(ROLLUP_PAGE_ROWS[form]);
          const starts = body.rows.map((x) => Date.parse(x.start));
          if (body.next_cursor !== null) expect(Math.max(...starts)).toBeLessThan(body.next_cursor);
          rows.push(...body.rows.map(form === 'json' ? rollupFromJson : rollupFromBase64Json));
          read += Number(r.headers.get('x-d1-rows-read'));
          cursor = body.next_cursor;
          pages++;
        } while (cursor !== null && pages < 100);
        expect(rows.map(rowBytes), `${resolution} ${form}`).toEqual(stored.map(rowBytes));
        // A page reads one row past its end, to know where its last whole period ends, and no other row twice.
        expect(read).toBeLessThanOrEqual(stored.length + pages * 9);
      }
    }
    const bad = await get('/api/v1/rollups?resolution=week');
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('resolution must be one of hour, day');
    for (const [query, message] of [
      ['histograms=xml', 'histograms must be one of json, base64'],
      [`limit=${ROLLUP_PAGE_ROWS.json + 1}`, `limit must be a whole number from 1 to ${ROLLUP_PAGE_ROWS.json}`],
      [`cursor=${DAY - 1}`, 'cursor must be a whole number'],
    ]) {
      const r = await get(`/api/v1/rollups?resolution=hour&from=${DAY}&to=${DAY + DAY_MS}&${query}`);
      expect(r.status, query).toBe(400);
      expect(await r.text()).toContain(message);
    }
  });

  it('answer percentiles from no more rows than a free-plan request merges, and say how to ask instead', async () => {
    const cap = PERCENTILE_ROW_UNITS.free;
    const to = DAY + DAY_MS;
    const longest = to - MAX_WINDOW_MS + 3_600_000;
    // The test configuration's 10 region × target pairs over the longest window anyone may ask: within the cap.
    expect(percentileRowUnits(longest, to, 10)).toBeLessThanOrEqual(cap);
    const all = await get(`/api/v1/percentiles?metric=ttft_ms&source=rollups&from=${longest}&to=${to}`);
    expect(all.status, await all.clone().text()).toBe(200);
    // A window reads a row per pair of each of its pieces (at most about 36, shared/rollup/spans.ts), whatever its
    // length: a deployment with enough regions (added for this test only) is past the cap over the same window; one
    // region of it within.
    const config = getConfig();
    const regions = config.regions.length;
    const pairs = () => selectedPairs({} as SampleFilter);
    for (let k = 0; k < 1_000 && percentileRowUnits(longest, to, pairs()) <= cap; k++)
      config.regions.push({ code: `x${k}`, label: `Extra ${k}`, locationHint: 'oc' });
    try {
      expect(percentileRowUnits(longest, to, pairs())).toBeGreaterThan(cap);
      const long = await get(`/api/v1/percentiles?metric=ttft_ms&source=rollups&from=${longest}&to=${to}`);
      expect(long.status).toBe(400);
      const refusal = await long.json<{ error: { code: string; message: string } }>();
      expect(refusal).toMatchObject({ error: { code: 'too_much_work' } });
      expect(refusal.error.message).toContain(`one request merges at most ${cap} on the free plan`);
      // The same pairs over a day of whole days (one daily row a pair) are within it, and answered.
      const oneDay = to - DAY_MS;
      expect(percentileRowUnits(oneDay, to, pairs())).toBeLessThanOrEqual(cap);
      expect((await get(`/api/v1/percentiles?metric=ttft_ms&source=rollups&from=${oneDay}&to=${to}`)).status).toBe(200);
      const narrower = await get(`/api/v1/percentiles?metric=ttft_ms&source=rollups&region=weur&from=${longest}&to=${to}`);
      expect(narrower.status).toBe(200);
      const groups = (await narrower.json<{ groups: Array<{ region: string; samples: number }> }>()).groups;
      expect(groups.length).toBeGreaterThan(0);
      expect(groups.every((g) => g.region === 'weur')).toBe(true);
    } finally {
      config.regions.splice(regions);
    }
  });

  it('are scraped from /metrics per region, as a scrape job a region splits them', async () => {
    // With the read token: the live scrape of what D1 holds now (tests/workers/timeline-views.test.ts holds the
    // scrape's views, which an anonymous scrape reads, to it).
    const all = await (await get('/metrics', true)).text();
    const weur = await get('/metrics?region=weur', true);
    expect(weur.status).toBe(200);
    const text = await weur.text();
    expect(text).toContain('region="weur"');
    expect(text).not.toContain('region="apac"');
    expect(all).toContain('region="apac"');
    // Every weur line of the whole scrape, and nothing else.
    const series = (t: string) => t.split('\n').filter((l) => l.includes('region="weur"'));
    expect(series(text)).toEqual(series(all));
    expect((await get('/metrics?region=mars')).status).toBe(400);
  });

  it('keep the split per source, and refuse what they do not hold', async () => {
    const split = await (await get(`/api/v1/percentiles?metric=network_ms&source=rollups&${window}`)).json<{
      by: string[];
      groups: Array<{ target: string; split_source: string | null; n: number }>;
    }>();
    expect(split.by).toEqual(['region', 'target', 'split_source']);
    expect(split.groups.filter((g) => g.target === 'ref-chat').map((g) => g.split_source)).toEqual([
      'server-timing.total',
      'server-timing.total',
      'server-timing.total',
    ]);
    for (const [path, message] of [
      [`/api/v1/percentiles?metric=headers_ms&source=rollups&${window}`, 'the hourly rollups hold'],
      [`/api/v1/percentiles?metric=ttft_ms&by=split_source&source=rollups&${window}`, 'split sources for network_ms and server_ms only'],
      [`/api/v1/percentiles?metric=ttft_ms&source=rollups&from=${HOUR + 60_000}&to=${HOUR + HOUR_MS}`, 'the window holds none'],
      ['/api/v1/percentiles?source=cache', 'source must be one of raw, rollups'],
    ]) {
      const r = await get(path);
      expect(r.status, path).toBe(400);
      expect(await r.text()).toContain(message);
    }
  });
});

/** The span rollups a region holds of these spans. */
async function spanRowsOf(region: string, spans: readonly Piece[]): Promise<number> {
  let n = 0;
  for (const s of spans)
    n += Number(
      await env.DB.prepare('SELECT COUNT(*) AS n FROM span_rollups WHERE block = ? AND region = ?')
        .bind(spanKey(s.start, s.hours), region)
        .first('n'),
    );
  return n;
}

describe('what a rollup costs (the capacity model counts these)', () => {
  it("reads the hour's samples of every region, the hour's previous rows and the region's totals; writes a row and a total per region × target × variant", async () => {
    const hour = HOUR + 4 * HOUR_MS;
    for (const t of [hour, hour + FIVE_MIN]) {
      await fireCron(t);
      await drain(REGIONS);
    }
    const inHour = (await env.DB.prepare('SELECT COUNT(*) AS n FROM samples WHERE tick_id >= ? AND tick_id < ?')
      .bind(hour, hour + HOUR_MS)
      .first<{ n: number }>())!.n;
    const pairs = (await rollupTotals(env.DB, { regions: ['weur'] })).length;
    expect(pairs).toBe(3);
    const meter = meterD1(env.DB);
    await rollUpHour(meter.db, 'weur', hour);
    // The unique key leads with tick_id: the hour's rows of every region are scanned, the region filtered after.
    expect(meter.rowsRead).toBe(inHour * ROLLUP_ROWS_READ_PER_SAMPLE_IN_HOUR + pairs * ROLLUP_ROWS_READ_PER_PAIR);
    // … and the paired comparisons' row of its one variant (two targets succeeded in it).
    expect(meter.rowsWritten).toBe(
      pairs * (ROLLUP_ROWS_WRITTEN_PER_PAIR + PLACES_ROWS_WRITTEN_PER_PAIR_HOUR) + PAIRED_ROWS_WRITTEN_PER_REGION_VARIANT_HOUR,
    );
    // Writing the region's day reads the day's hourly rows of every region, and writes a daily row per pair.
    meter.reset();
    await rollUpDay(meter.db, 'weur', dayOf(hour));
    const ofDay = await rollupsIn(env.DB, { fromHour: dayOf(hour), toHour: dayOf(hour) + DAY_MS });
    const hourlyOfDay = ofDay.length;
    const hourlyOfWeur = ofDay.filter((r) => r.region === 'weur').length;
    const pairedOfDay = (await env.DB.prepare(
      'SELECT COUNT(*) AS n, COUNT(DISTINCT prompt_variant) AS g FROM paired_hours WHERE region = ? AND hour >= ? AND hour < ?',
    )
      .bind('weur', dayOf(hour), dayOf(hour) + DAY_MS)
      .first<{ n: number; g: number }>())!;
    // … and its family's paired hours of the day, packed into one row (paired_days).
    expect(pairedOfDay.g).toBe(1);
    expect(meter.rowsRead).toBe(
      hourlyOfDay * DAILY_ROWS_READ_PER_HOURLY_ROW +
        pairs * DAILY_UPSERT_ROWS_READ_PER_PAIR +
        pairedOfDay.n * PAIRED_DAY_ROWS_READ_PER_PAIRED_HOUR +
        pairedOfDay.g * PAIRED_DAY_UPSERT_ROWS_READ,
    );
    // … and its time profile row per pair, and the packed day.
    expect(meter.rowsWritten).toBe(
      pairs * (DAILY_ROWS_WRITTEN_PER_PAIR - 1 + PROFILE_ROWS_WRITTEN_PER_PAIR_DAY) +
        pairedOfDay.g * PAIRED_DAYS_WRITTEN_PER_REGION_VARIANT_DAY,
    );
    meter.reset();
    await samplesRetainedFrom(meter.db);
    expect(meter.rowsRead).toBeLessThanOrEqual(ROLLUP_MARK_READS_PER_REGION_HOUR);
    // The span rollups of the hour and the day (shared/rollup/spans.ts): a row per pair each, from its parts of the
    // region's rows (two halves; the shortest spans, their hourly or daily rows).
    const spans = [...spansOfHour(hour), ...spansOfDay(dayOf(hour))];
    const earlier = await spanRowsOf('weur', spans);
    meter.reset();
    const spanRows = await rewriteSpanRollups(meter.db, 'weur', spans);
    expect(spanRows).toBe(spans.length * pairs);
    // Each rewrite deletes the span's earlier rows (the rollup duty wrote its spans of days) and writes its new ones.
    expect(meter.rowsWritten).toBe(earlier + spanRows);
    const parts = 2 * (spans.length - 2) + HOUR_SPANS[0] + DAY_SPANS[0];
    expect(meter.rowsRead).toBeGreaterThanOrEqual(spanRows * SPAN_ROWS_READ_PER_HALF_ROW);
    expect(meter.rowsRead).toBeLessThanOrEqual(parts * (pairs * SPAN_ROWS_READ_PER_HALF_ROW + SPAN_READS_PER_SEEK));
    // Its spans' mark: one row, rewritten in place, when it moves (SPAN_MARK_ROWS_WRITTEN_PER_REGION_DAY, once an hour).
    // (A region of its own: weur's is its object's to write, which writes it only when it moves.)
    await writeSpanMark(env.DB, 'cost-test', hour);
    meter.reset();
    await writeSpanMark(meter.db, 'cost-test', hour + 7 * HOUR_MS);
    expect(meter.rowsWritten * 24).toBe(SPAN_MARK_ROWS_WRITTEN_PER_REGION_DAY);
    await env.DB.prepare("DELETE FROM span_marks WHERE region = 'cost-test'").run();
    // Retention deletes each hourly and daily row once (a region's archived day: archive-run.ts deleteArchivedRollups),
    // and the spans of days that held the day (no reader uses one that starts before the cut).
    const daySpans = await spanRowsOf('weur', spansOfDay(dayOf(hour)));
    expect(daySpans).toBe(DAY_SPANS.length * pairs);
    meter.reset();
    const deleted = await deleteArchivedRollupDays(meter.db, 'weur', [dayOf(hour)]);
    expect(deleted).toBe(hourlyOfWeur + pairs);
    expect(await spanRowsOf('weur', spansOfDay(dayOf(hour)))).toBe(0);
    expect(meter.rowsWritten).toBe(deleted + daySpans);
    // … each read once by its delete, beside a seek on each key.
    expect(meter.rowsRead).toBeLessThanOrEqual(2 * deleted + daySpans + (DAY_SPANS.length + 3) * SPAN_READS_PER_SEEK);
  });
});

describe('running totals', () => {
  it('equal the sum of every hourly row, whatever was rewritten', async () => {
    const hourly = await rollupsIn(env.DB, { fromHour: 0, toHour: HOUR + 100 * HOUR_MS });
    const totals = await rollupTotals(env.DB);
    // The cost test above deleted some hours' rows after counting them: compare the hours still there.
    for (const t of totals) {
      const rows = hourly.filter(
        (r) =>
          r.region === t.region && r.target === t.target && r.prompt_variant === t.prompt_variant && r.method_version === t.method_version,
      );
      expect(t.probes).toBeGreaterThanOrEqual(rows.reduce((n, r) => n + r.probes, 0));
    }
    const enamChat = totals.find((t) => t.region === 'enam' && t.target === 'ref-chat')!;
    // enam ref-chat: 3 probes at 12:00, 2 at 14:00 (one late), 2 at 16:00; the 12:00 retry counted once.
    expect(enamChat.probes).toBe(7);
    expect(enamChat.histograms.ttft_ms.count).toBe(7);
  });
});

describe('GET /metrics', () => {
  type Family = {
    name: string;
    type: string;
    metrics: Array<{ labels?: Record<string, string>; value?: string; buckets?: Record<string, string>; count?: string; sum?: string }>;
  };
  /** One labelled histogram series alone (the parser flattens only unlabelled histograms): its lines, with its labels but `le` taken off. */
  function series(text: string, name: string, labels: Record<string, string>): Family['metrics'][number] {
    const selector = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
    const lines = text
      .split('\n')
      .filter((l) => l.startsWith(name) && selector.every((s) => l.includes(s)))
      .map((l) =>
        l.replace(/\{([^}]*)\}/, (_m, inner: string) => {
          const le = /le="[^"]*"/.exec(inner);
          return le ? `{${le[0]}}` : '';
        }),
      );
    const [family] = parsePrometheusTextFormat(`# TYPE ${name} histogram\n${lines.join('\n')}\n`) as Family[];
    return family.metrics[0];
  }

  it('is Prometheus text a real parser reads: counters and histograms in seconds that match the totals', async () => {
    const r = await SELF.fetch('https://observatory.test/metrics', {
      headers: { authorization: `Bearer ${env.READ_TOKEN}`, 'cache-control': 'no-cache' },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await r.text();
    const families = parsePrometheusTextFormat(text) as Family[];
    const family = (name: string) => families.find((f) => f.name === name)!;
    expect(families.map((f) => [f.name, f.type])).toEqual(
      expect.arrayContaining([
        ['llm_probes_total', 'COUNTER'],
        ['llm_probe_failures_total', 'COUNTER'],
        ['llm_ttft_seconds', 'HISTOGRAM'],
        ['llm_ttft_network_seconds', 'HISTOGRAM'],
        ['llm_decode_tokens_per_second', 'HISTOGRAM'],
      ]),
    );
    const totals = await rollupTotals(env.DB, { methodVersion: METHOD_VERSION });
    expect(totals.length).toBeGreaterThan(0);
    for (const t of totals) {
      const labels = { region: t.region, target: t.target, prompt_variant: t.prompt_variant };
      expect(family('llm_probes_total').metrics.find((m) => JSON.stringify(m.labels) === JSON.stringify(labels))!.value).toBe(
        String(t.probes),
      );
      const failures = family('llm_probe_failures_total').metrics.filter(
        (m) => m.labels!.region === t.region && m.labels!.target === t.target,
      );
      expect(failures.reduce((n, m) => n + Number(m.value), 0)).toBe(t.probes - t.successes);
      const ttft = series(text, 'llm_ttft_seconds', labels);
      expect(Number(ttft.count)).toBe(t.histograms.ttft_ms.count);
      // Cumulative buckets: never decreasing, ending at the count.
      const counts = Object.entries(ttft.buckets!)
        .sort((a, b) => (a[0] === '+Inf' ? 1 : b[0] === '+Inf' ? -1 : Number(a[0]) - Number(b[0])))
        .map(([, v]) => Number(v));
      expect(counts).toEqual([...counts].sort((a, b) => a - b));
      expect(counts.at(-1)).toBe(t.histograms.ttft_ms.count);
      expect(Number(ttft.sum)).toBeCloseTo(sumOf(t.histograms.ttft_ms) / 1000, 6);
    }
    expect(text).toMatch(
      /llm_ttft_network_seconds_count\{region="weur",target="ref-chat",prompt_variant="tiny",split_source="server-timing.total"\} \d+/,
    );
  });
});

// Last: it probes a real hour of today, which the counts above do not expect.
describe('daily rollups of today', () => {
  it('a day not yet ended has no daily row (pages read its hours)', async () => {
    const today = dayOf(Date.now());
    const stamp = hourOf(Date.now()) - HOUR_MS;
    await fireCron(stamp);
    await drain(REGIONS);
    const hour = await rollupsIn(env.DB, { fromHour: stamp, toHour: stamp + HOUR_MS, methodVersion: METHOD_VERSION });
    // The hour before now has ended, so its rows exist (unless it is the first hour of today, still so).
    expect(hour.length).toBe(9);
    expect(await rollupsIn(env.DB, { fromHour: today, toHour: today + DAY_MS, resolution: 'day' })).toEqual([]);
  });

  it("keeps the recent hours' spans: each ended one holds its hours merged, an unended one is not written yet", async () => {
    // Three hours before now: within the recent days whose hours keep their spans (shared/rollup/spans.ts).
    const stamp = hourOf(Date.now()) - 3 * HOUR_MS;
    expect(stamp).toBeGreaterThanOrEqual(hourSpansFrom(Date.now()));
    await fireCron(stamp);
    await drain(REGIONS);
    let ended = 0;
    for (const span of spansOfHour(stamp)) {
      const stored = await spanRollupRows(span);
      if (pieceEnd(span) > hourOf(Date.now())) {
        expect(stored, `${span.hours} h from ${new Date(span.start).toISOString()}: not ended`).toEqual([]);
        continue;
      }
      const base = await rollupsIn(env.DB, { fromHour: span.start, toHour: pieceEnd(span), methodVersion: METHOD_VERSION });
      const sorted = (rows: Rollup[]) => rows.map(rowBytes).sort();
      expect(stored.length).toBeGreaterThan(0);
      expect(sorted(stored)).toEqual(sorted(mergeByGroup(base, span.start)));
      ended++;
    }
    // The 2-hour span of an hour three hours back has always ended.
    expect(ended).toBeGreaterThanOrEqual(1);
    // The region's mark: its spans whole through the last whole hour, or where the pass left one owed.
    const mark = Number(await env.DB.prepare("SELECT through FROM span_marks WHERE region = 'weur'").first('through'));
    expect(mark).toBeGreaterThanOrEqual(pieceEnd(spansOfHour(stamp)[0]));
    expect(mark).toBeLessThanOrEqual(hourOf(Date.now()));
  });

  it("deletes the spans of the hours of days that left the recent ones, and keeps the recent ones'", async () => {
    const old = hourSpansFrom(Date.now()) - 2 * DAY_MS + 6 * HOUR_MS;
    const recent = spansOfHour(hourOf(Date.now()) - 3 * HOUR_MS)[0];
    // A row of weur's, as a span of hours two days older than the recent ones (written by a pass before their day left
    // them), and as a recent one.
    const copy = (block: number) =>
      env.DB.prepare(
        `INSERT OR REPLACE INTO span_rollups (${SPAN_COLUMNS.join(', ')}) SELECT ?, ${SPAN_COLUMNS.slice(1).join(', ')} FROM hourly_rollups WHERE region = 'weur' LIMIT 1`,
      )
        .bind(block)
        .run();
    await copy(spanKey(old, 2));
    await copy(spanKey(recent.start, recent.hours));
    const rowsOf = async (block: number) =>
      Number(await env.DB.prepare("SELECT COUNT(*) AS n FROM span_rollups WHERE block = ? AND region = 'weur'").bind(block).first('n'));
    expect(await rowsOf(spanKey(old, 2))).toBeGreaterThan(0);
    const stub = env.REGION_PROBER.getByName('weur');
    await runInDurableObject(stub, (_instance, state: DurableObjectState) => {
      state.storage.sql.exec("DELETE FROM meta WHERE key = 'hour_spans_pruned_to'");
      return state.storage.setAlarm(Date.now());
    });
    // (Today's day stays owed until it ends: the pass itself is waited for, not an empty queue.)
    await alarmsUntil('weur', async () => (await rowsOf(spanKey(old, 2))) === 0);
    expect(await rowsOf(spanKey(old, 2))).toBe(0);
    expect(await rowsOf(spanKey(recent.start, recent.hours))).toBeGreaterThan(0);
  });
});
