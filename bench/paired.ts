/**
 * `npm run bench:paired`: the paired comparison against known truth, measured.
 *
 * 1. Two simulated targets (tests/helpers/paired-sim.ts `simulate`: shared drift, hour load and network path,
 *    heavy-tailed noise of their own), B 3 % slower: the ticks each method needs to call A faster (paired, at a 1 %
 *    margin; non-overlapping medians' 95 % intervals), per seed, checked every 6 hours; how often two identical
 *    targets are called different (nominal 5 %).
 * 2. The goals of MEASUREMENT.md's "Paired comparisons" on weeks whose pair effect follows an AR(1) from hour to
 *    hour (tests/helpers/paired-goals.ts, the same seeded weeks tests/shared/stats/paired-goals.test.ts holds to them), and
 *    change detection's on days that wander by ±8 % (the same draws as tests/site/site-data.test.ts).
 * 3. The CPU of one comparison over 7 and 30 days of hourly blocks.
 */
import { changeDirection, dailyChange } from '../site/src/data/changes.ts';
import {
  BLOCK_CORRELATION,
  blockLength,
  fitDecay,
  hourAutocorrelation,
  MAX_BLOCK_HOURS,
  MIN_BLOCK_HOURS,
  neighbourCorrelation,
} from '../shared/stats/block-length.ts';
import { comparePaired } from '../shared/stats/paired.ts';
import { percentileWithCi } from '../shared/stats/percentile-ci.ts';
import { mulberry32 } from '../shared/stats/random.ts';
import {
  coverage,
  falseVerdictPages,
  falseVerdictPagesBefore,
  HOUR_SD,
  hourlyCoverage,
  power,
  WEEK_HOURS,
} from '../tests/helpers/paired-goals.ts';
import { blocksOf, correlatedBlocks, simulate, TICKS_PER_HOUR } from '../tests/helpers/paired-sim.ts';

const DAY = 24 * TICKS_PER_HOUR;
const STEP = 6 * TICKS_PER_HOUR;
const LIMIT = 30 * DAY;
const pct = (x: number) => `${(100 * x).toFixed(1)} %`;

function nonOverlap(series: ReturnType<typeof simulate>): boolean {
  const sorted = (xs: number[]) => xs.sort((x, y) => x - y);
  const a = percentileWithCi(sorted(series.map((t) => t.a)), 0.5);
  const b = percentileWithCi(sorted(series.map((t) => t.b)), 0.5);
  return a.ci_high !== null && b.ci_low !== null && a.ci_high < b.ci_low;
}

const rows: Array<{ seed: number; paired: number | null; overlap: number | null }> = [];
for (let seed = 1; seed <= 16; seed++) {
  const series = simulate(seed, LIMIT, 1.03);
  let paired: number | null = null;
  let overlap: number | null = null;
  for (let n = STEP; n <= LIMIT && (paired === null || overlap === null); n += STEP) {
    const part = series.slice(0, n);
    if (paired === null && comparePaired(blocksOf(part), 0, 0.01).verdict === 'a_faster') paired = n;
    if (overlap === null && nonOverlap(part)) overlap = n;
  }
  rows.push({ seed, paired, overlap });
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const found = (k: 'paired' | 'overlap') => rows.map((r) => r[k] ?? Infinity);
console.log('ticks to call A faster (B 3 % slower; 16 seeds; checked every 6 h; a tick every 5 min):');
console.log(`  paired (1 % margin):           median ${median(found('paired'))}, max ${Math.max(...found('paired'))}`);
console.log(`  non-overlapping 95 % intervals: median ${median(found('overlap'))}, max ${Math.max(...found('overlap'))}`);
console.log(`  ratio of medians: ${(median(found('overlap')) / median(found('paired'))).toFixed(1)}x`);

let different = 0;
const RUNS = 1_000;
for (let seed = 1; seed <= RUNS; seed++) {
  const r = comparePaired(blocksOf(simulate(10_000 + seed, 7 * DAY, 1)), 0, 0);
  if (r.verdict === 'a_faster' || r.verdict === 'b_faster') different++;
}
console.log(`identical targets called different: ${((100 * different) / RUNS).toFixed(1)} % of ${RUNS} weeks (nominal 5 %)`);

// 2. The goals, on the seeded weeks the tests use.
console.log(`\nweeks whose pair effect follows an AR(1) from hour to hour (effect sd ${HOUR_SD} in ln; tests/helpers/paired-goals.ts):`);
for (const rho of [0, 0.3, 0.5, 0.7]) {
  const c = coverage(rho, 2_000);
  console.log(
    `  ρ ${rho}: 95 % interval covers the truth in ${pct(c.covered)} of 2,000 weeks (mean block ${c.meanBlockHours.toFixed(1)} h; single hours: ${pct(hourlyCoverage(rho, 2_000))}); ` +
      `a true 10 % found alone in ${pct(power(rho, 200, false))} of 200`,
  );
}
console.log(
  `  a true 10 % found beside 14 null comparisons under Holm, of 200 weeks: ${[0, 0.3, 0.5, 0.7].map((rho) => `ρ ${rho} ${pct(power(rho, 200, true, 300))}`).join(', ')}`,
);
for (const rho of [0, 0.7])
  console.log(
    `  ρ ${rho}: pages of 15 null comparisons with a false verdict under Holm: ${pct(falseVerdictPages(rho, 1_000))} of 1,000 (blocks of a fixed 3 h, as before: ${pct(falseVerdictPagesBefore(rho, 1_000))})`,
  );
// How often independent weeks get blocks over half a day, with the fit's evidence rule and if every fit were believed.
let long = 0;
let longUnguarded = 0;
const WEEKS = 2_000;
for (let i = 1; i <= WEEKS; i++) {
  const values = correlatedBlocks(60_000_000 + i, WEEK_HOURS, { shift: 0, rho: 0, hourSd: HOUR_SD }).map((b) => ({
    hour: b.hour,
    y: b.d[0]!,
  }));
  if (blockLength(values).hours > 12) long++;
  const fit = fitDecay(hourAutocorrelation(values, 12)!);
  let hours = MIN_BLOCK_HOURS;
  // The same search as block-length.ts's, also on a fit it would set aside.
  while (hours < MAX_BLOCK_HOURS && neighbourCorrelation(fit.s, fit.rho, hours) > BLOCK_CORRELATION) hours++;
  if (hours > 12) longUnguarded++;
}
console.log(
  `  independent weeks given blocks over 12 h: ${pct(long / WEEKS)} of ${WEEKS} (every fit believed: ${pct(longUnguarded / WEEKS)})`,
);

console.log('\nchange detection, days as the unit (7 daily medians against the 28 before; each day wanders by ±8 %, log-sd 0.08):');
for (const change of [0, 0.03, 0.2]) {
  let flagged = 0;
  const TARGETS = 2_000;
  for (let t = 1; t <= TARGETS; t++) {
    const r = mulberry32(36_000 + t + Math.round(change * 1e6));
    const day = (level: number) => level * Math.exp(0.08 * Math.sqrt(-2 * Math.log(Math.max(r(), 1e-12))) * Math.cos(2 * Math.PI * r()));
    const before = Array.from({ length: 28 }, () => day(500));
    const now = Array.from({ length: 7 }, () => day(500 * (1 + change)));
    const c = dailyChange(now, before);
    if (c && changeDirection(c)) flagged++;
  }
  console.log(`  a true change of ${(100 * change).toFixed(0)} %: flagged "past 5 %" for ${pct(flagged / TARGETS)} of ${TARGETS} targets`);
}

// 3. CPU.
console.log('');
for (const days of [7, 30]) {
  const blocks = blocksOf(simulate(7, days * DAY, 1.03));
  const times: number[] = [];
  for (let i = 0; i < 30; i++) {
    const t = performance.now();
    comparePaired(blocks, 0, 0.05);
    times.push(performance.now() - t);
  }
  console.log(`one comparison over ${days} days (${blocks.length} hourly blocks): median ${median(times).toFixed(2)} ms`);
}
