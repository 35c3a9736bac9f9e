/** Scheduled regional faults: which region and tick a schedule hits, and clear errors for a bad one. */
import { describe, expect, it } from 'vitest';
import { activeFault, parseSchedules } from '../../workers/reference/scheduled-faults.ts';
import { FaultError } from '../../workers/reference/faults.ts';

const HOUR = Date.UTC(2026, 5, 1, 12, 0);
const MIN = 60_000;

describe('scheduled regional faults', () => {
  it('a cycle hits its region at minutes [at, at + for) of every cycle, and nothing else', () => {
    const s = parseSchedules('region=apac|enam; every=60; at=20; for=15; slow_ms=1500');
    expect(s).toEqual([{ regions: ['apac', 'enam'], every: 60, at: 20, for: 15, from: 0, to: 0, slowMs: 1500, fault: null }]);
    const hit = (region: string, minute: number) => activeFault(s, region, HOUR + minute * MIN) !== null;
    expect([19, 20, 34, 35].map((m) => hit('apac', m))).toEqual([false, true, true, false]);
    expect(hit('enam', 80)).toBe(true);
    expect(hit('weur', 25)).toBe(false);
    expect(activeFault(s, null, HOUR + 25 * MIN)).toBeNull();
    expect(activeFault(s, 'apac', null)).toBeNull();
  });

  it('a window hits the ticks in [from, to); the first matching schedule wins', () => {
    const s = parseSchedules(
      `region=apac; from=${new Date(HOUR).toISOString()}; to=${new Date(HOUR + 10 * MIN).toISOString()}; fault=http-503, region=apac; every=60; at=0; for=60; slow_ms=100`,
    );
    expect(activeFault(s, 'apac', HOUR + 5 * MIN)?.fault).toBe('http-503');
    expect(activeFault(s, 'apac', HOUR + 10 * MIN)).toMatchObject({ fault: null, slowMs: 100 });
  });

  it('says what is wrong with a bad schedule', () => {
    for (const [text, message] of [
      ['region=apac; every=60; at=60; for=5; slow_ms=1', /at must be a whole number from 0 to 59/],
      ['every=60; at=0; for=5; slow_ms=1', /region is required/],
      ['region=apac; every=60; at=0; for=5', /give slow_ms, fault or both/],
      ['region=apac; every=60; at=0; for=5; fault=meteor', /unknown fault "meteor"/],
      ['region=apac; from=yesterday; to=2026-01-01T00:00Z; fault=http-500', /from must be an ISO time/],
      ['region=apac; colour=red', /unknown field "colour"/],
    ] as const)
      expect(() => parseSchedules(text), text).toThrow(message);
    expect(() => parseSchedules('region=apac; every')).toThrow(FaultError);
  });
});
