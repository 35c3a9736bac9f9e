/**
 * The status tests' outages (tests/workers/status.test.ts), served by the Workers tests' reference
 * endpoint as scheduled regional faults, on days no other test probes: apac alone fails for 20
 * minutes on 2 and again on 3 March 2026 (a regional problem); apac and enam on 4 March (two of three
 * regions: the target as a whole). One outage per test, in the order the tests run (states only move
 * forward in time).
 */
export const OUTAGES = {
  regional: { from: Date.UTC(2026, 2, 2, 10, 0), to: Date.UTC(2026, 2, 2, 10, 20), regions: ['apac'] },
  repeated: { from: Date.UTC(2026, 2, 3, 10, 0), to: Date.UTC(2026, 2, 3, 10, 20), regions: ['apac'] },
  wide: { from: Date.UTC(2026, 2, 4, 10, 0), to: Date.UTC(2026, 2, 4, 10, 20), regions: ['apac', 'enam'] },
};

export const SCHEDULED_FAULTS = Object.values(OUTAGES)
  .map((o) => `region=${o.regions.join('|')}; from=${new Date(o.from).toISOString()}; to=${new Date(o.to).toISOString()}; fault=http-503`)
  .join(', ');
