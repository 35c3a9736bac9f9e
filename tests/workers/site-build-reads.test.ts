/**
 * What a site build reads, and that it shows what the API answers: a database holding 90 days of hourly and
 * daily rollups and 6 hours of raw samples for the shipped configuration's size (3 regions × 5 targets × 1 prompt
 * variant, a probe every 5 minutes). Once the public views are built, the build reads each of them as an anonymous
 * reader does (no D1 row), its figures are the views' own, and the D1 rows it reads on the live path (each API
 * response's x-d1-rows-read, summed by the build itself) stay under 5,000.
 */
import { describe, expect, it } from 'vitest';
import { SELF, env } from 'cloudflare:test';
import { collectSiteData } from '../../site/src/data/collect.ts';
import { DAY_MS, HOUR_MS, dayOf, hourOf, mergeByGroup, rollUp } from '../../shared/rollup/rollup.ts';
import { upsertDailyRollups, upsertRollups } from '../../workers/observatory/db/rollups.ts';
import { insertSamples } from '../../workers/observatory/db/samples.ts';
import { upsertPairedHourStatements } from '../../workers/observatory/db/paired.ts';
import { pairedHours } from '../../shared/rollup/paired-hours.ts';
import { hourProfiles } from '../../shared/rollup/hour-profile.ts';
import { upsertProfileStatements } from '../../workers/observatory/db/profiles.ts';
import { emptySample } from '../../shared/sample-fields.ts';
import { METHOD_VERSION } from '../../shared/constants.ts';
import { config } from './test-config.ts';
import type { StoredSample } from '../../workers/observatory/db/sample-row.ts';

const REGIONS = config.regions.map((r) => r.code);
const TARGETS = ['t1', 't2', 't3', 't4', 't5'];
const VARIANT = config.promptVariants[0].id;
const TICK_MS = 300_000;
const BUDGET = 5_000;

function sample(tick: number, region: string, target: string): StoredSample {
  const ttft = 200 + ((tick / TICK_MS) % 17) * 10;
  return {
    ...emptySample(),
    method_version: METHOD_VERSION,
    tick_id: tick,
    started_at: tick + 5,
    region,
    target,
    api: 'openai-chat',
    model: 'm',
    prompt_variant: VARIANT,
    status: 200,
    headers_ms: ttft - 20,
    first_byte_ms: ttft - 10,
    ttft_ms: ttft,
    ttfa_ms: ttft,
    total_ms: ttft + 300,
    output_tokens: 30,
    answer_tokens: 30,
    tpot_ms: 10,
    decode_tps: 100,
    itl_p99_ms: 12,
    chunks: 30,
    network_ms: 20,
    server_ms: ttft - 20,
    split_source: 'rtt',
    timeline: [ttft, ttft + 10],
    simulated: true,
    backfill: false,
    late: false,
    tick_position: null,
  };
}

/** The samples of one hour for every group, rolled up (the same rows stand for every seeded hour). */
function hourRows(hour: number) {
  const samples = [];
  for (let t = hour; t < hour + HOUR_MS; t += TICK_MS)
    for (const region of REGIONS) for (const target of TARGETS) samples.push(sample(t, region, target));
  return rollUp(samples);
}

async function seed(now: number): Promise<number> {
  const lastHour = hourOf(now);
  let hourly = 0;
  // Hourly rows for 90 days (what a 90-day window would read without daily rows), 24 hours a batch.
  for (let day = dayOf(now) - 90 * DAY_MS; day <= dayOf(now); day += DAY_MS) {
    const rows = [];
    for (let h = day; h < day + DAY_MS && h < lastHour; h += HOUR_MS) rows.push(...hourRows(h).map((r) => ({ ...r, hour: h })));
    await upsertRollups(env.DB, rows);
    hourly += rows.length;
    if (day < dayOf(now)) {
      const one = hourRows(day);
      const dayHours = Array.from({ length: 24 }, (_, h) => one.map((r) => ({ ...r, hour: day + h * HOUR_MS }))).flat();
      // The daily rows, and (for the last 28 days) the day's time profiles, as rollUpDay writes them.
      const profiles = day >= dayOf(now) - 28 * DAY_MS ? upsertProfileStatements(env.DB, hourProfiles(dayHours, day)) : [];
      await upsertDailyRollups(env.DB, mergeByGroup(dayHours, day), profiles);
    }
  }
  // The paired comparisons' blocks of the last 8 days (the build reads 7): a row per region and hour, 10 pairs each.
  const pairedOf = (hour: number) => {
    const samples = [];
    for (let t = hour; t < hour + HOUR_MS; t += TICK_MS)
      for (const region of REGIONS) for (const target of TARGETS) samples.push(sample(t, region, target));
    return pairedHours(samples);
  };
  for (let h = lastHour - 8 * DAY_MS; h < lastHour; h += 24 * HOUR_MS) {
    const statements = [];
    for (let k = h; k < h + 24 * HOUR_MS && k < lastHour; k += HOUR_MS) statements.push(...upsertPairedHourStatements(env.DB, pairedOf(k)));
    await env.DB.batch(statements);
  }
  // Raw samples of the last 3 hours (the slice the build reads) and of the 3 hours before (which it must not).
  for (let t = Math.floor((now - 6 * HOUR_MS) / TICK_MS) * TICK_MS; t <= now; t += TICK_MS) {
    await insertSamples(
      env.DB,
      REGIONS.flatMap((region) => TARGETS.map((target) => sample(t, region, target))),
    );
  }
  return hourly;
}

describe('a site build', () => {
  it(`reads under ${BUDGET} D1 rows for the 90-day views of 3 regions × 5 targets`, async () => {
    const now = Date.now();
    const hourlyRows = await seed(now);
    // 90 whole days of 15 pairs, and today's ended hours (none in the hour after midnight UTC).
    expect(hourlyRows).toBeGreaterThanOrEqual(90 * 24 * 15);
    const built = await SELF.fetch('https://observatory.test/api/v1/views', {
      method: 'POST',
      headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` },
    });
    expect(built.status, await built.clone().text()).toBe(200);
    const manifest = (await built.json()) as { parts: Record<string, { rows_read: number }> };
    const fetchSite = (input: RequestInfo | URL, init?: RequestInit) => SELF.fetch(input as string, init);
    const data = await collectSiteData('https://observatory.test', now, fetchSite, env.READ_TOKEN);
    console.log(
      `site build: ${data.d1_rows_read_total} D1 rows read for ${hourlyRows} hourly rollup rows stored; per request ${JSON.stringify(data.d1_rows_read)}; the views' build read ${JSON.stringify(Object.fromEntries(Object.entries(manifest.parts).map(([k, v]) => [k, v.rows_read])))}`,
    );
    expect(data.d1_rows_read_total).toBeLessThan(BUDGET);
    // Every figure of the windows comes from a view: read without a single D1 row, and equal to the view's answer.
    for (const name of Object.keys(data.api_requests).filter((n) => /^(percentiles|timeline)_.+_(24h|7d|30d|90d)$/.test(n)))
      expect(data.d1_rows_read[name], name).toBe(0);
    for (const w of data.windows) {
      for (const m of ['ttft_ms', 'server_ms', 'decode_tps'] as const) {
        const answer = (await (
          await SELF.fetch(`https://observatory.test/api/v1/percentiles?window=${w.id}&metric=${m}&variant=${VARIANT}`)
        ).json()) as {
          groups: unknown[];
          window: unknown;
        };
        expect(w.percentiles[m], `${w.id} ${m}`).toEqual(answer.groups);
        expect(w.window).toEqual(answer.window);
      }
    }
    // Every view is there, the 90-day one with 90 days of probes.
    const view = data.windows.find((w) => w.id === '90d')!;
    const probes = view.percentiles.ttft_ms.reduce((n, g) => n + g.samples, 0);
    expect(probes).toBeGreaterThanOrEqual(90 * 288 * 15);
    expect(data.windows.map((w) => w.id)).toEqual(['24h', '7d', '30d', '90d']);
    // The rollups themselves: the hourly ones not at all (the views hold what they gave), the daily ones once, for the
    // TTFA changes and the uptime's TTFT: a row per group and day, in pages of whole days.
    expect(data.d1_rows_read.rollups_hourly).toBeUndefined();
    expect(data.d1_rows_read.rollups_daily).toBeLessThan(90 * 15 * 1.05);
    // The paired blocks: a row per region and hour of the last 7 days, in pages of whole hours (one row past a full page's end).
    const { PAIRED_PAGE_ROWS, SITE_PAIRED_DAYS } = await import('../../shared/config/read-limits.ts');
    const { pagedRowsRead } = await import('../../shared/config/capacity.ts');
    const pairedRows = REGIONS.length * SITE_PAIRED_DAYS * 24;
    expect(data.d1_rows_read.paired_hours).toBe(pagedRowsRead(SITE_PAIRED_DAYS * 24, REGIONS.length, PAIRED_PAGE_ROWS));
    expect(data.d1_rows_read.paired_hours).toBeLessThan(pairedRows * 1.01);
    // … and the build's verdicts come from them: every pair of the 5 targets in every region, on every figure.
    const paired = data.paired[VARIANT];
    expect(paired.figures.ttfa_ms).toHaveLength(REGIONS.length * 10);
    expect(paired.figures.ttfa_ms.every((c) => c.hours === SITE_PAIRED_DAYS * 24)).toBe(true);
    // The time profiles: from their view (its build read a row per pair and day of the last 28: 420); every weekday's
    // hour has 4 days.
    expect(data.d1_rows_read.time_profiles).toBe(0);
    expect(manifest.parts.profiles.rows_read).toBe(28 * 15);
    const cells = data.profiles[VARIANT]['weur|t1'];
    expect(cells).toHaveLength(7 * 24);
    expect(cells.every((c) => c.days === 4 && c.ttft_p50 !== null)).toBe(true);
    // On this database, the heaviest requests an anonymous reader may make stay within the stated bound.
    const { anonymousRowBound } = await import('../../shared/config/capacity.ts');
    const { config } = await import('./test-config.ts');
    const reads: Record<string, number> = {};
    for (const path of [
      '/api/v1/rollups?resolution=hour&window=31d',
      '/api/v1/rollups?resolution=day&window=366d',
      '/api/v1/percentiles?source=rollups&window=60d&by=region,target,prompt_variant&region=weur',
      '/api/v1/percentiles?source=raw&window=24h&by=region,target,prompt_variant,split_source',
    ]) {
      const r = await SELF.fetch(`https://observatory.test${path}`);
      expect(r.status, path).toBe(200);
      reads[path] = Number(r.headers.get('x-d1-rows-read'));
    }
    // The bound for what this database holds: its regions × targets (the rows are there whatever the config says).
    const bound = anonymousRowBound({
      ...config,
      bursts: undefined,
      regions: REGIONS.map((code) => ({ code, label: code, locationHint: 'weur' as const })),
      targets: TARGETS.map((id) => ({ ...config.targets[0], id, regions: undefined, promptVariants: undefined, bursts: undefined })),
    });
    console.log(`anonymous requests on 90 days of rollups: ${JSON.stringify(reads)}; bound ${bound.rows} (${bound.request})`);
    for (const [path, rows] of Object.entries(reads)) expect(rows, path).toBeLessThanOrEqual(bound.rows);
  }, 300_000);
});
