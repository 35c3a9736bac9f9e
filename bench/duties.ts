/**
 * CPU time of each duty a Worker invocation does, at the free-plan goal's scale (6 regions × 10
 * targets, a tick every 5 minutes), on the same code the Workers run, with D1's rows encoded and
 * decoded as they are stored (the queries' own time is D1's, not the Worker's CPU; the issue-33 section below
 * also counts D1's response, which workerd's D1 client parses on the Worker's CPU). Each duty is held
 * to half of the CPU its invocation gets: a free-plan Worker request (the read API) 10 ms; a Durable
 * Object request or alarm (rollups, status, notifications) 30 s (Cloudflare's Durable Objects limits).
 *
 *   npm run bench:duties            # or: node bench/duties.ts --json
 */
import { PAIRED_FIGURES } from '../shared/rollup/paired-hours.ts';
import { asRow } from './stored-rows.ts';
import type { PairedFamily } from '../shared/rollup/paired-families.ts';
import { ttfaChanges } from '../shared/rollup/changes.ts';
import {
  buildCompareViews,
  compareViewRequests,
  familyCovering,
  liveFamily,
  liveFamilyBefore,
  packedFamily,
  publishWeek,
  regionRows,
} from './compare-views.ts';
import { rollUp, mergeByGroup, applyToTotals, type RollupSample } from '../shared/rollup/rollup.ts';
import { storedFigurePercentileGroups, type StoredFigureRow } from '../shared/rollup/percentiles.ts';
import { evaluate, type WindowSample } from '../shared/status/evaluate.ts';
import { resolveStatusRules } from '../shared/status/rules.ts';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { percentile } from '../shared/stats/percentile.ts';
import { forgetCiRanks } from '../shared/stats/percentile-ci.ts';
import { bodyValues, fromRollupRow } from '../workers/observatory/db/rollup-row.ts';
import { prometheusText } from '../workers/observatory/api/prometheus.ts';
import { SAMPLE_COLUMNS, toRowValues } from '../workers/observatory/db/sample-row.ts';
import { samplesParquet } from '../shared/archive/parquet-file.ts';
import { archiveSamples } from '../tests/helpers/archive-samples.ts';
import { webhookSignature } from '../workers/observatory/notify/webhook-signature.ts';
import { rollupToBase64Json, rollupToJson } from '../shared/rollup/rollup.ts';
import {
  CHANGE_PAIRS_PER_REQUEST,
  COMPARISONS_PER_REQUEST,
  PERCENTILE_ROW_UNITS,
  ROLLUP_PAGE_ROWS,
  TIMELINE_ROW_UNITS,
} from '../shared/config/read-limits.ts';
import { percentileView, viewRequests } from './view-serving.ts';
import { storedView, viewAnswer } from '../workers/observatory/views/view-answer.ts';
import {
  parseIncidentsBody,
  StatuspageTooLargeError,
  VENDOR_BODY_MAX_BYTES,
  VENDOR_MAX_LISTED_COMPONENTS,
  VENDOR_MAX_LISTED_ENTRIES,
  VENDOR_MAX_LISTED_INCIDENTS,
  VENDOR_MAX_LISTED_UPDATES,
} from '../shared/status/statuspage.ts';
import { craftedIncidentsList, realisticIncidentsList } from '../tests/helpers/statuspage-fixtures.ts';
import { timelineView } from './timeline-view.ts';
import { timelineDoc } from '../shared/rollup/timeline.ts';
import { filterViewText } from '../shared/views/view-text.ts';
import { historyKeysFor, incidentLines } from '../workers/observatory/views/status-lists.ts';
import { INCIDENT_LIMIT } from '../workers/observatory/api/incident-docs.ts';
import { historyViewTexts, incidentViewText } from './status-view-texts.ts';
import { checkSameAnswer, lendNativeHex, mergeDuties, VIEWS_OF_AN_HOUR_MS, type PairedDuty } from './merge-duties.ts';
import { DAY_MS, HOUR_MS } from '../shared/time.ts';
import { DAILY_COMPARE_WINDOWS, HOURLY_COMPARE_WINDOWS } from '../shared/views/windows.ts';

/** CPU one invocation gets, by where the duty runs. */
const CPU_MS = {
  'read API (Worker, free plan)': 10,
  'read API (Worker, paid plan)': 30_000,
  'Durable Object alarm or request': 30_000,
} as const;
type RunsIn = keyof typeof CPU_MS;
const REGIONS = ['weur', 'eeur', 'enam', 'wnam', 'apac', 'oc'];
const TARGETS = Array.from({ length: 10 }, (_, k) => `target-${k + 1}`);
const HOUR = HOUR_MS;
const DAY = DAY_MS;
const TICKS_PER_HOUR = 12;
const HOUR0 = Date.UTC(2026, 0, 10, 12);

// A fixed pseudo-random sequence, so every run measures the same work.
let seed = 42;
const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;

/** A normal deviate (Box–Muller), for latencies spread as they are: log-normal around each target's own level. */
const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
const levelOf = (target: string) => 150 + 70 * TARGETS.indexOf(target);

function sample(region: string, target: string, tick: number): RollupSample {
  const failed = random() < 0.03;
  const ttft = levelOf(target) * Math.exp(0.3 * normal());
  const network = 20 + random() * 80;
  return {
    tick_id: tick,
    region,
    target,
    prompt_variant: 'chat',
    method_version: 2,
    error: failed ? 'http' : null,
    split_source: failed ? null : 'server-timing.total',
    ttft_ms: failed ? null : ttft,
    ttfa_ms: failed ? null : ttft + random() * 30,
    total_ms: failed ? null : ttft + 600 * Math.exp(0.2 * normal()),
    tpot_ms: failed ? null : 8 * Math.exp(0.15 * normal()),
    decode_tps: failed ? null : 80 + random() * 40,
    itl_p99_ms: failed ? null : 30 * Math.exp(0.4 * normal()),
    network_ms: failed ? null : network,
    server_ms: failed ? null : Math.max(ttft - network, 1),
  } as unknown as RollupSample;
}

const samplesOfHour = (region: string, hour: number) =>
  TARGETS.flatMap((t) => Array.from({ length: TICKS_PER_HOUR }, (_, k) => sample(region, t, hour + k * 300_000)));
/** A value made when first asked for: each duty's process makes only the rows that duty reads. */
function once<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

// The rows each duty reads.
const hourRows = once(() => REGIONS.flatMap((region) => rollUp(samplesOfHour(region, HOUR0))));
const regionDayRows = once(() =>
  Array.from({ length: 24 }, (_, h) => rollUp(samplesOfHour('weur', HOUR0 - 12 * HOUR + h * HOUR)))
    .flat()
    .map((r) => asRow(r, 'hour')),
);
/** A whole day of one region's probes (288 ticks a pair), rolled up into one row a pair: the histograms a daily row holds. */
const samplesOfDay = (region: string) =>
  TARGETS.flatMap((t) => Array.from({ length: 24 * TICKS_PER_HOUR }, (_, k) => ({ ...sample(region, t, HOUR0), tick_id: HOUR0 + k })));
const dayRows = once(() => REGIONS.flatMap((region) => rollUp(samplesOfDay(region))));
const dailyRows90 = once(() =>
  Array.from({ length: 90 }, (_, d) => dayRows().map((r) => asRow({ ...r, hour: HOUR0 - d * DAY }, 'day'))).flat(),
);
const edgeHourRows = once(() =>
  Array.from({ length: 46 }, (_, h) => REGIONS.flatMap((region) => rollUp(samplesOfHour(region, HOUR0 + h * HOUR))))
    .flat()
    .map((r) => asRow(r, 'hour')),
);
// Running totals hold every hour so far: their histograms are at least as wide as a day's.
const totalsRows = once(() => dayRows().map((r) => asRow(r, 'hour')));
const rules = resolveStatusRules({});
const lookbackTicks = 12;
const windows = once((): WindowSample[][] =>
  TARGETS.map((t) => Array.from({ length: lookbackTicks }, (_, k) => sample('weur', t, HOUR0 + k * 300_000) as unknown as WindowSample)),
);
const baseline = { source: 'same-hour-7d' as const, n: 500, ttft_p99: 1_200, decode_p50: 100, network_p50: 60, server_p50: 400 };
const KEYS = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw whsec_b3RoZXIta2V5LW5vdC10aGUtc2lua3M=';
const message = JSON.stringify({
  delivery_id: 'inc-1:opened:hook',
  type: 'incident.opened',
  text: 'x'.repeat(600),
  incident: { regions: REGIONS, rules: ['ttft', 'errors'] },
});

/** Rows of the TTFT column alone, a row a period: the key, the counts and the figure's stored bytes (storedFigurePercentileGroups). */
const figureRows = (rows: Array<Record<string, unknown>>): StoredFigureRow[] =>
  rows.map(
    (r) =>
      ({
        region: r.region,
        target: r.target,
        prompt_variant: r.prompt_variant,
        probes: r.probes,
        successes: r.successes,
        figure: r.ttft_ms,
      }) as StoredFigureRow,
  );

/** One region's stored paired rows at the goal (10 targets, 45 pairs a row): a week, and the longest view's 90 days and a day. */
const FAMILY: PairedFamily = { region: 'weur', prompt_variant: 'chat', targets: TARGETS };
const pairedWeek = once(() => regionRows(TARGETS, 7 * 24, HOUR0));
const paired91 = once(() => regionRows(TARGETS, 91 * 24, HOUR0));
const paired14 = once(() => regionRows(TARGETS, 14 * 24, HOUR0));
/** The same rows once their days are packed (migrations/0020_paired_days.sql): a week's. */
const packedWeek = once(() => packedFamily(pairedWeek()));
/** Every region's family (the same rows each, as a read per family gives them). */
const goalFamilies = REGIONS.map((region) => ({ ...FAMILY, region }));
/** What the compare parts read at the goal: the 24 h views' hours, and the whole days of the 7, 30 and 90 d ones. */
const hourlyCompareRows = once(() => familyCovering(paired91(), HOURLY_COMPARE_WINDOWS, HOUR0));
const dailyCompareRows = once(() => familyCovering(paired91(), DAILY_COMPARE_WINDOWS, HOUR0));
const compareTexts = once(() => buildCompareViews(goalFamilies, paired91(), HOUR0, false, dailyCompareRows(), DAILY_COMPARE_WINDOWS));
const compareAnswers = once(() =>
  compareViewRequests(compareTexts()[compareTexts().length - PAIRED_FIGURES.length], HOUR0, 'apac', TARGETS[2], TARGETS[6]),
);
/** The TTFA changes' 35 days of daily rows of `series` region × target series, as D1 holds them. */
const changeRowsOf = (series: number) =>
  dailyRows90().filter((r, i) => i % dayRows().length < series && (r.day as number) >= HOUR0 - 35 * DAY);

/** A region's day as the archive reads it from D1 (archive-duty.ts): 10 targets × 288 ticks, each answer 64 token reads. */
const regionDayStored = once(() =>
  Array.from({ length: 5 }, (_, k) =>
    archiveSamples('weur', HOUR0 - 12 * HOUR, 24 * TICKS_PER_HOUR).map((s, i) => ({
      ...s,
      target: `${s.target}-${k}`,
      timeline: s.error ? [] : Array.from({ length: 64 }, (_, t) => 450 + t * 16 + ((i + t * 37) % 33)),
    })),
  )
    .flat()
    .map((s) => Object.fromEntries(SAMPLE_COLUMNS.map((c, i) => [c, toRowValues(s)[i]]))),
);

/** The largest percentile view at the goal, and the answers of an anonymous request from it (bench/view-serving.ts). */
const goalView = once(() => percentileView(dailyRows90().map(fromRollupRow), HOUR0 - 90 * DAY, HOUR0));
const viewAnswers = once(() => viewRequests(goalView(), 'apac', 'target-7'));
/** The largest timeline view at the goal (90 d, every pair: 60 series of 90 days), and the answers from it (bench/timeline-view.ts). */
const timelineAnswers = once(() =>
  viewRequests(timelineView(dailyRows90().map(fromRollupRow), HOUR0 - 90 * DAY, HOUR0), 'apac', 'target-7'),
);

/** A vendor's incidents.json body as the poller receives it (at most VENDOR_BODY_MAX_BYTES). */
const vendorBody = (make: () => unknown) => once(() => new TextEncoder().encode(JSON.stringify(make())));
/** The poller alarm's reading of a body (vendor-status-poller.ts): decoded, parsed, counted, read; a refusal costs its parse and count. */
function readVendorBody(body: Uint8Array): number {
  try {
    return parseIncidentsBody(body).incidents.length;
  } catch (e) {
    if (e instanceof StatuspageTooLargeError) return -1;
    throw e;
  }
}
const VENDOR_CAPS = { incidents: VENDOR_MAX_LISTED_INCIDENTS, entries: VENDOR_MAX_LISTED_ENTRIES };
const vendorBodies = {
  real: vendorBody(() => realisticIncidentsList()),
  tiny: vendorBody(() => craftedIncidentsList.tinyIncidents(VENDOR_BODY_MAX_BYTES)),
  updates: vendorBody(() => craftedIncidentsList.manyUpdates(VENDOR_BODY_MAX_BYTES)),
  components: vendorBody(() => craftedIncidentsList.manyComponents(VENDOR_BODY_MAX_BYTES)),
  capsUpdates: vendorBody(() =>
    craftedIncidentsList.underCaps(VENDOR_BODY_MAX_BYTES, { ...VENDOR_CAPS, perList: VENDOR_MAX_LISTED_UPDATES }, 'updates'),
  ),
  capsComponents: vendorBody(() =>
    craftedIncidentsList.underCaps(VENDOR_BODY_MAX_BYTES, { ...VENDOR_CAPS, perList: VENDOR_MAX_LISTED_COMPONENTS }, 'components'),
  ),
};

// The status family's views (views/history-views.ts, incident-views.ts) as stored, and one narrowed as serve-view.ts
// answers it: its lines kept, the body encoded.
const historyTexts = once(() => historyViewTexts(REGIONS, TARGETS, HOUR0));
/** The 90 days' view as the gate holds it: its stored bytes (a whole answer sends them as they are). */
const historyDaysView = once(() =>
  storedView({ name: 'status-history/day/90d', bytes: new TextEncoder().encode(historyTexts().days), hash: '0', builtAt: HOUR0 }),
);
const incidentText = once(() => incidentViewText(REGIONS, TARGETS, HOUR0));
type LineFilter = { keys: number; keep: (keys: readonly string[]) => boolean };
const served = (text: string, f: LineFilter) => new TextEncoder().encode(filterViewText(text, f.keys, f.keep)).byteLength;
/** The history lines of these targets or regions, read for the keys they narrow (views/status-lists.ts). */
const historyLines = (n: { targets?: string[]; regions?: string[] }): LineFilter => ({
  keys: historyKeysFor(n).keys.length,
  keep: (k) => (!n.targets || n.targets.includes(k[0])) && (!n.regions || n.regions.includes(k[1])),
});

/** `each`: every run is also timed on its own, for the p99 of one answer (what one request costs at worst). */
const DUTIES: Array<{ name: string; runsIn: RunsIn; run: () => unknown; each?: boolean }> = [
  {
    name: 'a view answered whole (90 d TTFT, 60 groups)',
    runsIn: 'read API (Worker, free plan)',
    run: () => viewAnswers().whole(),
    each: true,
  },
  {
    name: 'a view answered narrowed to one region',
    runsIn: 'read API (Worker, free plan)',
    run: () => viewAnswers().region(),
    each: true,
  },
  {
    name: 'a view answered narrowed to one region × target',
    runsIn: 'read API (Worker, free plan)',
    run: () => viewAnswers().pair(),
    each: true,
  },
  {
    name: 'a view answered 304 (If-None-Match)',
    runsIn: 'read API (Worker, free plan)',
    run: () => viewAnswers().notModified(),
    each: true,
  },
  {
    name: 'a timeline view to one region (90 d, 60 series)',
    runsIn: 'read API (Worker, free plan)',
    run: () => timelineAnswers().region(),
    each: true,
  },
  {
    // api/timeline.ts at its cap (TIMELINE_ROW_UNITS): a point a daily row, its counts, errors and TTFT p50 and p95.
    name: `the live timeline of ${TIMELINE_ROW_UNITS.free} daily rows`,
    runsIn: 'read API (Worker, free plan)',
    run: () =>
      timelineDoc(
        dailyRows90().slice(0, TIMELINE_ROW_UNITS.free).map(fromRollupRow),
        { from: HOUR0 - 90 * DAY, to: HOUR0, resolution: 'day' },
        false,
        2,
      ).series.length,
  },
  {
    // archive-duty.ts: a region's ended day of raw samples (2,880 rows at the goal) encoded as its Snappy Parquet file.
    name: "a region's day archived as Parquet (2,880 samples)",
    runsIn: 'Durable Object alarm or request',
    run: () => samplesParquet(regionDayStored()).byteLength,
  },
  {
    // rollup-hour.ts: the hour's samples (this region's 10 targets × 12 ticks), the previous rows and totals decoded, new rows encoded.
    name: 'hourly rollup of one region',
    runsIn: 'Durable Object alarm or request',
    run: () => {
      const fresh = rollUp(samplesOfHour('weur', HOUR0));
      const previous = fresh.map((r) => fromRollupRow(asRow(r, 'hour')));
      const totals = applyToTotals(
        previous.map((r) => ({ ...r })),
        previous,
        fresh,
      );
      return [...fresh, ...totals].map(bodyValues).length;
    },
  },
  {
    name: 'daily rollup of one region',
    runsIn: 'Durable Object alarm or request',
    run: () => mergeByGroup(regionDayRows().map(fromRollupRow), HOUR0).map(bodyValues).length,
  },
  {
    name: 'status evaluation of one region',
    runsIn: 'Durable Object alarm or request',
    run: () => windows().map((w) => evaluate(w, HOUR0 + 11 * 300_000, baseline, rules)).length,
  },
  {
    // The most a free-plan percentile request merges (PERCENTILE_ROW_UNITS) in daily rows: any window of about 70 pairs (shared/rollup/spans.ts).
    // Each group's count is seen for the first time (the isolate's cache of exact interval ranks emptied).
    name: `percentiles from ${PERCENTILE_ROW_UNITS.free} daily rows`,
    runsIn: 'read API (Worker, free plan)',
    run: () =>
      forgetCiRanks() ??
      storedFigurePercentileGroups(figureRows(dailyRows90().slice(0, PERCENTILE_ROW_UNITS.free)), ['region', 'target']).length,
  },
  {
    // The everyday question at the cap: 7 days of every region × target, 7 daily rows and 12 edge hours a pair.
    name: 'percentiles over 7 days (12 edge hours), every pair',
    runsIn: 'read API (Worker, free plan)',
    run: () =>
      forgetCiRanks() ??
      storedFigurePercentileGroups(
        figureRows([
          ...dailyRows90().slice(0, 7 * REGIONS.length * TARGETS.length),
          ...edgeHourRows().slice(0, 12 * REGIONS.length * TARGETS.length),
        ]),
        ['region', 'target'],
      ).length,
  },
  {
    // The site build reads 90 days of daily rows (every region × target) in pages of whole days, histograms as stored bytes.
    name: `a page of daily rollups, base64 (${ROLLUP_PAGE_ROWS.base64} rows)`,
    runsIn: 'read API (Worker, free plan)',
    run: () => JSON.stringify(dailyRows90().slice(0, ROLLUP_PAGE_ROWS.base64).map(fromRollupRow).map(rollupToBase64Json)).length,
  },
  {
    name: `a page of daily rollups, JSON (${ROLLUP_PAGE_ROWS.json} rows)`,
    runsIn: 'read API (Worker, free plan)',
    run: () => JSON.stringify(dailyRows90().slice(0, ROLLUP_PAGE_ROWS.json).map(fromRollupRow).map(rollupToJson)).length,
  },
  {
    name: '/metrics?region=… (10 pairs)',
    runsIn: 'read API (Worker, free plan)',
    run: () => prometheusText(totalsRows().slice(0, TARGETS.length).map(fromRollupRow)).length,
  },
  {
    name: '/metrics, every pair (6 × 10)',
    runsIn: 'read API (Worker, free plan)',
    run: () => prometheusText(totalsRows().map(fromRollupRow)).length,
  },
  {
    // api/compare.ts of one region's family at the goal, a week of blocks: its 6 packed days' bytes and a day of edge hours'
    // JSON read, its 45 pairs decoded, each comparison's block length fitted and its interval's order statistics counted, Holm, each interval
    // again at its level.
    name: `GET /api/v1/compare: one family (${COMPARISONS_PER_REQUEST.free} pairs), 7 d`,
    runsIn: 'read API (Worker, free plan)',
    run: () => liveFamily(FAMILY, packedWeek()),
  },
  {
    // views/compare-views.ts at the goal, the part built with each hour's rollups: 6 families × 45 pairs from the 24
    // hours before the last whole hour, 5 figures, and the 5 views' texts (what its build spends besides its reads).
    name: 'build: the compare views of an hour (24 h, 6 × 45 pairs)',
    runsIn: 'Durable Object alarm or request',
    run: () => buildCompareViews(goalFamilies, paired91(), HOUR0, false, hourlyCompareRows(), HOURLY_COMPARE_WINDOWS).length,
  },
  {
    // The part built once a day, when a region writes a day's rollups: the 7, 30 and 90 d views over the 90 whole days
    // before today (packed days), 3 windows × 5 figures.
    name: 'build: the compare views of a day (7, 30, 90 d, 6 × 45 pairs)',
    runsIn: 'Durable Object alarm or request',
    run: () => buildCompareViews(goalFamilies, paired91(), HOUR0, false, dailyCompareRows(), DAILY_COMPARE_WINDOWS).length,
  },
  {
    // reports/publish.ts at the goal, in the view builder's object (views/public-views.ts publishReport): 6 families ×
    // 45 pairs, two weeks of hourly rows each, both weeks on every figure, leaders and changes, the text and SHA-256.
    name: 'publish: a weekly report (6 × 45 pairs, 2 weeks)',
    runsIn: 'Durable Object alarm or request',
    run: () => publishWeek(goalFamilies, paired14(), HOUR0),
  },
  {
    name: 'view: compare 90 d TTFA whole (270 pairs)',
    runsIn: 'read API (Worker, free plan)',
    run: () => compareAnswers().whole(),
    each: true,
  },
  {
    name: 'view: compare 90 d TTFA, one region',
    runsIn: 'read API (Worker, free plan)',
    run: () => compareAnswers().region(),
    each: true,
  },
  {
    name: 'view: compare 90 d TTFA, one region × pair',
    runsIn: 'read API (Worker, free plan)',
    run: () => compareAnswers().pair(),
    each: true,
  },
  {
    // api/changes.ts at its cap: 35 daily rows a series decoded, each day's median and the two windows' merged.
    name: `GET /api/v1/changes: ${CHANGE_PAIRS_PER_REQUEST.free} series of 35 days`,
    runsIn: 'read API (Worker, free plan)',
    run: () => ttfaChanges(changeRowsOf(CHANGE_PAIRS_PER_REQUEST.free).map(fromRollupRow), HOUR0).length,
  },
  {
    name: 'build: the TTFA changes view (60 series of 35 days)',
    runsIn: 'Durable Object alarm or request',
    run: () => ttfaChanges(changeRowsOf(dayRows().length).map(fromRollupRow), HOUR0).length,
  },
  {
    // GET /api/v1/status-history?target=…&region=… over 90 days: the target's own view of them (540 lines).
    name: 'view: status history 90 d, one target and region',
    runsIn: 'read API (Worker, free plan)',
    run: () => served(historyTexts().oneTarget, historyLines({ targets: [TARGETS[2]], regions: ['weur'] })),
  },
  {
    // GET /api/v1/status-history: the 90 days whole (5,400 lines, about 1 MB, the largest view of the status family),
    // served as stored: its body encoded, no line read.
    name: 'view: status history 90 d whole, as stored',
    runsIn: 'read API (Worker, free plan)',
    run: () => viewAnswer(historyDaysView(), { view: 'status-history/day/90d' }, 'GET', null, HOUR0).body!.length,
  },
  {
    // Two targets at once: the whole 90 days read line by line, each line for its first key (the target).
    name: 'view: status history 90 d whole, two targets',
    runsIn: 'read API (Worker, free plan)',
    run: () => served(historyTexts().days, historyLines({ targets: [TARGETS[2], TARGETS[5]] })),
  },
  {
    name: 'view: status history 24 h (1,440 lines), one region',
    runsIn: 'read API (Worker, free plan)',
    run: () => served(historyTexts().hours, historyLines({ regions: ['weur'] })),
  },
  {
    // GET /api/v1/incidents?points=true: the first 50 of 260 incidents (two a week a target), 100 points each.
    name: 'view: incidents with points, the first 50 of 260',
    runsIn: 'read API (Worker, free plan)',
    run: () => served(incidentText(), incidentLines(undefined, undefined, INCIDENT_LIMIT.fallback)),
  },
  {
    name: 'a signed webhook delivery',
    runsIn: 'Durable Object alarm or request',
    run: () => webhookSignature(KEYS, 'inc-1:opened:hook', HOUR0, message).length,
  },
  // The vendor status poller's alarm reading one page's body (vendor-status-poller.ts); the cron only hands it the tick.
  {
    // A busy vendor's list as large as real ones run: 50 incidents, 6 updates and 6 components each, 530 KB.
    name: 'vendor status: a real 530 KB page read',
    runsIn: 'Durable Object alarm or request',
    run: () => readVendorBody(vendorBodies.real()),
  },
  {
    // Crafted bodies just under the byte cap, refused by their counts: 19,783 tiny incidents; one incident with
    // 16,639 updates; one with 55,174 components.
    name: 'vendor status: 1 MiB of tiny incidents, refused',
    runsIn: 'Durable Object alarm or request',
    run: () => readVendorBody(vendorBodies.tiny()),
  },
  {
    name: 'vendor status: 1 MiB of updates, refused',
    runsIn: 'Durable Object alarm or request',
    run: () => readVendorBody(vendorBodies.updates()),
  },
  {
    name: 'vendor status: 1 MiB of components, refused',
    runsIn: 'Durable Object alarm or request',
    run: () => readVendorBody(vendorBodies.components()),
  },
  {
    // The most a 1 MiB body may list within the count caps and be read: 34 incidents of 500 updates each (17,034 entries),
    // or 250 incidents of 79 distinct components each (20,000 entries, of which the kept 50 incidents' first names are read).
    name: 'vendor status: the most within the caps, updates',
    runsIn: 'Durable Object alarm or request',
    run: () => readVendorBody(vendorBodies.capsUpdates()),
  },
  {
    name: 'vendor status: the most within the caps, components',
    runsIn: 'Durable Object alarm or request',
    run: () => readVendorBody(vendorBodies.capsComponents()),
  },
];

// Issue 33's merge figures, today's code beside the code before it on the same rows (bench/merge-duties.ts).
lendNativeHex();
/**
 * The compare views' share of the views of an hour (VIEWS_OF_AN_HOUR_MS): what the percentile views leave of it
 * (about 60 ms of the 100 at the goal, 'every percentile view of an hour' above).
 */
const COMPARE_BUILD_MS = 40;
const PAIRED: PairedDuty[] = [
  ...mergeDuties({
    dailyRows90,
    edgeHourRows,
    totalsRows,
    pairs: REGIONS.length * TARGETS.length,
    readBudgetMs: CPU_MS['read API (Worker, free plan)'] / 2,
  }),
  // Issue 33's paired comparisons: today's columns beside the block objects before them (tests/helpers/paired-reference.ts),
  // the same rows from their JSON on, bit-identical answers (tests/shared/stats/paired-equivalence.test.ts).
  {
    name: `GET /api/v1/compare: one family (${COMPARISONS_PER_REQUEST.free} pairs), 7 d`,
    budgetMs: CPU_MS['read API (Worker, free plan)'] / 2,
    budgetOf: 'read API (Worker, free plan)',
    before: () => liveFamilyBefore(FAMILY, pairedWeek()),
    now: () => liveFamily(FAMILY, packedWeek()),
  },
  {
    // Before: every window (24 h, 7, 30, 90 d, each to the last whole hour) rebuilt with each hour's rollups; now: the
    // 24 h views each hour (the 7, 30 and 90 d ones, whole days, once a day: 'build: the compare views of a day' above).
    // Their 24 h views answer alike.
    name: 'the compare views of an hour (6 × 45 pairs, 5 figures: before 4 windows, now 24 h)',
    budgetMs: COMPARE_BUILD_MS,
    budgetOf: `Durable Object alarm (issue 33: its share of ${VIEWS_OF_AN_HOUR_MS} ms)`,
    before: () => buildCompareViews(goalFamilies, paired91(), HOUR0, true),
    now: () => buildCompareViews(goalFamilies, paired91(), HOUR0, false, hourlyCompareRows(), HOURLY_COMPARE_WINDOWS),
    alike: () => [
      buildCompareViews(goalFamilies, paired91(), HOUR0, true).slice(0, PAIRED_FIGURES.length),
      buildCompareViews(goalFamilies, paired91(), HOUR0, false, hourlyCompareRows(), HOURLY_COMPARE_WINDOWS),
    ],
  },
];

/**
 * CPU of this thread alone, as a Worker's limit counts its isolate's thread: the process's figure would add
 * V8's own helper threads (concurrent marking, compilation), which no invocation is billed for.
 */
function cpuMs(): number {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1000;
}

const ROUNDS = 15;
const ROUND_MS = 40;
type Row = {
  duty: string;
  runsIn: RunsIn;
  medianMs: number;
  p90Ms: number;
  /** For a duty timed run by run: the p99 of one run. */
  p99EachMs?: number;
  budgetMs: number;
  withinHalf: boolean;
};
/**
 * Runs timed one by one for a duty's p99: by the monotonic clock (the thread's CPU clock ticks too coarsely for a
 * run this short; the runs do no I/O and nothing else runs on this thread, so the two agree).
 */
const EACH_RUNS = 2_000;

/**
 * One round of a duty: the thread's clock ticks in milliseconds, so a round repeats the duty for at least
 * ROUND_MS of it, and reports the mean (its garbage collection included, as an invocation pays for it).
 */
function roundMs(run: () => unknown): number {
  const t = cpuMs();
  let runs = 0;
  let spent = 0;
  do {
    run();
    runs++;
    spent = cpuMs() - t;
  } while (spent < ROUND_MS);
  return spent / runs;
}

/** One duty measured in this process, which made only that duty's rows: a heap about an isolate's size. */
function measure(d: (typeof DUTIES)[number]): Row {
  for (let i = 0; i < 3; i++) d.run(); // warm-up
  const times: number[] = [];
  for (let r = 0; r < ROUNDS; r++) times.push(roundMs(d.run));
  const medianMs = percentile(times, 0.5)!;
  const budgetMs = CPU_MS[d.runsIn] / 2;
  let p99EachMs: number | undefined;
  if (d.each) {
    const each: number[] = [];
    for (let i = 0; i < EACH_RUNS; i++) {
      const t = performance.now();
      d.run();
      each.push(performance.now() - t);
    }
    p99EachMs = percentile(each, 0.99)!;
  }
  return {
    duty: d.name,
    runsIn: d.runsIn,
    medianMs,
    p90Ms: percentile(times, 0.9)!,
    ...(p99EachMs !== undefined ? { p99EachMs } : {}),
    budgetMs,
    withinHalf: medianMs <= budgetMs,
  };
}

type PairedRow = {
  duty: string;
  budgetOf: string;
  budgetMs: number;
  before: { medianMs: number; p90Ms: number };
  now: { medianMs: number; p90Ms: number };
};

/** A paired duty in this process: its two sides checked to answer alike, then timed in alternating rounds. */
function measurePair(d: PairedDuty): PairedRow {
  checkSameAnswer(d);
  // warm-up
  for (let i = 0; i < 2; i++) {
    d.before();
    d.now();
  }
  const before: number[] = [];
  const now: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    // Alternating which side goes first, so neither always follows the other's garbage.
    if (r % 2 === 0) {
      before.push(roundMs(d.before));
      now.push(roundMs(d.now));
    } else {
      now.push(roundMs(d.now));
      before.push(roundMs(d.before));
    }
  }
  const of = (times: number[]) => ({ medianMs: percentile(times, 0.5)!, p90Ms: percentile(times, 0.9)! });
  return { duty: d.name, budgetOf: d.budgetOf, budgetMs: d.budgetMs, before: of(before), now: of(now) };
}

const only = process.argv.indexOf('--duty');
if (only >= 0) {
  console.log(JSON.stringify(measure(DUTIES[Number(process.argv[only + 1])])));
  process.exit(0);
}
// --profile N: the CPU profile of paired duty N's `now` side alone (its rows made first), written to duty-N.cpuprofile.
const profile = process.argv.indexOf('--profile');
if (profile >= 0) {
  const d = PAIRED[Number(process.argv[profile + 1])];
  for (let i = 0; i < 3; i++) d.now();
  const { Session } = await import('node:inspector/promises');
  const { writeFileSync } = await import('node:fs');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  const t = cpuMs();
  while (cpuMs() - t < 3_000) d.now();
  const { profile: taken } = await session.post('Profiler.stop');
  writeFileSync(`duty-${process.argv[profile + 1]}.cpuprofile`, JSON.stringify(taken));
  process.exit(0);
}
const pair = process.argv.indexOf('--pair');
if (pair >= 0) {
  console.log(JSON.stringify(measurePair(PAIRED[Number(process.argv[pair + 1])])));
  process.exit(0);
}
// Each duty in a process of its own, one after another: one duty's rows never weigh on another's garbage collection.
const rows: Row[] = DUTIES.map(
  (_, i) => JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--duty', String(i)], { encoding: 'utf8' })) as Row,
);

const pairedRows: PairedRow[] = PAIRED.map(
  (_, i) =>
    JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--pair', String(i)], { encoding: 'utf8' })) as PairedRow,
);

/**
 * The views of an hour all told, now: the percentile views and the 24 h compare views each hour, and a 24th of the
 * compare views of a day (built once a day); before: the percentile and compare views of every window each hour.
 */
const median = (name: string, side: 'before' | 'now') => pairedRows.find((r) => r.duty.startsWith(name))![side].medianMs;
const dailyCompare = rows.find((r) => r.duty.startsWith('build: the compare views of a day'))!;
const viewsOfAnHour = {
  beforeMs: median('every percentile view of an hour', 'before') + median('the compare views of an hour', 'before'),
  nowMs: median('every percentile view of an hour', 'now') + median('the compare views of an hour', 'now'),
  dailyMs: dailyCompare.medianMs,
  perHourMs: median('every percentile view of an hour', 'now') + median('the compare views of an hour', 'now') + dailyCompare.medianMs / 24,
  goalMs: VIEWS_OF_AN_HOUR_MS,
};

if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ node: process.version, rounds: ROUNDS, rows, paired: pairedRows, viewsOfAnHour }));
} else {
  console.log(
    `CPU ms per duty at 6 regions × 10 targets (median and p90 of ${ROUNDS} rounds of at least ${ROUND_MS} ms each, this thread's CPU, node ${process.version}), against half the CPU its invocation gets`,
  );
  console.log(
    `a daily row's TTFT histogram holds ${Math.round(dayRows().reduce((n, r) => n + r.histograms.ttft_ms.buckets.size, 0) / dayRows().length)} buckets on average; an hourly row's ${Math.round(hourRows().reduce((n, r) => n + r.histograms.ttft_ms.buckets.size, 0) / hourRows().length)}`,
  );
  console.log(`${'duty'.padEnd(52)} ${'median'.padStart(8)} ${'p90'.padStart(8)}  runs in, budget`);
  for (const r of rows)
    console.log(
      `${r.duty.padEnd(52)} ${r.medianMs.toFixed(2).padStart(8)} ${r.p90Ms.toFixed(2).padStart(8)}  ${r.runsIn}, ${r.budgetMs} ms: ${r.withinHalf ? 'within' : 'OVER'}${r.p99EachMs !== undefined ? `; one answer's p99 ${r.p99EachMs.toFixed(3)} ms (${EACH_RUNS} timed alone)` : ''}`,
    );
  const view = goalView();
  console.log(`the largest percentile view at the goal: ${Math.round(view.text.length / 1024)} KiB`);
  console.log(`the largest timeline view at the goal: ${Math.round(timelineAnswers().whole() / 1024)} KiB`);
  console.log(
    `\nissue 33, merging: today's code beside the code before it, same rows, alternating rounds in one process, from D1's response on (the JSON workerd's D1 client parses, the BLOBs, the merge; hex decoded natively, as workerd does, by Node's Buffer)`,
  );
  console.log(`${'duty'.padEnd(80)} ${'before'.padStart(8)} ${'now'.padStart(8)} ${'p90'.padStart(8)} ${'ratio'.padStart(6)}  budget`);
  for (const r of pairedRows)
    console.log(
      `${r.duty.padEnd(80)} ${r.before.medianMs.toFixed(2).padStart(8)} ${r.now.medianMs.toFixed(2).padStart(8)} ${r.now.p90Ms.toFixed(2).padStart(8)} ${(r.now.medianMs / r.before.medianMs).toFixed(2).padStart(6)}  ${r.budgetOf}, ${r.budgetMs} ms: ${r.now.medianMs <= r.budgetMs ? 'within' : 'OVER'}`,
    );
  const v = viewsOfAnHour;
  console.log(
    `\nthe public views' build, per hour: before ${v.beforeMs.toFixed(0)} ms (every window each hour); now ${v.nowMs.toFixed(0)} ms each hour (percentiles, 24 h compare) and ${v.dailyMs.toFixed(0)} ms once a day (7, 30, 90 d compare): ${v.perHourMs.toFixed(0)} ms an hour all told, against ${v.goalMs} ms: ${v.nowMs <= v.goalMs ? 'within' : 'OVER'} each hour`,
  );
}
