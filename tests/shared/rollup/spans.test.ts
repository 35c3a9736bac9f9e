/**
 * A window's pieces (shared/rollup/spans.ts coverOf) cover each of its hours exactly once, each piece aligned to
 * its own length and of a length a table holds, and few: a 90-day window at any hour reads at most 22 pieces where
 * spans of hours are kept everywhere, 36 where they are kept for the recent days alone.
 */
import { describe, expect, it } from 'vitest';
import {
  coverOf,
  HOUR_SPANS,
  HOUR_SPAN_DAYS,
  hourSpansFrom,
  settledBy,
  DAY_SPANS,
  pieceEnd,
  pieceOfKey,
  spanKey,
  spansOfDay,
  spansOfHour,
  spansWithin,
} from '../../../shared/rollup/spans.ts';
import { DAY_MS, HOUR_MS } from '../../../shared/time.ts';

const LENGTHS = new Set([1, 24, ...HOUR_SPANS, ...DAY_SPANS.map((d) => d * 24)]);
const T0 = Date.UTC(2026, 4, 17, 13);

function checkCover(from: number, to: number): number {
  const pieces = coverOf(from, to);
  let at = from;
  for (const p of pieces) {
    expect(p.start, `piece at ${new Date(p.start).toISOString()}`).toBe(at);
    expect(LENGTHS.has(p.hours), `${p.hours} h`).toBe(true);
    expect(p.start % (p.hours * HOUR_MS), `${p.hours} h from ${new Date(p.start).toISOString()} is aligned`).toBe(0);
    // Pieces of hours never cross midnight.
    if (p.hours < 24) expect(Math.floor(p.start / DAY_MS)).toBe(Math.floor((pieceEnd(p) - 1) / DAY_MS));
    at = pieceEnd(p);
  }
  expect(at).toBe(Math.max(from, to));
  return pieces.length;
}

describe('span rollups', () => {
  it('cover every window of whole hours exactly, with aligned pieces', () => {
    let x = 7;
    const u = () => (x = (x * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
    for (let k = 0; k < 3_000; k++) {
      const from = T0 + Math.floor(u() * 200 * 24) * HOUR_MS;
      checkCover(from, from + Math.floor(u() * 120 * 24) * HOUR_MS);
    }
    expect(coverOf(T0, T0)).toEqual([]);
    expect(coverOf(T0, T0 + HOUR_MS)).toEqual([{ start: T0, hours: 1 }]);
  });

  it('read a 90-day window in at most 22 pieces at any hour, and a day in 1', () => {
    let most = 0;
    for (let h = 0; h < 128 * 24; h++) {
      const to = T0 + h * HOUR_MS;
      most = Math.max(most, checkCover(to - 90 * DAY_MS, to));
    }
    expect(most).toBeLessThanOrEqual(22);
    // Against 90 daily rows and up to 46 hourly ones a window read before.
    expect(most).toBeGreaterThan(10);
    const day = Math.floor(T0 / DAY_MS) * DAY_MS;
    expect(coverOf(day, day + DAY_MS)).toEqual([{ start: day, hours: 24 }]);
  });

  it('use spans of hours only from the recent days: a 90-day window to now in at most 36 pieces', () => {
    let most = 0;
    for (let h = 0; h < 128 * 24; h++) {
      const to = T0 + h * HOUR_MS;
      const from = to - 90 * DAY_MS;
      // Read at `to`: the hour before it is not settled yet (its rows may be minutes from written).
      const pieces = coverOf(from, to, { now: to });
      for (const p of pieces) if (p.hours < 24 && p.start < hourSpansFrom(to)) expect(p.hours).toBe(1);
      for (const p of pieces) if (pieceEnd(p) > settledBy(to)) expect(p.hours).toBe(1);
      expect(pieces.at(-1)).toEqual({ start: to - HOUR_MS, hours: 1 });
      // The same hours, each once, as wherever spans fit.
      expect(pieces.reduce((n, p) => n + p.hours, 0)).toBe(90 * 24);
      most = Math.max(most, pieces.length);
    }
    // Up to 23 single hours at the oldest edge, where a span of them would be kept for a few days only.
    expect(most).toBeLessThanOrEqual(36);
    expect(most).toBeGreaterThan(23);
    expect(hourSpansFrom(T0)).toBe(Math.floor(T0 / DAY_MS) * DAY_MS - HOUR_SPAN_DAYS * DAY_MS);
  });

  it('read at a time just past midnight, use no span that ends at it: the day just ended is read by its hours', () => {
    const midnight = Math.floor(T0 / DAY_MS) * DAY_MS;
    const pieces = coverOf(midnight - 90 * DAY_MS, midnight, { now: midnight + 120_000 });
    expect(pieces.every((p) => pieceEnd(p) <= midnight - HOUR_MS || p.hours === 1)).toBe(true);
    expect(pieces.filter((p) => pieceEnd(p) > midnight - DAY_MS).every((p) => p.hours < 24)).toBe(true);
    // Without a time: wherever they fit (the longest ones ending at midnight).
    expect(coverOf(midnight - 90 * DAY_MS, midnight).at(-1)!.hours).toBeGreaterThanOrEqual(24);
  });

  it("read with a region's mark, use no span that ends past it, nor a span of days from before the retention cut", () => {
    const now = T0 + 30 * DAY_MS;
    const from = now - 300 * DAY_MS - 5 * HOUR_MS;
    const to = Math.floor(now / HOUR_MS) * HOUR_MS;
    const through = to - 3 * DAY_MS - 7 * HOUR_MS;
    const pieces = coverOf(from, to, { now, spansThrough: through, rollupDays: 240 });
    const cut = Math.floor(now / DAY_MS) * DAY_MS - 240 * DAY_MS;
    for (const p of pieces) {
      const span = p.hours !== 1 && p.hours !== 24;
      if (span) expect(pieceEnd(p)).toBeLessThanOrEqual(through);
      if (p.hours > 24) expect(p.start).toBeGreaterThanOrEqual(cut);
    }
    expect(pieces.reduce((n, p) => n + p.hours, 0) * HOUR_MS).toBe(to - from);
    // Past the mark, daily rows for whole days and hourly rows for the rest.
    expect(pieces.some((p) => p.start >= through && p.hours === 24)).toBe(true);
    // No mark at all: only hourly and daily rows.
    expect(coverOf(from, to, { now, spansThrough: -Infinity }).every((p) => p.hours === 1 || p.hours === 24)).toBe(true);
  });

  it('refuses a window that is not of whole hours', () => {
    expect(() => coverOf(T0 + 1, T0 + HOUR_MS)).toThrow(RangeError);
    expect(() => coverOf(T0, Number.NaN)).toThrow(RangeError);
  });

  it('name each span by one key, and list the spans an hour or a day is merged into', () => {
    for (const p of [...spansOfHour(T0), ...spansOfDay(Math.floor(T0 / DAY_MS) * DAY_MS)]) {
      expect(pieceOfKey(spanKey(p.start, p.hours))).toEqual(p);
      expect(p.start % (p.hours * HOUR_MS)).toBe(0);
    }
    expect(spansOfHour(T0).every((p) => p.start <= T0 && T0 < pieceEnd(p))).toBe(true);
    const day = Math.floor(T0 / DAY_MS) * DAY_MS;
    // A day's hour spans (12 + 6 + 3) and the 5 spans of days holding it.
    const within = spansWithin(day);
    expect(within.length).toBe(21 + DAY_SPANS.length);
    expect(new Set(within.map((p) => spanKey(p.start, p.hours))).size).toBe(within.length);
    expect(within.every((p) => p.start < day + DAY_MS && pieceEnd(p) > day)).toBe(true);
  });
});
