/** The shuffled order within a tick (shared/config/tick-order.ts): a permutation, reproducible, fresh each tick and region, fair. */
import { describe, expect, it } from 'vitest';
import { tickPositions } from '../../../shared/config/tick-order.ts';

const TICK = Date.UTC(2026, 11, 1, 12);
const FIVE_MIN = 300_000;

describe('the order within a tick', () => {
  it('gives every job one place, the same for the same tick and region', () => {
    const p = tickPositions(9, TICK, 'weur');
    expect([...p].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(tickPositions(9, TICK, 'weur')).toEqual(p);
    expect(tickPositions(0, TICK, 'weur')).toEqual([]);
    expect(tickPositions(1, TICK, 'weur')).toEqual([0]);
  });

  it('differs between ticks and between regions', () => {
    const orders = new Set<string>();
    for (let k = 0; k < 20; k++) orders.add(tickPositions(9, TICK + k * FIVE_MIN, 'weur').join(','));
    expect(orders.size).toBeGreaterThanOrEqual(19);
    expect(tickPositions(9, TICK, 'weur')).not.toEqual(tickPositions(9, TICK, 'apac'));
  });

  it('puts each job first about equally often over a year of ticks (no job keeps the cold first place)', () => {
    const jobs = 7;
    const ticks = 105_120; // a year of 5-minute ticks
    const first = new Array<number>(jobs).fill(0);
    for (let k = 0; k < ticks; k++) first[tickPositions(jobs, TICK + k * FIVE_MIN, 'enam').indexOf(0)]++;
    // Each share within 5 standard errors of 1/7 (a fixed order would put one job first every time).
    const expected = ticks / jobs;
    const se = Math.sqrt(ticks * (1 / jobs) * (1 - 1 / jobs));
    for (const n of first) expect(Math.abs(n - expected)).toBeLessThan(5 * se);
  });
});
