/**
 * `npm run capacity`: validates observatory.config.ts and prints what it costs per day against the
 * free plan's limits and the paid plan's inclusions, which limit binds first, and the same for the
 * scale the project aims at on the free plan (6 regions × 10 targets every 5 minutes, hourly site builds).
 * `--project 30x100 --every 1` (or `--project scale`) projects that many regions × targets on the paid
 * plan instead: which limit breaks first and when, what it costs, and the configuration that keeps it running.
 */
import { config } from '../observatory.config.ts';
import { ConfigError, validateConfig } from '../shared/config/validate.ts';
import {
  anonymousRowBound,
  anonymousRowsPerDay,
  archiveRowsReadSpread,
  capacity,
  freePlanGoal,
  type Capacity,
} from '../shared/config/capacity.ts';
import { PLAN_LIMITS } from '../shared/config/plan-limits.ts';
import { reasoningBudgetWarnings } from '../shared/config/reasoning-budget.ts';
import { vendorTokens } from '../shared/config/vendor-tokens.ts';
import type { ObservatoryConfig } from '../shared/config/types.ts';
import { printProjection } from './projection-report.ts';
import { planStorage } from '../shared/config/projection.ts';
import { ANONYMOUS_FLOOD_PER_MINUTE, anonymousFloodCost } from '../shared/config/view-costs.ts';

try {
  validateConfig(config);
} catch (e) {
  if (!(e instanceof ConfigError)) throw e;
  console.error(e.message);
  process.exit(1);
}

const n = (x: number) => Math.round(x).toLocaleString('en');
const pct = (used: number, limit: number) => `${((used / limit) * 100).toFixed(1)} %`;

/** Each billed figure per day, against both plans; the spread applies to what probing does. */
function report(label: string, cfg: ObservatoryConfig, c: Capacity): void {
  const s = c.spread;
  const b = c.bursts;
  // Spreading divides the ticks' work; the concurrency runs are not spread.
  const spreadOut = (total: number, burst: number) => (total - burst) / s + burst;
  const rows: Array<[string, number, keyof typeof PLAN_LIMITS.free]> = [
    ['D1 rows written', spreadOut(c.d1RowsWrittenPerDay, b.d1RowsWrittenPerDay), 'd1RowsWrittenPerDay'],
    [
      'D1 rows read',
      (c.d1RowsRead.rollups + c.d1RowsRead.status) / s +
        archiveRowsReadSpread(c) +
        c.d1RowsRead.siteBuilds +
        c.d1RowsRead.metrics +
        c.d1RowsRead.api +
        c.d1RowsRead.views,
      'd1RowsReadPerDay',
    ],
    ['DO storage rows written', spreadOut(c.doRowsWrittenPerDay, b.doRowsWrittenPerDay), 'doRowsWrittenPerDay'],
    ['DO requests', spreadOut(c.doRequestsPerDay, b.doRequestsPerDay), 'doRequestsPerDay'],
    ['DO duration (GB-s)', spreadOut(c.doGbSecondsPerDay, b.doGbSecondsPerDay), 'doGbSecondsPerDay'],
    ['Worker requests', c.workerRequestsPerDay, 'workerRequestsPerDay'],
  ];
  console.log(
    `\n${label}: ${cfg.regions.length} regions, ${cfg.targets.length} targets, ${cfg.promptVariants.length} prompt variant(s), a tick every ${c.tickMinutes} min`,
  );
  console.log(
    `  ${'per day'.padEnd(26)}${'use'.padStart(12)}${'free limit'.padStart(14)}${'share'.padStart(9)}${'paid incl.'.padStart(16)}${'share'.padStart(9)}`,
  );
  for (const [name, used, key] of rows) {
    const free = PLAN_LIMITS.free[key] as number;
    const paid = PLAN_LIMITS.paid[key] as number;
    console.log(
      `  ${name.padEnd(26)}${n(used).padStart(12)}${n(free).padStart(14)}${pct(used, free).padStart(9)}${n(paid).padStart(16)}${pct(used, paid).padStart(9)}`,
    );
  }
  const st = planStorage(cfg, c);
  const mb = (x: number) => `${n(x / 1e6)} MB`;
  console.log(
    `  D1 storage: ${mb(st.steady)} once retention deletes as much as a day adds (raw samples ${cfg.retentionDays} days ${mb(st.rawBytes)}, rollups ${cfg.rollupRetentionDays} days ${mb(st.rollupBytesPerDay * cfg.rollupRetentionDays)}), ${pct(st.steady, st.limit)} of the ${cfg.plan} plan's ${mb(st.limit)} a database${
      st.fullOnDay === null
        ? ''
        : `: full on day ${st.fullOnDay}; keep rollups at most ${st.rollupDaysThatFit} days (rollupRetentionDays; the archive in R2 keeps every day)${cfg.plan === 'free' ? ", or move to the paid plan's 10 GB" : ''}`
    }`,
  );
  const r = c.d1RowsRead;
  console.log(
    `  D1 reads: rollups ${n(r.rollups / s)}, status rules ${n(r.status / s)}, public views' builds ${n(r.views)}, site builds ${n(r.siteBuilds)} (${n(c.siteBuildRowsRead)} a build: the raw slice), /metrics ${n(r.metrics)}, API ${n(r.api)} (the live path), archive ${n(archiveRowsReadSpread(c))} (R2 a day: ${n(c.archive.r2ClassAPerDay)} Class A, ${n(c.archive.r2ClassBPerDay)} Class B)`,
  );
  const w = c.workerRequests;
  console.log(
    `  Worker requests: crons ${n(w.crons)}, site builds ${n(w.siteBuilds)} (${n(c.siteBuildRequests)} a build: its views and the raw slice's pages), /metrics ${n(w.metrics)} (a scrape of every pair), API ${n(w.api)}`,
  );
  const v = c.views;
  const builds = Object.values(v.parts).reduce((k, p) => k + p.buildsPerDay, 0);
  const flood = anonymousFloodCost(ANONYMOUS_FLOOD_PER_MINUTE);
  console.log(
    `  public views: ${n(builds)} part builds a day reading ${n(v.d1RowsReadPerDay)} D1 rows, writing ${n(v.r2ClassAPerDay)} R2 objects (Class A) and ${n(v.doRowsWrittenPerDay)} DO rows, with ${n(v.doRequestsPerDay)} DO requests; their readers: no D1 row, no DO request, at most one R2 read (Class B) an answer`,
  );
  console.log(
    `  an anonymous flood of ${n(ANONYMOUS_FLOOD_PER_MINUTE)} requests a minute from many addresses, all of them views: ${n(flood.d1RowsRead)} D1 rows and ${n(flood.doRequests)} DO requests a day; ${n(flood.workerRequests)} Worker requests (${pct(flood.workerRequests, PLAN_LIMITS.free.workerRequestsPerDay)} of the free plan's ${n(PLAN_LIMITS.free.workerRequestsPerDay)}, past which Cloudflare refuses requests: a crowd that size wants the paid plan, or the views read from the bucket's public domain, docs/COSTS.md) and at most ${n(flood.r2ClassBAtMost)} R2 reads (fewer: an isolate holds a view 10 s)`,
  );
  const worst = rows.map(([name, used, key]) => [name, used / (PLAN_LIMITS.free[key] as number)] as const).sort((a, b) => b[1] - a[1])[0];
  console.log(
    `  on the free plan the first limit to bind is ${worst[0]} at ${(worst[1] * 100).toFixed(1)} %; ${c.spread > 1 ? `each tick runs 1/${c.spread} of the work (${c.bindingLimit})` : 'every tick runs all of its work'}`,
  );
  console.log(
    `  probes per day ${n(c.probesPerDay / s)}; subrequests per probe invocation ${c.subrequestsPerProbeInvocation} of ${PLAN_LIMITS[cfg.plan].subrequestsPerInvocation}`,
  );
  const own = r.rollups / s + r.status / s + r.siteBuilds + r.metrics + r.views;
  const anon = anonymousRowsPerDay(cfg);
  const bound = anonymousRowBound(cfg);
  console.log(
    `  anonymous reads: at most ${n(bound.rows)} rows a request (${bound.request}); ${n(anon)} rows a day in all (${pct(anon, PLAN_LIMITS[cfg.plan].d1RowsReadPerDay)} of the ${cfg.plan} quota), beside the observatory's own ${n(own)} (rollups, status, views, site builds)`,
  );
  if (b.streamsPerDay > 0)
    console.log(
      `  concurrency probes (included above): ${n(b.streamsPerDay)} streams a day; D1 rows written ${n(b.d1RowsWrittenPerDay)}, DO requests ${n(b.doRequestsPerDay)}, DO rows ${n(b.doRowsWrittenPerDay)}, DO ${n(b.doGbSecondsPerDay)} GB-s`,
    );
}

console.log(`observatory.config.ts is valid (${config.plan} plan)`);
const projectAt = process.argv.indexOf('--project');
const everyAt = process.argv.indexOf('--every');
if (projectAt >= 0) printProjection(config, process.argv[projectAt + 1] ?? '', everyAt >= 0 ? Number(process.argv[everyAt + 1]) : 1);
else reportAll();

/** This configuration, the free-plan goal, and what probing costs at the vendors. */
function reportAll(): void {
  report('this configuration', config, capacity(config));

  const goal = freePlanGoal(config);
  report(
    'the free-plan goal (6 regions × 10 targets, hourly site builds, a /metrics scrape a minute, 1,000 API requests a day)',
    goal,
    capacity(goal),
  );

  // What probing costs at the vendors: tokens per day, and money where a target gives its list price.
  const tokens = vendorTokens(config);
  console.log("\nvendor tokens per day (input; output at most: each probe asks for its variant's maxTokens)");
  console.log(
    `  ${'target'.padEnd(32)}${'probes'.padStart(9)}${'of which bursts'.padStart(17)}${'input tokens'.padStart(15)}${'output tokens'.padStart(15)}${'US$ a day'.padStart(11)}${'a month'.padStart(10)}`,
  );
  for (const t of tokens.targets) {
    const money = (x: number | null) => (x === null ? '–' : x.toFixed(2));
    console.log(
      `  ${t.target.padEnd(32)}${n(t.probesPerDay).padStart(9)}${n(t.burstStreamsPerDay).padStart(17)}${n(t.inputTokensPerDay).padStart(15)}${n(t.outputTokensPerDay).padStart(15)}${money(t.dollarsPerDay).padStart(11)}${money(t.dollarsPerDay === null ? null : t.dollarsPerDay * 30).padStart(10)}`,
    );
  }
  const sum = (f: (t: (typeof tokens.targets)[number]) => number) => tokens.targets.reduce((a, t) => a + f(t), 0);
  console.log(
    `  ${'all targets'.padEnd(32)}${n(sum((t) => t.probesPerDay)).padStart(9)}${n(sum((t) => t.burstStreamsPerDay)).padStart(17)}${n(sum((t) => t.inputTokensPerDay)).padStart(15)}${n(sum((t) => t.outputTokensPerDay)).padStart(15)}${tokens.dollarsPerDay.toFixed(2).padStart(11)}${(tokens.dollarsPerDay * 30).toFixed(2).padStart(10)}`,
  );
  if (tokens.unpriced.length > 0)
    console.log(
      `  no price for ${tokens.unpriced.join(', ')}: set price: { inputPerMTokens, outputPerMTokens, currency: 'USD', asOf, source } on a target to see its cost`,
    );
  for (const w of reasoningBudgetWarnings(config)) console.warn(`warning: ${w.message}`);
}
