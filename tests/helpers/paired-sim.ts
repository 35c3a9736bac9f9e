/**
 * Two simulated targets probed from one region, tick by tick: what both share (a time-of-day drift, the
 * hour's load, the tick's network path), heavy-tailed noise of their own (a log-normal body with Student-t
 * tails: now and then a tick several times slower), and B slower than A by a known factor. What the
 * paired method is checked against (tests/shared/stats/paired.test.ts) and measured by (bench/paired.ts).
 */
import { pairBlock, type PairBlock } from '../../shared/stats/paired.ts';
import { HOUR_MS, MINUTE_MS } from '../../shared/time.ts';
import { mulberry32 } from '../../shared/stats/random.ts';

export const TICK_MS = 5 * MINUTE_MS;
export const TICKS_PER_HOUR = HOUR_MS / TICK_MS;

function normal(r: () => number): number {
  const u = Math.max(r(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r());
}

/** Student-t with `nu` degrees of freedom (heavy tails for small nu). */
function studentT(r: () => number, nu: number): number {
  let chi = 0;
  for (let i = 0; i < nu; i++) chi += normal(r) ** 2;
  return normal(r) / Math.sqrt(chi / nu);
}

export interface SimTick {
  tick: number;
  a: number;
  b: number;
}

/** `ticks` paired TTFAs (ms): B = A's level × `ratio`, both on the same drift, each with its own heavy-tailed noise. */
export function simulate(seed: number, ticks: number, ratio: number, start = Date.UTC(2026, 10, 2)): SimTick[] {
  const r = mulberry32(seed);
  const out: SimTick[] = [];
  let hourLoad = 1;
  for (let k = 0; k < ticks; k++) {
    const tick = start + k * TICK_MS;
    const hourOfDay = new Date(tick).getUTCHours();
    // Busy hours: +40 % at the daily peak; each hour's own load (log-sd 0.2) and each tick's path (log-sd 0.15): shared.
    const drift = 1 + 0.4 * Math.max(0, Math.sin(((hourOfDay - 8) / 24) * 2 * Math.PI));
    if (k % TICKS_PER_HOUR === 0) hourLoad = Math.exp(0.2 * normal(r));
    const shared = 800 * drift * hourLoad * Math.exp(0.15 * normal(r));
    // Each target's own: log-sd 0.1 in the body, t with 3 degrees of freedom in the tails.
    const own = () => Math.exp(0.1 * studentT(r, 3));
    out.push({ tick, a: shared * own(), b: shared * ratio * own() });
  }
  return out;
}

/** The hourly blocks of a simulated series, as the rollup writes them. */
export function blocksOf(series: readonly SimTick[]): PairBlock[] {
  const hours = new Map<number, SimTick[]>();
  for (const t of series) {
    const h = Math.floor(t.tick / HOUR_MS) * HOUR_MS;
    hours.set(h, [...(hours.get(h) ?? []), t]);
  }
  const blocks: PairBlock[] = [];
  for (const [hour, ticks] of hours) {
    const block = pairBlock(hour, [{ a: new Map(ticks.map((t) => [t.tick, t.a])), b: new Map(ticks.map((t) => [t.tick, t.b])) }]);
    if (block) blocks.push(block);
  }
  return blocks;
}

/** A normal deviate and a Student-t(2) one (its quantile in closed form: one uniform, no rejection), for the hour-level simulation. */
function gaussian(r: () => number): number {
  return Math.sqrt(-2 * Math.log(Math.max(r(), 1e-12))) * Math.cos(2 * Math.PI * r());
}
function studentT2(r: () => number): number {
  const u = Math.min(Math.max(r(), 1e-12), 1 - 1e-12);
  return (2 * u - 1) / Math.sqrt(2 * u * (1 - u));
}

export interface CorrelatedPair {
  /** The true shift of ln(x_A / x_B): what a 95 % interval should cover. */
  shift: number;
  /** Hour-to-hour correlation of the pair's own hourly effect (AR(1)), and that effect's standard deviation (in ln). */
  rho: number;
  hourSd: number;
}

/**
 * `hours` hourly blocks of one pair, as the rollup writes them (TICKS_PER_HOUR ticks each): every tick's
 * d = shift + the hour's effect + each target's own heavy-tailed noise (0.1 × Student-t(2): now and then a tick
 * several times slower), where the hour's effect follows an AR(1) with correlation `rho` from one hour to the
 * next: a slow afternoon of one target stays slow for hours. What the shared load and path add cancels in d.
 */
export function correlatedBlocks(seed: number, hours: number, pair: CorrelatedPair, start = Date.UTC(2026, 10, 2)): PairBlock[] {
  const r = mulberry32(seed);
  const innovation = pair.hourSd * Math.sqrt(1 - pair.rho ** 2);
  let effect = pair.hourSd * gaussian(r);
  const blocks: PairBlock[] = [];
  const d = new Float64Array(TICKS_PER_HOUR);
  for (let h = 0; h < hours; h++) {
    if (h > 0) effect = pair.rho * effect + innovation * gaussian(r);
    let aWins = 0;
    for (let k = 0; k < TICKS_PER_HOUR; k++) {
      d[k] = pair.shift + effect + 0.1 * (studentT2(r) - studentT2(r));
      if (d[k] < 0) aWins++;
    }
    d.sort();
    const median = (d[TICKS_PER_HOUR / 2 - 1] + d[TICKS_PER_HOUR / 2]) / 2;
    blocks.push({ hour: start + h * HOUR_MS, n: [TICKS_PER_HOUR], aWins: [aWins], bWins: [TICKS_PER_HOUR - aWins], d: [median] });
  }
  return blocks;
}
