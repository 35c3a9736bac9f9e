/**
 * A pair's hours as columns (shared/stats/pair-series.ts): hours put in hour order, stably, when they come out of
 * order; counts a row did not store flagged, not read as 0; a builder that outgrows its room keeps what it holds;
 * builders made together write to their own slices only; and the hour search a window is cut with.
 */
import { describe, expect, it } from 'vitest';
import { hourIndex, PairSeriesBuilder } from '../../../shared/stats/pair-series.ts';

const H = 3_600_000;

describe('PairSeriesBuilder', () => {
  it('skips an hour without a median d and flags each count the hour did not store', () => {
    const b = new PairSeriesBuilder(4);
    b.add(0, 10, 6, 4, 0.1);
    b.add(H, 12, 7, 5, null);
    b.add(2 * H, null, 3, undefined, -0.2);
    const s = b.finish();
    expect(s.length).toBe(2);
    expect([...s.hours]).toEqual([0, 2 * H]);
    expect([...s.d]).toEqual([0.1, -0.2]);
    expect([...s.unknown]).toEqual([0, 1 | 4]);
    expect([s.n[0], s.aWins[0], s.bWins[0], s.aWins[1]]).toEqual([10, 6, 4, 3]);
  });

  it('sorts hours that came out of order, keeping the order given among equal hours', () => {
    const b = new PairSeriesBuilder(2);
    b.add(3 * H, 1, 1, 0, 0.3);
    b.add(H, 2, 1, 1, 0.1);
    b.add(3 * H, 3, 0, 3, 0.35);
    b.add(2 * H, 4, 2, 2, 0.2);
    const s = b.finish();
    expect([...s.hours]).toEqual([H, 2 * H, 3 * H, 3 * H]);
    expect([...s.d]).toEqual([0.1, 0.2, 0.3, 0.35]);
    expect([...s.n]).toEqual([2, 4, 1, 3]);
    expect([...s.bWins]).toEqual([1, 2, 0, 3]);
  });

  it('grows past its capacity without losing an hour', () => {
    const b = new PairSeriesBuilder(1);
    for (let i = 0; i < 100; i++) b.add(i * H, i, i % 3, i % 5, i / 100);
    const s = b.finish();
    expect(s.length).toBe(100);
    expect(s.d[99]).toBe(0.99);
    expect(s.n[57]).toBe(57);
    expect(s.bWins[57]).toBe(57 % 5);
  });

  it('makes many builders over shared arrays, each writing only its own slice', () => {
    const [a, b, c] = PairSeriesBuilder.many(3, 2);
    a.add(0, 1, 1, 0, 0.5);
    b.add(0, 2, 0, 2, -0.5);
    b.add(H, 3, 1, 2, -0.25);
    // c outgrows its slice: its own arrays from then on, a's and b's untouched.
    for (let i = 0; i < 3; i++) c.add(i * H, 9, 9, 9, 9);
    expect([...a.finish().d]).toEqual([0.5]);
    expect([...b.finish().d]).toEqual([-0.5, -0.25]);
    expect([...c.finish().n]).toEqual([9, 9, 9]);
  });
});

describe('hourIndex', () => {
  const hours = Float64Array.from([0, H, H, 4 * H, 9 * H]);

  it('finds the first hour at or after the one asked, within the range given', () => {
    expect(hourIndex(hours, 0)).toBe(0);
    expect(hourIndex(hours, H)).toBe(1);
    expect(hourIndex(hours, 2 * H)).toBe(3);
    expect(hourIndex(hours, 10 * H)).toBe(5);
    expect(hourIndex(hours, -H)).toBe(0);
    expect(hourIndex(hours, 0, 2)).toBe(2);
    expect(hourIndex(hours, 9 * H, 0, 3)).toBe(3);
  });
});
