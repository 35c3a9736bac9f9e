import { describe, expect, it } from 'vitest';
import { isoWeek, lastEndedWeek, previousWeek, weekSpan, weeksInYear, weekStart } from '../../../shared/reports/week.ts';

const at = (iso: string) => Date.parse(iso);

describe('ISO weeks in UTC', () => {
  it.each([
    ['2026-12-28T00:00:00Z', '2026-W53'],
    ['2027-01-03T23:59:59.999Z', '2026-W53'],
    ['2027-01-04T00:00:00Z', '2027-W01'],
    ['2026-01-01T12:00:00Z', '2026-W01'],
    ['2025-12-29T00:00:00Z', '2026-W01'],
    ['2025-12-28T23:59:59Z', '2025-W52'],
    ['2026-11-23T00:00:00Z', '2026-W48'],
    ['2026-11-29T23:59:59Z', '2026-W48'],
    ['2024-12-30T00:00:00Z', '2025-W01'],
    ['2021-01-03T10:00:00Z', '2020-W53'],
  ])('%s is in %s', (time, week) => {
    expect(isoWeek(at(time))).toBe(week);
  });

  it('a week starts on Monday 00:00 UTC and its span round-trips', () => {
    expect(new Date(weekStart(at('2026-12-02T17:00:00Z'))).toISOString()).toBe('2026-11-30T00:00:00.000Z');
    expect(weekSpan('2026-W53')).toEqual({ from: at('2026-12-28T00:00:00Z'), to: at('2027-01-04T00:00:00Z') });
    for (let t = at('2026-01-01T00:00:00Z'); t < at('2028-01-10T00:00:00Z'); t += 86_400_000) {
      const span = weekSpan(isoWeek(t))!;
      expect(t >= span.from && t < span.to).toBe(true);
    }
  });

  it('names no week that does not exist', () => {
    expect(weeksInYear(2026)).toBe(53);
    expect(weeksInYear(2027)).toBe(52);
    expect(weekSpan('2027-W53')).toBeNull();
    expect(weekSpan('2026-W00')).toBeNull();
    expect(weekSpan('2026-W5')).toBeNull();
    expect(weekSpan('2026-w48')).toBeNull();
  });

  it('the week before, and the last ended week', () => {
    expect(previousWeek('2027-W01')).toBe('2026-W53');
    expect(previousWeek('2026-W48')).toBe('2026-W47');
    // On Monday 00:00 the week before has just ended; on Sunday 23:59 it is the one before that.
    expect(lastEndedWeek(at('2026-11-30T00:00:00Z'))).toBe('2026-W48');
    expect(lastEndedWeek(at('2026-11-29T23:59:59Z'))).toBe('2026-W47');
  });
});
