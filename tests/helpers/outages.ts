/**
 * The status tests' outages (tests/workers/status.test.ts), served by the Workers tests' reference
 * endpoint as scheduled regional faults, on days no other test probes: apac alone fails for 20
 * minutes on 2 and again on 3 March 2026 (a regional problem); apac and enam on 4 March (two of three
 * regions: the target as a whole). One outage per test, in the order the tests run (states only move
 * forward in time); those of tests/workers/status-history.test.ts on 5 to 8 March, after them.
 */
export const OUTAGES = {
  regional: { from: Date.UTC(2026, 2, 2, 10, 0), to: Date.UTC(2026, 2, 2, 10, 20), regions: ['apac'] },
  repeated: { from: Date.UTC(2026, 2, 3, 10, 0), to: Date.UTC(2026, 2, 3, 10, 20), regions: ['apac'] },
  wide: { from: Date.UTC(2026, 2, 4, 10, 0), to: Date.UTC(2026, 2, 4, 10, 20), regions: ['apac', 'enam'] },
  // tests/workers/status-history.test.ts: inside a maintenance window, the same after none, one that a window meets
  // already open, and the target as a whole down for the history, the badge, the API and the incidents to agree on.
  maintained: { from: Date.UTC(2026, 2, 5, 10, 0), to: Date.UTC(2026, 2, 5, 10, 20), regions: ['apac'] },
  unmaintained: { from: Date.UTC(2026, 2, 6, 10, 0), to: Date.UTC(2026, 2, 6, 10, 20), regions: ['apac'] },
  annotated: { from: Date.UTC(2026, 2, 7, 10, 0), to: Date.UTC(2026, 2, 7, 10, 20), regions: ['apac'] },
  agreed: { from: Date.UTC(2026, 2, 8, 10, 0), to: Date.UTC(2026, 2, 8, 10, 20), regions: ['apac', 'enam'] },
};

export const SCHEDULED_FAULTS = Object.values(OUTAGES)
  .map((o) => `region=${o.regions.join('|')}; from=${new Date(o.from).toISOString()}; to=${new Date(o.to).toISOString()}; fault=http-503`)
  .join(', ');
