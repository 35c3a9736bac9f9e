/** When the keeper judges a tick and from which states (shared/status/judgement.ts): pure, on made-up pairs. */
import { describe, expect, it } from 'vitest';
import { lateView, missingAt, reportDeadlineMs, silentAfterMs, ticksAhead, viewAt } from '../../../shared/status/judgement.ts';
import type { PairState } from '../../../shared/status/pair-state.ts';
import type { Finding, Level } from '../../../shared/status/evaluate.ts';

const MIN = 60_000;
const T = Date.UTC(2026, 3, 6, 10, 0);
const NOW = Date.UTC(2026, 11, 2, 12, 0);
const finding = (tick: number, level: Level): Finding => ({ tick_id: tick, level, rules: [], shift: null, baseline: null, sample: null });

/** A pair that evaluated `states` at T, T+5, T+10 … and last reported `silentFor` before NOW. */
function pair(region: string, states: Level[], silentFor = 0): PairState {
  const history = states.map((state, k) => ({ tick: T + k * 5 * MIN, state, finding: finding(T + k * 5 * MIN, state) }));
  const last = history.at(-1)!;
  return {
    region,
    target: 't',
    variant: 'v',
    state: last.state,
    since_tick: T,
    better_streak: 0,
    last_tick: last.tick,
    finding: last.finding,
    reported_at: NOW - silentFor,
    history,
  };
}

describe('when a tick is judged', () => {
  it('states its deadline from the schedule: two ticks of wall time, never under 5 minutes', () => {
    expect(reportDeadlineMs(5)).toBe(10 * MIN);
    expect(reportDeadlineMs(60)).toBe(120 * MIN);
    expect(reportDeadlineMs(1)).toBe(5 * MIN);
    expect(silentAfterMs(5, 1)).toBe(15 * MIN);
    expect(silentAfterMs(5, 4)).toBe(60 * MIN);
    expect(silentAfterMs(1, 1)).toBe(10 * MIN);
  });

  it('waits for every region due at the tick, a region that never reported too, and not for one not due', () => {
    const pairs = [pair('weur', ['operational', 'operational']), pair('enam', ['operational'])];
    // apac has never reported: still missing. enam has not reported T+5 yet.
    expect(missingAt(T + 5 * MIN, ['weur', 'enam', 'apac'], pairs)).toEqual(['enam', 'apac']);
    // A region that reported a later tick has nothing more to say of this one.
    expect(missingAt(T, ['weur', 'enam'], pairs)).toEqual([]);
    // On a spread schedule a region whose share does not hold the pair at this tick is not due, and not waited for.
    expect(missingAt(T + 5 * MIN, ['weur'], pairs)).toEqual([]);
    expect(ticksAhead(T, pairs)).toBe(1);
  });

  it('counts a region as it last stood, as no data when never heard from or silent too long', () => {
    const silent = silentAfterMs(5, 1);
    const pairs = [
      pair('weur', ['operational', 'operational', 'operational']),
      pair('apac', ['degraded'], 60_000),
      pair('enam', ['down'], silent + 1),
    ];
    const view = viewAt(pairs, T + 10 * MIN, NOW, silent);
    expect(view.map((p) => [p.region, p.state, p.last_tick])).toEqual([
      ['weur', 'operational', T + 10 * MIN],
      ['apac', 'degraded', T],
    ]);
    // At an older tick, each as it stood then.
    expect(viewAt(pairs, T, NOW, silent).map((p) => p.state)).toEqual(['operational', 'degraded']);
  });

  it("judges a late report on the others' last judged states and the late region's own newest", () => {
    const silent = silentAfterMs(5, 1);
    const pairs = [pair('weur', ['operational', 'degraded', 'degraded']), pair('apac', ['operational', 'down'])];
    // The frontier is T+10; apac's late report is of T+5.
    const view = lateView(pairs, 'apac', T + 10 * MIN, NOW, silent);
    expect(view.map((p) => [p.region, p.state, p.last_tick])).toEqual([
      ['weur', 'degraded', T + 10 * MIN],
      ['apac', 'down', T + 5 * MIN],
    ]);
  });
});
