/**
 * A duty of a region's object: one thing its alarm does, in a file of its own that owns its tables (their
 * CREATE TABLE statements, and every query on them), says what waits (`pending`, on /api/v1/health under
 * `healthKey`) and which last failures it keeps (`errors`), and runs one step per alarm (`run`). The
 * object's alarm runs the duties of duties.ts in their order; a step's outcome decides whether the later
 * ones run in this alarm.
 */
import type { Job } from '../config.ts';
import type { StoredSample } from '../db/sample-row.ts';
import type { RegionConfig } from '../../../shared/config/types.ts';
import type { AuthContext } from '../../../shared/probe/auth.ts';
import type { BaselineCache } from '../keeper/status-evaluation.ts';
import type { DutyErrorKey, ProberStore, TableOwner } from './prober-store.ts';
import type { SplitSourceBook } from '../../../shared/probe/split-sources.ts';
import type { SubrequestBudget } from '../subrequest-budget.ts';

/** Wait before retrying after a duty failed (D1 refused a write, a push failed). */
export const FLUSH_RETRY_MS = 30_000;

/**
 * Runs of one job (or concurrency run) whose alarm did not live to finish it (the runtime stopped it, or it
 * threw) before it is given up: a poisoned stream never blocks its region.
 */
export const MAX_PROBE_ATTEMPTS = 3;

/**
 * What a step asks of the alarm: `done`, go on to the next duty; `failed`, go on, and come back after
 * FLUSH_RETRY_MS unless an alarm is set by then; `again`, stop here and run the alarm again now (more of
 * this duty's work waits); `retry`, stop here and run it again after FLUSH_RETRY_MS.
 */
export type DutyOutcome = 'done' | 'failed' | 'again' | 'retry';

/** The counts of what waits in a region's object, as ProberStatus (region-prober.ts) names them. */
export type PendingField = 'queued' | 'outbox' | 'pendingRollups' | 'pendingEvaluations' | 'pendingBursts' | 'pendingOtlp';

/** Each duty's last failure as ProberStatus names it. */
export const ERROR_FIELDS = {
  last_flush_error: 'lastFlushError',
  last_rollup_error: 'lastRollupError',
  last_evaluation_error: 'lastEvaluationError',
  last_otlp_error: 'lastOtlpError',
  last_burst_error: 'lastBurstError',
  last_archive_error: 'lastArchiveError',
  last_burst_archive_error: 'lastBurstArchiveError',
  last_rollup_archive_error: 'lastRollupArchiveError',
} as const satisfies Record<DutyErrorKey, string>;

export type ErrorField = (typeof ERROR_FIELDS)[DutyErrorKey];

/** What an object keeps in memory across its alarms (never stored). */
export interface ProberMemory {
  /** Jobs an alarm of this instance is running now (a job leaves its table only once it is done). */
  readonly running: Set<string>;
  readonly baselines: BaselineCache;
  /** Service-account tokens of this region (never stored, never logged). */
  readonly authContext: AuthContext;
  /** Each target's split sources here, kept in this object's storage. */
  readonly splitSources: SplitSourceBook;
}

/** What one alarm hands each duty's step. */
export interface DutyContext {
  readonly store: ProberStore;
  readonly env: Env;
  readonly region: RegionConfig;
  /** The region's reference endpoint (REGION_REFERENCE_URLS, else REFERENCE_URL). */
  readonly referenceUrl: string;
  /** What the alarm may still fetch or call. */
  readonly budget: SubrequestBudget;
  /** The alarm is a retry of one that did not finish. */
  readonly retry: boolean;
  readonly memory: ProberMemory;
  /** One job measured: the object's own method (a test watches each probe there), probe-duty.ts's measureJob. */
  readonly measure: (job: Job, ctx: DutyContext, colo: string | null) => Promise<StoredSample[] | null>;
  /** The duties whose step failed earlier in this alarm. */
  readonly failed: ReadonlySet<string>;
}

export interface Duty extends TableOwner {
  readonly name: string;
  /** Its tables' CREATE TABLE statements (`upgrade`: the columns older objects lack). */
  readonly tables: readonly string[];
  /** How much of its work waits (0 for a duty with nothing to count). */
  pending(store: ProberStore): number;
  /** Its step in the alarm; absent for a duty run on a call from elsewhere (the archive, by the scheduler). */
  run?(ctx: DutyContext): Promise<DutyOutcome>;
  /** Where /api/v1/health counts `pending`; null when it does not. */
  readonly healthKey: PendingField | null;
  /** The last failures it keeps in meta rows. */
  readonly errors: readonly DutyErrorKey[];
}

/** The alarm's steps, in order, until one asks to stop: `again`/`retry`, or `failed` (some failed) or `done`. */
export async function runDuties(duties: readonly Duty[], ctx: Omit<DutyContext, 'failed'>): Promise<DutyOutcome> {
  const failed = new Set<string>();
  for (const duty of duties) {
    if (!duty.run) continue;
    const outcome = await duty.run({ ...ctx, failed });
    if (outcome === 'again' || outcome === 'retry') return outcome;
    if (outcome === 'failed') failed.add(duty.name);
  }
  return failed.size > 0 ? 'failed' : 'done';
}

/** Each duty's waiting work and last failures, as health reports them. */
export function dutyHealth(duties: readonly Duty[], store: ProberStore): Record<PendingField, number> & Record<ErrorField, string | null> {
  const health = {
    queued: 0,
    outbox: 0,
    pendingRollups: 0,
    pendingEvaluations: 0,
    pendingBursts: 0,
    pendingOtlp: 0,
  } as Record<PendingField, number> & Record<ErrorField, string | null>;
  for (const duty of duties) {
    if (duty.healthKey) health[duty.healthKey] += duty.pending(store);
    for (const key of duty.errors) health[ERROR_FIELDS[key]] = store.meta(key);
  }
  return health;
}
