/**
 * What a site build reads, and that it shows what the API answers: a database holding 90 days of hourly and
 * daily rollups and 6 hours of raw samples for the shipped configuration's size (3 regions × 5 targets × 1 prompt
 * variant, a probe every 5 minutes), 91 days of paired hours, a few days of status history and an incident. Once the
 * public views are built, the build reads each of them as an anonymous reader does (no D1 row): every request but
 * the raw samples' slice reads none, and every figure it shows is the views' own answer.
 */
import { describe, expect, it } from 'vitest';
import { SELF, env } from 'cloudflare:test';
import { collectSiteData } from '../../site/src/data/collect.ts';
import { dayOf, hourOf, mergeByGroup, rollUp } from '../../shared/rollup/rollup.ts';
import { upsertDailyRollups, upsertRollups } from '../../workers/observatory/db/rollups.ts';
import { writeSpanRollups } from './span-rollups.ts';
import { insertSamples } from '../../workers/observatory/db/samples.ts';
import { upsertPairedHourStatements } from '../../workers/observatory/db/paired.ts';
import { pairedHours } from '../../shared/rollup/paired-hours.ts';
import { hourProfiles } from '../../shared/rollup/hour-profile.ts';
import { upsertProfileStatements } from '../../workers/observatory/db/profiles.ts';
import { emptySample } from '../../shared/sample-fields.ts';
import { PERIOD_STATES } from '../../shared/status/levels.ts';
import type { PeriodCounts } from '../../shared/status/period-tally.ts';
import { writeHistory } from '../../workers/observatory/db/status-history.ts';
import { upsertIncidents } from '../../workers/observatory/db/status.ts';
import { DOWN_FIRED, opened, resolved } from '../helpers/incident-fixture.ts';
import { METHOD_VERSION } from '../../shared/constants.ts';
import { config } from './test-config.ts';
import { anonymousRowBound } from '../../shared/config/capacity.ts';
import { SITE_BUILD_VIEW_REQUESTS, SITE_UPTIME_MONTHS_MOST } from '../../shared/config/unit-costs.ts';
import { vendorStatusCosts } from '../../shared/config/vendor-status-costs.ts';
import type { StoredSample } from '../../workers/observatory/db/sample-row.ts';
import type { ChangesDoc, CompareDoc, PromptCachesDoc } from '../../shared/api-types.ts';
import { DAY_MS, HOUR_MS } from '../../shared/time.ts';

const REGIONS = config.regions.map((r) => r.code);
const TARGETS = ['t1', 't2', 't3', 't4', 't5'];
const VARIANT = config.promptVariants[0].id;
const TICK_MS = 300_000;
const BUDGET = 5_000;
/** Days of paired hours seeded (the longest view's 90, and the day its window starts in). */
const PAIRED_DAYS = 91;
const HISTORY_DAYS = 3;

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
  // The span rollups of those hours and days, as the rollup duty writes them.
  await writeSpanRollups(env.DB, REGIONS, dayOf(now) - 90 * DAY_MS, lastHour);
  // The paired comparisons' blocks of the last 91 days (the longest view's): a row per region and hour, 10 pairs each.
  const pairedOf = (hour: number) => {
    const samples = [];
    for (let t = hour; t < hour + HOUR_MS; t += TICK_MS)
      for (const region of REGIONS) for (const target of TARGETS) samples.push(sample(t, region, target));
    return pairedHours(samples);
  };
  for (let h = lastHour - PAIRED_DAYS * DAY_MS; h < lastHour; h += 24 * HOUR_MS) {
    const statements = [];
    for (let k = h; k < h + 24 * HOUR_MS && k < lastHour; k += HOUR_MS) statements.push(...upsertPairedHourStatements(env.DB, pairedOf(k)));
    await env.DB.batch(statements);
  }
  // The status history of the last HISTORY_DAYS days (an hour at noon each, every pair), and an incident of one of them.
  for (let d = 1; d <= HISTORY_DAYS; d++)
    await writeHistory(
      env.DB,
      REGIONS.flatMap((region) =>
        TARGETS.map((target, k) => ({
          hour: dayOf(now) - d * DAY_MS + 12 * HOUR_MS,
          target,
          variant: VARIANT,
          region,
          tally: {
            counts: Object.fromEntries(PERIOD_STATES.map((st, i) => [st, st === 'operational' ? 10 : (d + k + i) % 2])) as PeriodCounts,
            note: null,
            late: 0,
          },
        })),
      ),
    );
  await upsertIncidents(env.DB, [resolved(opened('t2', VARIANT, ['weur'], [DOWN_FIRED], now - 2 * DAY_MS)).incident]);
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
    const manifest = (await built.json()) as { parts: Record<string, { rows_read: number; build_ms: number; bytes: number }> };
    let viewRequests = 0;
    const fetchSite = (input: RequestInfo | URL, init?: RequestInit) => {
      if (!new Headers(init?.headers).has('authorization')) viewRequests++;
      return SELF.fetch(input as string, init);
    };
    const data = await collectSiteData('https://observatory.test', now, fetchSite, env.READ_TOKEN);
    // As many view requests as the capacity model prices a build (shared/config/capacity.ts), for the months held.
    expect(data.uptime.length).toBeLessThanOrEqual(SITE_UPTIME_MONTHS_MOST);
    expect(viewRequests).toBe(
      SITE_BUILD_VIEW_REQUESTS - (SITE_UPTIME_MONTHS_MOST - data.uptime.length) + vendorStatusCosts(config).siteBuildRequests,
    );
    console.log(
      `site build: ${data.d1_rows_read_total} D1 rows read for ${hourlyRows} hourly rollup rows stored; per request ${JSON.stringify(data.d1_rows_read)}; the views' build read (rows, ms, bytes) ${JSON.stringify(Object.fromEntries(Object.entries(manifest.parts).map(([k, v]) => [k, [v.rows_read, v.build_ms, v.bytes]])))}`,
    );
    expect(data.d1_rows_read_total).toBeLessThan(BUDGET);
    // Every request but the raw samples' slice is a view's answer: not a single D1 row.
    expect(Object.keys(data.api_requests)).toContain('samples');
    for (const [name, rows] of Object.entries(data.d1_rows_read)) if (name !== 'samples') expect(rows, name).toBe(0);
    expect(data.d1_rows_read_total).toBe(data.d1_rows_read.samples);
    // The rollups and the paired blocks are read by the views' build alone.
    for (const gone of ['rollups_hourly', 'rollups_daily', 'paired_hours', 'prompt_cache_live'])
      expect(data.d1_rows_read[gone], gone).toBeUndefined();
    const anon = async <T>(path: string): Promise<T> => {
      const r = await SELF.fetch(`https://observatory.test/api/v1${path}`);
      expect(r.status, path).toBe(200);
      expect(r.headers.get('x-view'), path).toBeTruthy();
      expect(r.headers.get('x-d1-rows-read'), path).toBe('0');
      return r.json<T>();
    };
    for (const w of data.windows) {
      for (const m of ['ttft_ms', 'server_ms', 'decode_tps'] as const) {
        const answer = await anon<{ groups: unknown[]; window: unknown }>(`/percentiles?window=${w.id}&metric=${m}&variant=${VARIANT}`);
        expect(w.percentiles[m], `${w.id} ${m}`).toEqual(answer.groups);
        expect(w.window).toEqual(answer.window);
      }
      // The timeline's points are the view's series, point by point.
      const { pointsOfSeries } = await import('../../shared/rollup/timeline.ts');
      const timeline = await anon<{ series: Parameters<typeof pointsOfSeries>[0] }>(`/timeline?window=${w.id}`);
      expect(w.history).toEqual(pointsOfSeries(timeline.series).map(({ prompt_variant: _, ...p }) => p));
    }
    // Every view is there, the 90-day one with 90 days of probes.
    const view = data.windows.find((w) => w.id === '90d')!;
    const probes = view.percentiles.ttft_ms.reduce((n, g) => n + g.samples, 0);
    expect(probes).toBeGreaterThanOrEqual(90 * 288 * 15);
    expect(data.windows.map((w) => w.id)).toEqual(['24h', '7d', '30d', '90d']);
    // The verdicts: every pair of the configured targets in every region on every figure (the families are the
    // configuration's; this database's targets are not in it), the compare views' own comparisons.
    const { PAIRED_FIGURES } = await import('../../shared/rollup/paired-hours.ts');
    const { compareFamilies } = await import('../../workers/observatory/api/compare.ts');
    const paired = data.paired[VARIANT];
    const families = compareFamilies(undefined, [VARIANT]);
    expect(paired.figures.ttfa_ms).toHaveLength(families.reduce((n, f) => n + (f.targets.length * (f.targets.length - 1)) / 2, 0));
    for (const figure of PAIRED_FIGURES) {
      const answer = await anon<CompareDoc>(`/compare?window=7d&figure=${figure}&variant=${VARIANT}`);
      expect(paired.figures[figure], figure).toEqual(answer.comparisons);
      expect(paired.window).toEqual(answer.window);
    }
    expect(data.prompt_caches).toEqual((await anon<PromptCachesDoc>('/prompt-cache?window=7d')).caches);
    // The status history, maintenance, uptime and the TTFA changes: the views' answers.
    const hours = await anon<{ rows: unknown[] }>('/status-history?resolution=hour');
    const days = await anon<{ rows: Array<{ day: string }> }>('/status-history?resolution=day');
    expect(data.status_history).toEqual({ hours: hours.rows, days: days.rows });
    expect(days.rows).toHaveLength(HISTORY_DAYS * 15);
    expect(data.maintenance).toEqual((await anon<{ windows: unknown[] }>('/maintenance')).windows);
    expect(data.uptime.length).toBeGreaterThan(0);
    for (const month of data.uptime) {
      const answer = await anon<{ month: string; from: string; to: string; rows: unknown[] }>(`/uptime?month=${month.month}`);
      expect(month).toEqual({ month: answer.month, from: Date.parse(answer.from), to: Date.parse(answer.to), rows: answer.rows });
      expect(month.rows.length).toBeGreaterThan(0);
    }
    expect(data.changes).toEqual((await anon<ChangesDoc>('/changes')).changes);
    // The incidents, with their points, and the concurrency report, the places of answer, the fidelity and the profiles.
    const incidents = await anon<{ incidents: unknown[] }>('/incidents?limit=200&points=true');
    expect(incidents.incidents).toHaveLength(1);
    expect(data.incidents).toEqual(incidents.incidents);
    const bursts = await anon<Record<string, unknown>>('/bursts');
    expect(data.bursts).toEqual({ schedule: bursts.schedule, levels: bursts.levels, runs: bursts.runs, reports: bursts.reports });
    expect(data.served).toEqual(await anon('/served-by'));
    expect(data.fidelity).toEqual(await anon('/fidelity'));
    expect(data.status).toEqual(await anon('/status'));
    const { siteProfiles } = await import('../../site/src/data/parts/profiles.ts');
    expect(data.profiles).toEqual(siteProfiles(await anon('/time-profiles')));
    // The time profiles' view: its build read a row per pair and day of the last 28 (420); every weekday's hour has 4 days.
    expect(manifest.parts.profiles.rows_read).toBe(28 * 15);
    const cells = data.profiles[VARIANT]['weur|t1'];
    expect(cells).toHaveLength(7 * 24);
    expect(cells.every((c) => c.days === 4 && c.ttft_p50 !== null)).toBe(true);
    // The compare views' builds: a region × variant's hours of the longest window each, read once (hourly rows here: this
    // database's days were written without their rollup, so none is packed; tests/workers/compare-views.test.ts reads
    // packed days). The 24 h views read the 24 hours before the last whole hour; the 7, 30 and 90 d views the 90 whole
    // days before today.
    const longest = 90 * 24;
    // (D1 counts a row past a range's end now and then, and one for the seek of the packed days.)
    expect(manifest.parts['compare-days'].rows_read).toBeGreaterThanOrEqual(REGIONS.length * longest);
    expect(manifest.parts['compare-days'].rows_read).toBeLessThanOrEqual(REGIONS.length * (longest + 2));
    expect(manifest.parts.compare.rows_read).toBeGreaterThanOrEqual(REGIONS.length * 24);
    expect(manifest.parts.compare.rows_read).toBeLessThanOrEqual(REGIONS.length * (24 + 2));
    // On this database, the heaviest requests an anonymous reader may make stay within the stated bound.
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
