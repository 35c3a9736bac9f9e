/**
 * The TTFA changes as the target pages word them: computed once by the API (GET /api/v1/changes, from its view;
 * shared/rollup/changes.ts), read by the site build.
 */
import type { ChangeFlag } from '../../../shared/rollup/changes.ts';

export { changeDirection, dailyChange, MIN_DAY_SAMPLES, ttfaChanges, type ChangeFlag } from '../../../shared/rollup/changes.ts';

const signedPct = (v: number) => `${v < 0 ? '−' : '+'}${Math.abs(v) < 10 ? Math.abs(v).toFixed(1) : Math.round(Math.abs(v))} %`;

/** What the change was, after the region's name: by how much, with its interval, from how many days. */
export function changeWords(c: ChangeFlag, ms: (v: number) => string): string {
  return (
    `time to the first answer token ${Math.abs(c.change_pct).toFixed(0)} % ${c.direction} this week ` +
    `(${ms(c.now.p50)} ms, n=${c.now.n}) than the four weeks before (${ms(c.before.p50)} ms, n=${c.before.n}): ` +
    `the days' medians moved ${signedPct(c.change_pct)} [${signedPct(c.change_low_pct)}, ${signedPct(c.change_high_pct)}], ` +
    `${c.now.days} days against ${c.before.days}`
  );
}
