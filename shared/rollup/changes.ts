/**
 * Change detection: has a target's time to the first answer token changed, region by region, between this
 * week (the last 7 whole days) and the four before it? Days are the unit: each day's median TTFA is one value,
 * so samples alike within a day (an hour's load, a slow afternoon) cannot narrow the interval. The change is the
 * two-sample Hodges–Lehmann shift of ln(daily median), this week's days against the 28 before, with its
 * Mann–Whitney 95 % interval (shared/stats/two-sample.ts); it is flagged only when that whole interval lies past
 * the margin (5 %), so "changed by more than 5 %" is what a flag claims, at 95 %. Computed from the daily
 * rollups of the 35 days, by GET /api/v1/changes and its public view alike.
 */
import type { ChangeFlag } from '../api-types.ts';
import { rollupPercentileGroups } from './percentiles.ts';
import type { Rollup } from './rollup.ts';
import { DEFAULT_MARGIN } from '../stats/paired.ts';
import { shiftInterval } from '../stats/two-sample.ts';
import { DAY_MS } from '../time.ts';

export type { ChangeFlag };

/** This week, and the weeks before it that it is compared with, in days. */
export const WEEK_DAYS = 7;
export const BEFORE_DAYS = 28;
/** A day counts when it holds at least this many successful samples (an hour of 5-minute ticks): fewer make a median of noise. */
export const MIN_DAY_SAMPLES = 12;

const pct = (x: number) => 100 * (Math.exp(x) - 1);

/** The change of daily medians (ms) this week against the weeks before, in percent with its 95 % interval; null when none can be had. */
export function dailyChange(nowDays: readonly number[], beforeDays: readonly number[]): { pct: number; low: number; high: number } | null {
  const s = shiftInterval(nowDays.map(Math.log), beforeDays.map(Math.log));
  if (s === null || s.low === null || s.high === null) return null;
  return { pct: pct(s.estimate), low: pct(s.low), high: pct(s.high) };
}

/** A change is flagged when its whole interval lies past the margin (a fraction): slower, faster, or none. */
export function changeDirection(change: { low: number; high: number }, margin = DEFAULT_MARGIN): 'slower' | 'faster' | null {
  if (change.low > 100 * margin) return 'slower';
  if (change.high < -100 * margin) return 'faster';
  return null;
}

const groupKey = (g: { region?: string; target?: string; prompt_variant?: string }) => `${g.region}|${g.target}|${g.prompt_variant}`;

/** Every region × target × variant whose daily TTFA medians moved past the margin; `today`: the start of today (UTC). */
export function ttfaChanges(daily: readonly Rollup[], today: number, margin = DEFAULT_MARGIN): ChangeFlag[] {
  const split = today - WEEK_DAYS * DAY_MS;
  const from = split - BEFORE_DAYS * DAY_MS;
  const by = ['region', 'target', 'prompt_variant'] as const;
  const groupsOf = (rows: Rollup[]) => rollupPercentileGroups(rows, 'ttfa_ms', [...by]);
  const inWindow = daily.filter((r) => r.hour >= from && r.hour < today);
  const now = groupsOf(inWindow.filter((r) => r.hour >= split));
  const before = new Map(groupsOf(inWindow.filter((r) => r.hour < split)).map((g) => [groupKey(g), g]));
  // Each day's median per group: this week's and the four weeks before.
  const days = new Map<string, { now: number[]; before: number[] }>();
  const byDay = new Map<number, Rollup[]>();
  for (const r of inWindow) {
    let list = byDay.get(r.hour);
    if (!list) byDay.set(r.hour, (list = []));
    list.push(r);
  }
  for (const [day, rows] of byDay)
    for (const g of groupsOf(rows)) {
      if (g.p50 === null || g.n < MIN_DAY_SAMPLES) continue;
      let d = days.get(groupKey(g));
      if (!d) days.set(groupKey(g), (d = { now: [], before: [] }));
      (day >= split ? d.now : d.before).push(g.p50);
    }
  const out: ChangeFlag[] = [];
  for (const g of now) {
    const b = before.get(groupKey(g));
    const d = days.get(groupKey(g));
    if (!b || !d || g.p50 === null || b.p50 === null) continue;
    const change = dailyChange(d.now, d.before);
    const direction = change && changeDirection(change, margin);
    if (!change || !direction) continue;
    out.push({
      region: g.region!,
      target: g.target!,
      prompt_variant: g.prompt_variant!,
      now: { p50: g.p50, n: g.n, days: d.now.length },
      before: { p50: b.p50, n: b.n, days: d.before.length },
      change_pct: change.pct,
      change_low_pct: change.low,
      change_high_pct: change.high,
      direction,
      window: { from: new Date(from).toISOString(), split: new Date(split).toISOString(), to: new Date(today).toISOString() },
    });
  }
  return out.sort((a, b) => Math.abs(b.change_pct) - Math.abs(a.change_pct));
}
