/**
 * Vendor status pages, polled for the cron's tick in the poller's alarm (vendor-status-poller.ts; the cron only
 * hands it the work, vendorStatusWork): each distinct page the targets name (`statusPage`) at most once every
 * VENDOR_POLL_MS (on the first tick of each such period), bounded (shared/status/statuspage-poll.ts: a timeout, a
 * byte cap, count caps, the newest VENDOR_INCIDENTS_PER_POLL incidents) and conditional (the ETag and
 * Last-Modified of the last answer that brought a change). D1 is written only when something changed: an
 * incident's kept fields (by fingerprint), the page's first poll, or its failure (a new one, or its end). A
 * failed poll changes no incident: what was recorded stays. Errors are classified, recorded on the page's row
 * (GET /api/v1/health, `vendor_status`) and logged; one page failing never stops another, nor the tick.
 */
import { getCapacity, getConfig } from '../config.ts';
import { deleteVendorIncidentsBefore, readPageStates, writePoll, type PageState } from '../db/vendor-incidents.ts';
import { statusPagesOf } from '../../../shared/config/validate-vendor-status.ts';
import { DEFAULT_POLL_LIMITS, pollStatuspage, type PollLimits, type PollOutcome } from '../../../shared/status/statuspage-poll.ts';
import { incidentFingerprint, VENDOR_POLL_MS, type VendorIncident } from '../../../shared/status/statuspage.ts';
import { DAY_MS, MINUTE_MS } from '../../../shared/time.ts';
import { markViews } from '../views/mark-views.ts';

export interface PagePollReport {
  page: string;
  outcome: 'inactive' | PollOutcome['kind'];
  /** Incidents (re)written. */
  written: number;
  error?: string;
}

/** A page's address, `{VAR}` replaced by the Worker variable VAR; null while that is unset or empty (the page is inactive). */
export function resolvePage(page: string, env: object): string | null {
  const named = /^\{([A-Z][A-Z0-9_]*)\}$/.exec(page);
  if (!named) return page;
  const v = (env as Record<string, unknown>)[named[1]];
  return typeof v === 'string' && v !== '' ? v : null;
}

/** Whether the tick starting at `tickId` polls: the first tick of each VENDOR_POLL_MS period (every tick when ticks are longer). */
export function pollsAt(tickId: number, tickMs: number): boolean {
  return tickId % VENDOR_POLL_MS < tickMs;
}

function blankState(page: string, url: string): PageState {
  return {
    page,
    url,
    etag: null,
    last_modified: null,
    fingerprints: {},
    watched_since: null,
    changed_at: null,
    error_kind: null,
    error: null,
    error_since: null,
  };
}

/** What a poll's outcome makes of a page's state: the next state, the incidents to write, and whether anything is written at all. */
export function nextPageState(
  prev: PageState | undefined,
  page: string,
  url: string,
  outcome: PollOutcome,
  at: number,
): { state: PageState; changed: VendorIncident[]; write: boolean } {
  const base = { ...(prev ?? blankState(page, url)), url };
  const moved = prev === undefined || prev.url !== url;
  if (outcome.kind === 'failed') {
    const state = { ...base, error_kind: outcome.failure, error: outcome.error, error_since: prev?.error ? (prev.error_since ?? at) : at };
    return { state, changed: [], write: moved || prev.error !== outcome.error || prev.error_kind !== outcome.failure };
  }
  const recovered = { ...base, error_kind: null, error: null, error_since: null, watched_since: base.watched_since ?? at };
  if (outcome.kind === 'unchanged')
    return { state: recovered, changed: [], write: moved || prev.error !== null || prev.watched_since === null };
  const fingerprints = Object.fromEntries(outcome.incidents.map((i) => [i.id, incidentFingerprint(i)]));
  const changed = outcome.incidents.filter((i) => base.fingerprints[i.id] !== fingerprints[i.id]);
  // Validators are kept only with a change: an ETag that moves while nothing else does costs a full answer, not a write.
  const state: PageState =
    changed.length > 0
      ? { ...recovered, fingerprints, etag: outcome.etag, last_modified: outcome.lastModified, changed_at: at }
      : { ...recovered, ...(prev === undefined ? { etag: outcome.etag, last_modified: outcome.lastModified } : {}) };
  return { state, changed, write: changed.length > 0 || moved || prev.error !== null || prev.watched_since === null };
}

export interface VendorPollOptions {
  limits?: PollLimits;
  fetch?: typeof fetch;
}

/** A tick's vendor-status duty, as the cron hands it to the poller: plain data, stored until its alarm does it. */
export interface VendorStatusWork {
  tickId: number;
  /** Each distinct page, its address resolved from the cron's bindings (null: its variable is unset, the page inactive). */
  pages: Array<{ page: string; url: string | null }>;
  /** The first tick after midnight UTC: resolved vendor incidents older than the rollups' retention go. */
  retention: boolean;
  /** The first tick of a VENDOR_POLL_MS period: the pages are polled. */
  poll: boolean;
}

/** The tick's duty (cheap: the configuration and the bindings alone), or null without a page. */
export function vendorStatusWork(env: Env, tickId: number): VendorStatusWork | null {
  const pages = statusPagesOf(getConfig().targets);
  if (pages.length === 0) return null;
  const tickMs = getCapacity().tickMinutes * MINUTE_MS;
  return {
    tickId,
    pages: pages.map((p) => ({ page: p.page, url: resolvePage(p.page, env) })),
    retention: tickId % DAY_MS < tickMs,
    poll: pollsAt(tickId, tickMs),
  };
}

/** Whether a duty has anything to do that needs the poller: a retention delete, or a page to poll. */
export function needsPoller(work: VendorStatusWork | null): work is VendorStatusWork {
  return work !== null && (work.retention || (work.poll && work.pages.some((p) => p.url !== null)));
}

/** The tick's vendor-status duty done at once, here (tests; the observatory's own ticks hand it to the poller). */
export async function pollVendorStatus(env: Env, tickId: number, options: VendorPollOptions = {}): Promise<PagePollReport[]> {
  const work = vendorStatusWork(env, tickId);
  return work === null ? [] : runVendorStatusDuty(env, work, options);
}

/** A tick's vendor-status duty (runVendorStatus), then the vendor incidents' views marked when it changed them. */
export async function runVendorStatusDuty(env: Env, work: VendorStatusWork, options: VendorPollOptions = {}): Promise<PagePollReport[]> {
  const reports = await runVendorStatus(env.DB, work, options);
  if (reports.some((r) => r.written > 0) || work.retention) await markViews(env, ['vendor-incidents']);
  return reports;
}

/** Does a tick's vendor-status duty; never throws (each failure is recorded or logged). */
export async function runVendorStatus(db: D1Database, work: VendorStatusWork, options: VendorPollOptions = {}): Promise<PagePollReport[]> {
  const { tickId } = work;
  try {
    if (work.retention) await deleteVendorIncidentsBefore(db, tickId - getConfig().rollupRetentionDays * DAY_MS);
  } catch (e) {
    console.error(`vendor status: retention delete failed: ${(e as Error).message}`);
  }
  if (!work.poll) return [];
  const active = work.pages;
  const reports: PagePollReport[] = active.filter((p) => p.url === null).map((p) => ({ page: p.page, outcome: 'inactive', written: 0 }));
  if (reports.length === active.length) return reports;
  let states: PageState[];
  try {
    states = await readPageStates(db);
  } catch (e) {
    // Without the validators and fingerprints a poll would rewrite everything: skipped until D1 answers.
    const error = `vendor status: poll state unreadable, polls skipped this tick: ${(e as Error).message}`;
    console.error(error);
    return [
      ...reports,
      ...active.filter((p) => p.url !== null).map((p) => ({ page: p.page, outcome: 'failed' as const, written: 0, error })),
    ];
  }
  const fetchImpl = options.fetch ?? fetch;
  const polled = await Promise.all(
    active
      .filter((p): p is typeof p & { url: string } => p.url !== null)
      .map(async ({ page, url }): Promise<PagePollReport> => {
        const prev = states.find((s) => s.page === page);
        const outcome = await pollStatuspage(
          url,
          { etag: prev?.etag ?? null, lastModified: prev?.last_modified ?? null },
          fetchImpl,
          options.limits ?? DEFAULT_POLL_LIMITS,
        ).catch((e: unknown): PollOutcome => ({ kind: 'failed', failure: 'unreachable', error: String(e).slice(0, 200) }));
        const next = nextPageState(prev, page, url, outcome, tickId);
        const report: PagePollReport = {
          page,
          outcome: outcome.kind,
          written: 0,
          ...(outcome.kind === 'failed' ? { error: `${outcome.failure}: ${outcome.error}` } : {}),
        };
        if (outcome.kind === 'failed') console.error(`vendor status ${page}: ${outcome.failure}: ${outcome.error}`);
        if (!next.write) return report;
        try {
          await writePoll(db, next.state, next.changed);
          return { ...report, written: next.changed.length };
        } catch (e) {
          console.error(`vendor status ${page}: D1 write failed, retried at the next poll: ${(e as Error).message}`);
          return { ...report, error: `D1 write failed: ${(e as Error).message}` };
        }
      }),
  );
  return [...reports, ...polled];
}
