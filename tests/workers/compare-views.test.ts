/**
 * The views of the paired comparisons, the prompt caches and the TTFA changes: real ticks rolled up by the regions,
 * beside what months of them leave behind written through the rollups' own writers (90 days of paired hours in every
 * region, a week of a prompt cache's hours, 35 days of daily rollups with one target slower this week). Built by the
 * admin route; then every anonymous GET and HEAD is answered from a view (0 D1 rows, cacheable, 304) and equals the
 * live answer a token holder gets for the same window, whole and narrowed; and a narrowed answer's intervals are the
 * whole answer's (Holm's family is one region × variant × figure, whatever the filters).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { env } from 'cloudflare:workers';
import type { ChangesDoc, CompareDoc, PromptCachesDoc } from '../../shared/api-types.ts';
import { METHOD_VERSION } from '../../shared/constants.ts';
import { cacheHours, type CacheSample } from '../../shared/rollup/cache-hours.ts';
import { PAIRED_FIGURES, pairedHours } from '../../shared/rollup/paired-hours.ts';
import { dayOf, mergeByGroup, rollUp, type RollupSample } from '../../shared/rollup/rollup.ts';
import { CONFIDENCE } from '../../shared/stats/paired.ts';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../shared/time.ts';
import { DAILY_COMPARE_WINDOWS, HOURLY_COMPARE_WINDOWS, VIEW_WINDOWS } from '../../shared/views/windows.ts';
import { storedList } from '../../workers/observatory/config.ts';
import { upsertCacheHourStatements } from '../../workers/observatory/db/cache.ts';
import { pairedRowsIn, upsertPairedHourStatements } from '../../workers/observatory/db/paired.ts';
import { compareFamilies, parsedRowsOf } from '../../workers/observatory/api/compare.ts';
import { familySeries, familySeriesComparisons } from '../../shared/rollup/paired-families.ts';
import { upsertDailyRollups } from '../../workers/observatory/db/rollups.ts';
import { PROMPT_CACHE_VIEW_WINDOWS } from '../../workers/observatory/views/prompt-cache-views.ts';
import { expectFromView, viewQueries } from '../helpers/view-queries.ts';
import { alarmsUntil, drain } from './drain.ts';
import { fireCron } from './fire-cron.ts';
import { config } from './test-config.ts';
import { buildViews, fromView, get, live } from './view-answers.ts';

const TICK_MS = 5 * MINUTE_MS;
const now = Date.now();
const lastHour = Math.floor(now / HOUR_MS) * HOUR_MS;
const today = dayOf(now);
const regions = config.regions.map((r) => r.code);
const VARIANT = config.promptVariants[0].id;
// Real ticks in the two hours before the last whole hour, and one two days ago (its day is rolled up).
const ticks = [lastHour - 2 * HOUR_MS + 10 * TICK_MS, lastHour - HOUR_MS + TICK_MS, lastHour - 50 * HOUR_MS];
/** The hours the seeded paired blocks fill: 90 days and a day before the real ticks' hours. */
const PAIRED_FROM = today - 91 * DAY_MS;
const PAIRED_TO = lastHour - 3 * HOUR_MS;
/** Each target's level: the first clearly fastest, two alike, one slow (where it runs). */
const LEVEL: Record<string, number> = { 'ref-chat': 100, 'ref-messages': 125, 'ref-broken': 127, 'ref-no-key': 180 };
const CACHE_TARGET = 'ref-messages';
/** The target slower this week (by a third) in weur, for the changes. */
const SLOWER = 'ref-chat';

function sample(tick: number, region: string, target: string, ttfa: number, variant = VARIANT): RollupSample & CacheSample {
  return {
    tick_id: tick,
    region,
    target,
    prompt_variant: variant,
    method_version: METHOD_VERSION,
    error: null,
    split_source: null,
    ttft_ms: ttfa,
    ttfa_ms: ttfa,
    tpot_ms: 10 + (LEVEL[target] ?? 100) / 50,
    server_ms: ttfa - 20,
    network_ms: 20,
    cache_pass: null,
    cached_tokens: null,
  } as unknown as RollupSample & CacheSample;
}

/** A path both share each tick (up to ±30 %) and a little of each target's own. */
const noisy = (k: number, target: string) =>
  (LEVEL[target] ?? 100) * (1 + 0.3 * Math.sin(k * 1.7)) * (1 + 0.04 * Math.sin(k * 2.9 + target.length));

async function seedPairedHours(): Promise<void> {
  let statements: D1PreparedStatement[] = [];
  for (let h = PAIRED_FROM; h < PAIRED_TO; h += HOUR_MS) {
    const samples = [];
    // Three ticks an hour are plenty for an hour's median.
    for (let k = 0; k < 3; k++)
      for (const region of regions)
        for (const w of storedList(region)) {
          const tick = h + k * TICK_MS;
          samples.push(sample(tick, region, w.target.id, noisy(tick / TICK_MS, w.target.id)));
        }
    statements.push(...upsertPairedHourStatements(env.DB, pairedHours(samples)));
    if (statements.length >= 300) {
      await env.DB.batch(statements);
      statements = [];
    }
  }
  if (statements.length > 0) await env.DB.batch(statements);
}

/** A week and a day of one target's prompt cache in two regions: the second pass 40 % faster. */
async function seedCacheHours(): Promise<void> {
  const samples: CacheSample[] = [];
  for (let h = lastHour - 8 * DAY_MS; h < lastHour - 3 * HOUR_MS; h += HOUR_MS)
    for (const region of ['weur', 'enam'])
      for (let k = 0; k < 2; k++) {
        const tick = h + k * TICK_MS;
        const first = noisy(tick / TICK_MS, CACHE_TARGET) * 3;
        samples.push({ ...sample(tick, region, CACHE_TARGET, first, 'cache'), cache_pass: 1, cached_tokens: 0 });
        samples.push({ ...sample(tick, region, CACHE_TARGET, first * 0.6, 'cache-warm'), cache_pass: 2, cached_tokens: 1_024 });
      }
  const rows = cacheHours(samples);
  for (let i = 0; i < rows.length; i += 200) await env.DB.batch(upsertCacheHourStatements(env.DB, rows.slice(i, i + 200)));
}

/** 35 days of daily rollups of each region × target (but the real tick's day): 24 probes a day, one target slower this week. */
async function seedDailyRollups(): Promise<void> {
  for (let day = today - 35 * DAY_MS; day < today; day += DAY_MS) {
    if (day === dayOf(ticks[2])) continue;
    const samples = [];
    for (let k = 0; k < 24; k++)
      for (const region of regions)
        for (const w of storedList(region)) {
          const tick = day + k * TICK_MS;
          const slower = region === 'weur' && w.target.id === SLOWER && day >= today - 7 * DAY_MS ? 4 / 3 : 1;
          samples.push(sample(tick, region, w.target.id, noisy(tick / TICK_MS + day / DAY_MS, w.target.id) * slower));
        }
    await upsertDailyRollups(env.DB, mergeByGroup(rollUp(samples), day));
  }
}

let parts: Record<string, { views: number; bytes: number; rows_read: number }>;

beforeAll(async () => {
  await seedPairedHours();
  await seedCacheHours();
  await seedDailyRollups();
  for (const t of ticks) await fireCron(t);
  await drain(regions);
  for (const region of regions) {
    const stub = env.REGION_PROBER.getByName(region);
    await alarmsUntil(region, async () => {
      const s = await stub.status();
      return s.pendingEvaluations === 0 && s.lastRollupError === null;
    });
  }
  parts = await buildViews();
}, 240_000);

const VIEW_QUERIES = viewQueries(regions, ['ref-chat', 'ref-messages'], VARIANT).filter((q) =>
  /\/api\/v1\/(compare|prompt-cache|changes)/.test(q),
);
const span = (doc: { window: { from: string; to: string } }) => `from=${Date.parse(doc.window.from)}&to=${Date.parse(doc.window.to)}`;
const liveJson = async <T>(path: string): Promise<T> => {
  const r = await live(path);
  expect(r.headers.get('x-view'), path).toBeNull();
  expect(r.status, `${path}: ${await r.clone().text()}`).toBe(200);
  return r.json<T>();
};

describe('the compare views', () => {
  it('answer every anonymous GET and HEAD they hold from a view, cacheable', async () => {
    expect(VIEW_QUERIES.length).toBeGreaterThan(10);
    for (const path of VIEW_QUERIES) await expectFromView(get, path);
  });

  it('equal the live comparisons over the same window: every window and figure, per region (a family each)', async () => {
    for (const w of VIEW_WINDOWS)
      for (const figure of PAIRED_FIGURES) {
        const whole = await fromView<CompareDoc>(`/api/v1/compare?window=${w.id}&figure=${figure}`);
        // weur's 4 targets (6 pairs), enam's and apac's 3 (3 pairs each).
        expect(whole.comparisons, `${w.id} ${figure}`).toHaveLength(12);
        for (const region of regions) {
          const view = await fromView<CompareDoc>(`/api/v1/compare?window=${w.id}&figure=${figure}&region=${region}`);
          expect(view.comparisons).toEqual(whole.comparisons.filter((c) => c.region === region));
          expect(view, `${w.id} ${figure} ${region}`).toEqual(
            await liveJson(`/api/v1/compare?${span(view)}&figure=${figure}&region=${region}`),
          );
        }
      }
    // The seeded blocks are there: 90 days of hours in the 90-day view, and a verdict that the data carry.
    const year = await fromView<CompareDoc>('/api/v1/compare?window=90d&region=weur');
    const fastest = year.comparisons.find((c) => c.a === 'ref-chat' && c.b === 'ref-no-key')!;
    // Every seeded hour in the window, but the one the real tick two days ago rolled up again (ref-no-key failed in it).
    const [from, to] = [Date.parse(year.window.from), Date.parse(year.window.to)];
    const seeded = (Math.min(PAIRED_TO, to) - Math.max(PAIRED_FROM, from)) / HOUR_MS;
    expect(seeded).toBeGreaterThanOrEqual(90 * 24 - 3);
    expect(fastest.hours).toBeGreaterThanOrEqual(seeded - 1);
    expect(fastest.hours).toBeLessThanOrEqual(seeded);
    expect(fastest.verdict).toBe('a_faster');
  });

  it('keep every interval when narrowed: the family is the region × variant × figure, whatever the targets named', async () => {
    for (const w of VIEW_WINDOWS) {
      const whole = await fromView<CompareDoc>(`/api/v1/compare?window=${w.id}&region=weur`);
      const two = await fromView<CompareDoc>(`/api/v1/compare?window=${w.id}&target=ref-chat,ref-messages`);
      // A pair kept when both its targets are named: that pair in every region, its figures the whole answer's.
      expect(two.comparisons.map((c) => `${c.region} ${c.a} ${c.b}`)).toEqual(regions.map((r) => `${r} ref-chat ref-messages`));
      expect(two.comparisons.find((c) => c.region === 'weur')).toEqual(
        whole.comparisons.find((c) => c.a === 'ref-chat' && c.b === 'ref-messages'),
      );
      // The live route narrowed the same way gives the same numbers.
      expect(two).toEqual(await liveJson(`/api/v1/compare?${span(two)}&target=ref-chat,ref-messages&region=${regions.join(',')}`));
    }
    // Holm across weur's 6 pairs: the smallest p-value is judged at 1 − α/6, named alone or not (a family of the named
    // pair alone would judge it at 95 %).
    const all = await fromView<CompareDoc>('/api/v1/compare?window=7d&region=weur');
    const least = all.comparisons.reduce((x, c) => ((c.p_value ?? 1) < (x.p_value ?? 1) ? c : x));
    expect(least.confidence).toBeCloseTo(1 - (1 - CONFIDENCE) / 6, 12);
    const alone = await fromView<CompareDoc>(`/api/v1/compare?window=7d&region=weur&target=${least.a},${least.b}`);
    expect(alone.comparisons).toEqual([least]);
    expect(alone).toEqual(await liveJson(`/api/v1/compare?${span(alone)}&region=weur&target=${least.a},${least.b}`));
  });

  it('answer the variant asked, the first by default', async () => {
    const named = await fromView<CompareDoc>(`/api/v1/compare?variant=${VARIANT}`);
    const plain = await fromView<CompareDoc>('/api/v1/compare');
    expect(plain).toEqual(named);
    expect(plain.comparisons.every((c) => c.prompt_variant === VARIANT)).toBe(true);
  });

  it('leave what they do not hold to the live path, and a bad value is the route’s 400', async () => {
    for (const path of ['/api/v1/compare?window=6h&region=weur', '/api/v1/compare?window=7d&region=weur&margin=10']) {
      const r = await get(path);
      expect(r.status, path).toBe(200);
      expect(r.headers.get('x-view'), path).toBeNull();
    }
    for (const path of ['/api/v1/compare?window=7d&figure=ttft_p99', '/api/v1/compare?region=mars'])
      expect((await get(path)).status, path).toBe(400);
  });

  it('give the numbers the hourly rows alone give, from packed days (a D1 row a day)', async () => {
    // Every region's past days were packed when its rollups first ran (the seeding of a database from before them).
    const { results } = await env.DB.prepare('SELECT region, count(*) AS days FROM paired_days GROUP BY region ORDER BY region').all<{
      region: string;
      days: number;
    }>();
    expect(results.map((r) => r.region)).toEqual([...regions].sort());
    for (const r of results) expect(r.days, r.region).toBeGreaterThanOrEqual(90);
    for (const w of VIEW_WINDOWS)
      for (const f of compareFamilies()) {
        const view = await fromView<CompareDoc>(`/api/v1/compare?window=${w.id}&figure=total_chat&region=${f.region}`);
        const from = Date.parse(view.window.from);
        const to = Date.parse(view.window.to);
        const hourly = await pairedRowsIn(env.DB, { fromHour: from, toHour: to, methodVersion: METHOD_VERSION, regions: [f.region] });
        const rows = parsedRowsOf(hourly, f);
        expect(rows.length, `${w.id} ${f.region}`).toBeGreaterThanOrEqual(Math.round((to - from) / HOUR_MS) - 3);
        const alone = familySeriesComparisons(f, familySeries(f, rows, ['total_chat']), ['total_chat']).get('total_chat');
        expect(view.comparisons, `${w.id} ${f.region}`).toEqual(alone);
      }
  });

  it('were built from a region × variant’s packed days of the longest window each, and its edges’ hours: the rows read said', () => {
    // The 24 h views, with each hour's rollups: 3 regions × the 24 hours before the last whole hour (hourly rows; an
    // hour may hold no paired row).
    expect(parts.compare.rows_read).toBeGreaterThanOrEqual(regions.length * (24 - 1));
    expect(parts.compare.rows_read).toBeLessThanOrEqual(regions.length * (24 + 2));
    expect(parts.compare.views).toBe(HOURLY_COMPARE_WINDOWS.length * PAIRED_FIGURES.length);
    // The 7, 30 and 90 d views, once a day: 3 regions × the 90 whole days before today, packed (a row a day, and no
    // hour of today: their windows end at 00:00 UTC).
    expect(parts['compare-days'].rows_read).toBeGreaterThanOrEqual(regions.length * (90 - 1));
    expect(parts['compare-days'].rows_read).toBeLessThanOrEqual(regions.length * (90 + 2));
    expect(parts['compare-days'].views).toBe(DAILY_COMPARE_WINDOWS.length * PAIRED_FIGURES.length);
  });

  it('of 7, 30 and 90 days cover whole days, to 00:00 UTC today; the 24 h one ends at the last whole hour', async () => {
    for (const w of VIEW_WINDOWS) {
      const doc = await fromView<CompareDoc>(`/api/v1/compare?window=${w.id}`);
      expect(Date.parse(doc.window.to), w.id).toBe(w.id === '24h' ? lastHour : today);
      expect(Date.parse(doc.window.from), w.id).toBe(w.id === '24h' ? lastHour - DAY_MS : today - w.days * DAY_MS);
    }
  });
});

describe('the prompt-cache views', () => {
  it('equal the live answer in each window they hold, whole and narrowed by region and target', async () => {
    for (const window of PROMPT_CACHE_VIEW_WINDOWS) {
      const whole = await fromView<PromptCachesDoc>(`/api/v1/prompt-cache?window=${window}`);
      expect(whole.caches.map((c) => `${c.region} ${c.target} ${c.prompt_variant}`)).toEqual([
        `enam ${CACHE_TARGET} cache`,
        `weur ${CACHE_TARGET} cache`,
      ]);
      expect(whole).toEqual(await liveJson(`/api/v1/prompt-cache?${span(whole)}`));
      const weur = await fromView<PromptCachesDoc>(`/api/v1/prompt-cache?window=${window}&region=weur&target=${CACHE_TARGET}`);
      expect(weur.caches).toEqual(whole.caches.filter((c) => c.region === 'weur'));
      expect(weur).toEqual(await liveJson(`/api/v1/prompt-cache?${span(weur)}&region=weur&target=${CACHE_TARGET}`));
      expect((await fromView<PromptCachesDoc>(`/api/v1/prompt-cache?window=${window}&target=ref-chat`)).caches).toEqual([]);
    }
    const week = await fromView<PromptCachesDoc>('/api/v1/prompt-cache');
    expect(week.caches[0].ttft.verdict).toBe('faster');
    expect(week.caches[0].ttft.discount_pct!).toBeCloseTo(40, 0);
  });

  it('leave the other windows and margins to the live path', async () => {
    for (const path of ['/api/v1/prompt-cache?window=30d&region=weur', '/api/v1/prompt-cache?margin=10&region=weur'])
      expect((await get(path)).headers.get('x-view'), path).toBeNull();
  });
});

describe('the TTFA changes view', () => {
  it('equals the live answer, whole and narrowed, and flags the target slower this week', async () => {
    const whole = await fromView<ChangesDoc>('/api/v1/changes');
    // The whole grid is more than a free-plan request judges live: each region's answer is the whole one's flags of it.
    expect((await live('/api/v1/changes')).status).toBe(400);
    for (const region of regions) {
      const answer = await liveJson<ChangesDoc>(`/api/v1/changes?region=${region}`);
      expect(answer).toEqual({ ...whole, changes: whole.changes.filter((c) => c.region === region) });
    }
    const slower = whole.changes.find((c) => c.region === 'weur' && c.target === SLOWER)!;
    expect(slower).toMatchObject({ direction: 'slower', prompt_variant: VARIANT });
    expect(slower.change_pct).toBeCloseTo(100 / 3, -1);
    // This week's days but the real ticks' (each such day holds too few probes to count): just after midnight UTC the
    // two recent ticks fall in yesterday, a whole day of the week, not in today.
    const tickDays = new Set(ticks.map(dayOf).filter((d) => d >= today - 7 * DAY_MS && d < today));
    expect(tickDays.size).toBeGreaterThanOrEqual(1);
    expect(slower.now.days).toBe(7 - tickDays.size);
    // Nothing else moved.
    expect(whole.changes).toHaveLength(1);
    expect(whole.window.to).toBe(new Date(today).toISOString());
    for (const path of [
      `/api/v1/changes?region=weur&target=${SLOWER}`,
      '/api/v1/changes?region=enam',
      `/api/v1/changes?region=apac&variant=${VARIANT}`,
    ]) {
      const narrowed = await fromView<ChangesDoc>(path);
      const q = new URL(`https://x${path}`).searchParams;
      expect(narrowed.changes, path).toEqual(
        whole.changes.filter(
          (c) =>
            (!q.get('region') || c.region === q.get('region')) &&
            (!q.get('target') || c.target === q.get('target')) &&
            (!q.get('variant') || c.prompt_variant === q.get('variant')),
        ),
      );
      expect(narrowed, path).toEqual(await liveJson(path));
    }
    // Its build read the 35 days' daily rows once.
    expect(parts.changes.rows_read).toBeGreaterThan(0);
    expect(parts.changes.rows_read).toBeLessThanOrEqual(35 * regions.reduce((n, r) => n + storedList(r).length, 0));
  });
});
