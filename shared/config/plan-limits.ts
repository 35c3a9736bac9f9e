/**
 * Cloudflare's published limits per plan (Workers, D1, Durable Objects; the paid plan's monthly
 * inclusions divided by 30): what the cost model (capacity.ts) holds a configuration to, and what a
 * regional object's alarm may spend.
 */
export interface PlanLimits {
  /** Free: daily quotas are hard limits (operations fail past them). Paid: they are what is included before usage pricing. */
  hardDailyLimits: boolean;
  cpuMsPerInvocation: number;
  subrequestsPerInvocation: number;
  d1RowsWrittenPerDay: number;
  d1RowsReadPerDay: number;
  d1QueriesPerInvocation: number;
  /** SQLite-backed Durable Object storage, billed like D1 since January 2026. */
  doRowsWrittenPerDay: number;
  doRequestsPerDay: number;
  doGbSecondsPerDay: number;
  workerRequestsPerDay: number;
}

/**
 * Connections one invocation may have waiting for their response headers at once, on every plan; a further one
 * is queued until one of them has its headers (its own timeout running meanwhile).
 */
export const OPEN_CONNECTIONS_PER_INVOCATION = 6;

export const PLAN_LIMITS: Record<'free' | 'paid', PlanLimits> = {
  free: {
    hardDailyLimits: true,
    cpuMsPerInvocation: 10,
    subrequestsPerInvocation: 50,
    d1RowsWrittenPerDay: 100_000,
    d1RowsReadPerDay: 5_000_000,
    d1QueriesPerInvocation: 50,
    doRowsWrittenPerDay: 100_000,
    doRequestsPerDay: 100_000,
    doGbSecondsPerDay: 13_000,
    workerRequestsPerDay: 100_000,
  },
  // Paid: what the $5 plan includes before usage pricing starts (monthly inclusions / 30).
  paid: {
    hardDailyLimits: false,
    cpuMsPerInvocation: 30_000,
    subrequestsPerInvocation: 10_000,
    d1RowsWrittenPerDay: 50_000_000 / 30,
    d1RowsReadPerDay: 25_000_000_000 / 30,
    d1QueriesPerInvocation: 1_000,
    doRowsWrittenPerDay: 50_000_000 / 30,
    doRequestsPerDay: 1_000_000 / 30,
    doGbSecondsPerDay: 400_000 / 30,
    workerRequestsPerDay: 10_000_000 / 30,
  },
};
