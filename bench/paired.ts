/**
 * `npm run bench:paired`: the paired comparison against known truth, measured. Two simulated targets
 * (tests/helpers/paired-sim.ts: shared drift, hour load and network path, heavy-tailed noise of their own),
 * B 3 % slower: the ticks each method needs to call A faster (paired, at a 1 % margin; non-overlapping
 * medians' 95 % intervals), per seed, checked every 6 hours; how often two identical targets are called
 * different (nominal 5 %); and the CPU of one comparison over 7 and 30 days of hourly blocks.
 */
import { comparePaired } from '../shared/stats/paired.ts';
import { percentileWithCi } from '../shared/stats/percentile-ci.ts';
import { blocksOf, simulate, TICKS_PER_HOUR } from '../tests/helpers/paired-sim.ts';

const DAY = 24 * TICKS_PER_HOUR;
const STEP = 6 * TICKS_PER_HOUR;
const LIMIT = 30 * DAY;

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
