/**
 * Change detection: has a target's time to the first answer token changed, region by region, between this
 * week (the last 7 whole days) and the four before it? Interval-aware: a change is flagged only when the two
 * medians differ by more than the margin (5 %) and their 95 % intervals (from the rollups' histograms) do not
 * overlap, so noise alone does not raise it. From the daily rollups the site already reads: no extra D1 read.
 */
import { rollupPercentileGroups } from '../../../shared/rollup/percentiles.ts';
import type { Rollup } from '../../../shared/rollup/rollup.ts';
import { DEFAULT_MARGIN } from '../../../shared/stats/paired.ts';
import { DAY_MS } from '../../../shared/time.ts';

export interface ChangeFlag {
  region: string;
  target: string;
  prompt_variant: string;
  /** This week's median TTFA and its interval, and the four weeks before. */
  now: { p50: number; low: number; high: number; n: number };
  before: { p50: number; low: number; high: number; n: number };
  /** now ÷ before − 1, in percent. */
  change_pct: number;
  direction: 'slower' | 'faster';
  /** The two weeks' windows (ISO). */
  window: { from: string; split: string; to: string };
}

const WEEK_DAYS = 7;
const BEFORE_DAYS = 28;

/** Every region × target × variant whose TTFA median moved past the margin with intervals apart; `today`: the start of today (UTC). */
export function ttfaChanges(daily: readonly Rollup[], today: number, margin = DEFAULT_MARGIN): ChangeFlag[] {
  const split = today - WEEK_DAYS * DAY_MS;
  const from = split - BEFORE_DAYS * DAY_MS;
  const by = ['region', 'target', 'prompt_variant'] as const;
  const groupsOf = (rows: Rollup[]) => rollupPercentileGroups(rows, 'ttfa_ms', [...by]);
  const now = groupsOf(daily.filter((r) => r.hour >= split && r.hour < today));
  const before = groupsOf(daily.filter((r) => r.hour >= from && r.hour < split));
  const out: ChangeFlag[] = [];
  for (const g of now) {
    const b = before.find((x) => x.region === g.region && x.target === g.target && x.prompt_variant === g.prompt_variant);
    if (
      !b ||
      g.p50 === null ||
      b.p50 === null ||
      g.p50_ci_low === null ||
      g.p50_ci_high === null ||
      b.p50_ci_low === null ||
      b.p50_ci_high === null
    )
      continue;
    const change = g.p50 / b.p50 - 1;
    const apart = g.p50_ci_low > b.p50_ci_high || g.p50_ci_high < b.p50_ci_low;
    if (!apart || Math.abs(change) <= margin) continue;
    out.push({
      region: g.region!,
      target: g.target!,
      prompt_variant: g.prompt_variant!,
      now: { p50: g.p50, low: g.p50_ci_low, high: g.p50_ci_high, n: g.n },
      before: { p50: b.p50, low: b.p50_ci_low, high: b.p50_ci_high, n: b.n },
      change_pct: 100 * change,
      direction: change > 0 ? 'slower' : 'faster',
      window: { from: new Date(from).toISOString(), split: new Date(split).toISOString(), to: new Date(today).toISOString() },
    });
  }
  return out.sort((a, b) => Math.abs(b.change_pct) - Math.abs(a.change_pct));
}
