/**
 * CPU time of each duty a Worker invocation does, at the free-plan goal's scale (6 regions × 10
 * targets, a tick every 5 minutes), on the same code the Workers run, with D1's rows encoded and
 * decoded as they are stored (the queries' own time is D1's, not the Worker's CPU). Each duty is held
 * to half of the CPU its invocation gets: a free-plan Worker request (the read API) 10 ms; a Durable
 * Object request or alarm (rollups, status, notifications) 30 s (Cloudflare's Durable Objects limits).
 *
 *   npm run bench:duties            # or: node bench/duties.ts --json
 */
import { rollUp, mergeByGroup, applyToTotals, type Rollup, type RollupSample } from '../shared/rollup.ts';
import { rollupPercentileGroups } from '../shared/rollup-percentiles.ts';
import { evaluate, type WindowSample } from '../shared/status/evaluate.ts';
import { resolveStatusRules } from '../shared/status/rules.ts';
import { percentile } from '../shared/stats/percentile.ts';
import { bodyValues, fromRollupRow } from '../workers/observatory/db/rollup-row.ts';
import { prometheusText } from '../workers/observatory/api/prometheus.ts';
import { webhookSignature } from '../workers/observatory/notify/webhook-signature.ts';
import { ROLLUP_METRICS, rollupToJson } from '../shared/rollup.ts';

/** CPU one invocation gets, by where the duty runs. */
const CPU_MS = { 'read API (Worker, free plan)': 10, 'Durable Object alarm or request': 30_000 } as const;
type RunsIn = keyof typeof CPU_MS;
const REGIONS = ['weur', 'eeur', 'enam', 'wnam', 'apac', 'oc'];
const TARGETS = Array.from({ length: 10 }, (_, k) => `target-${k + 1}`);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const TICKS_PER_HOUR = 12;
const HOUR0 = Date.UTC(2026, 0, 10, 12);

// A fixed pseudo-random sequence, so every run measures the same work.
let seed = 42;
const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);

function sample(region: string, target: string, tick: number): RollupSample {
  const failed = random() < 0.03;
  const ttft = 150 + random() * 900;
  const network = 20 + random() * 80;
  return {
    tick_id: tick, region, target, prompt_variant: 'chat', method_version: 2, error: failed ? 'http' : null, split_source: failed ? null : 'server-timing.total',
    ttft_ms: failed ? null : ttft, ttfa_ms: failed ? null : ttft + random() * 30, total_ms: failed ? null : ttft + 600, tpot_ms: failed ? null : 8 + random() * 4,
    decode_tps: failed ? null : 80 + random() * 40, itl_p99_ms: failed ? null : 30 + random() * 60, network_ms: failed ? null : network, server_ms: failed ? null : ttft - network,
  } as unknown as RollupSample;
}

const samplesOfHour = (region: string, hour: number) => TARGETS.flatMap((t) => Array.from({ length: TICKS_PER_HOUR }, (_, k) => sample(region, t, hour + k * 300_000)));
/** A rollup as its D1 row: the stored columns, histograms as bytes. */
function asRow(r: Rollup, period: 'hour' | 'day'): Record<string, unknown> {
  const [probes, successes, errors, ...rest] = bodyValues(r);
  const row: Record<string, unknown> = { [period]: r.hour, region: r.region, target: r.target, prompt_variant: r.prompt_variant, method_version: r.method_version, probes, successes, errors };
  ROLLUP_METRICS.forEach((m, i) => (row[m] = rest[i]));
  row.split = rest[ROLLUP_METRICS.length];
  return row;
}

// The rows each duty reads, made once.
const hourRows = REGIONS.flatMap((region) => rollUp(samplesOfHour(region, HOUR0)));
const regionDayRows = Array.from({ length: 24 }, (_, h) => rollUp(samplesOfHour('weur', HOUR0 - 12 * HOUR + h * HOUR))).flat().map((r) => asRow(r, 'hour'));
const dailyRows90 = Array.from({ length: 90 }, (_, d) => REGIONS.flatMap((region) => rollUp(samplesOfHour(region, HOUR0 - d * DAY)).map((r) => ({ ...r, hour: HOUR0 - d * DAY })))).flat().map((r) => asRow(r, 'day'));
const edgeHourRows = Array.from({ length: 46 }, (_, h) => REGIONS.flatMap((region) => rollUp(samplesOfHour(region, HOUR0 + h * HOUR)))).flat().map((r) => asRow(r, 'hour'));
const totalsRows = hourRows.map((r) => asRow(r, 'hour'));
const rules = resolveStatusRules({});
const lookbackTicks = 12;
const windows: WindowSample[][] = TARGETS.map((t) => Array.from({ length: lookbackTicks }, (_, k) => sample('weur', t, HOUR0 + k * 300_000) as unknown as WindowSample));
const baseline = { source: 'same-hour-7d' as const, n: 500, ttft_p99: 1_200, decode_p50: 100, network_p50: 60, server_p50: 400 };
const KEYS = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw whsec_b3RoZXIta2V5LW5vdC10aGUtc2lua3M=';
const message = JSON.stringify({ delivery_id: 'inc-1:opened:hook', type: 'incident.opened', text: 'x'.repeat(600), incident: { regions: REGIONS, rules: ['ttft', 'errors'] } });

const DUTIES: Array<{ name: string; runsIn: RunsIn; run: () => unknown }> = [
  {
    // rollup-hour.ts: the hour's samples (this region's 10 targets × 12 ticks), the previous rows and totals decoded, new rows encoded.
    name: 'hourly rollup of one region',
    runsIn: 'Durable Object alarm or request',
    run: () => {
      const fresh = rollUp(samplesOfHour('weur', HOUR0));
      const previous = fresh.map((r) => fromRollupRow(asRow(r, 'hour')));
      const totals = applyToTotals(previous.map((r) => ({ ...r })), previous, fresh);
      return [...fresh, ...totals].map(bodyValues).length;
    },
  },
  { name: 'daily rollup of one region', runsIn: 'Durable Object alarm or request', run: () => mergeByGroup(regionDayRows.map(fromRollupRow), HOUR0).map(bodyValues).length },
  { name: 'status evaluation of one region', runsIn: 'Durable Object alarm or request', run: () => windows.map((w) => evaluate(w, HOUR0 + 11 * 300_000, baseline, rules)).length },
  {
    // The site build's heaviest: 90 days of daily rows and the edge hours, every region × target, decoded and merged.
    name: 'percentiles over 90 days, every pair',
    runsIn: 'read API (Worker, free plan)',
    run: () => rollupPercentileGroups([...dailyRows90, ...edgeHourRows].map(fromRollupRow), 'ttft_ms', ['region', 'target']).length,
  },
  {
    // The site build's largest read: 90 days of daily rows (every region × target), as JSON.
    name: "the site build's 90-day rollups",
    runsIn: 'read API (Worker, free plan)',
    run: () => JSON.stringify(dailyRows90.map(fromRollupRow).map(rollupToJson)).length,
  },
  { name: '/metrics', runsIn: 'read API (Worker, free plan)', run: () => prometheusText(totalsRows.map(fromRollupRow)).length },
  { name: 'a signed webhook delivery', runsIn: 'Durable Object alarm or request', run: () => webhookSignature(KEYS, 'inc-1:opened:hook', HOUR0, message).length },
];

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

const ROUNDS = 15;
const rows: Array<{ duty: string; runsIn: RunsIn; medianMs: number; p90Ms: number; budgetMs: number; withinHalf: boolean }> = [];
for (const d of DUTIES) {
  for (let i = 0; i < 3; i++) d.run(); // warm-up
  const times: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t = cpuMs();
    d.run();
    times.push(cpuMs() - t);
  }
  const medianMs = percentile(times, 0.5)!;
  const budgetMs = CPU_MS[d.runsIn] / 2;
  rows.push({ duty: d.name, runsIn: d.runsIn, medianMs, p90Ms: percentile(times, 0.9)!, budgetMs, withinHalf: medianMs <= budgetMs });
}

if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ node: process.version, rounds: ROUNDS, rows }));
} else {
  console.log(`CPU ms per duty at 6 regions × 10 targets (median and p90 of ${ROUNDS}, node ${process.version}), against half the CPU its invocation gets`);
  console.log(`${'duty'.padEnd(40)} ${'median'.padStart(8)} ${'p90'.padStart(8)}  runs in, budget`);
  for (const r of rows) console.log(`${r.duty.padEnd(40)} ${r.medianMs.toFixed(2).padStart(8)} ${r.p90Ms.toFixed(2).padStart(8)}  ${r.runsIn}, ${r.budgetMs} ms: ${r.withinHalf ? 'within' : 'OVER'}`);
}
