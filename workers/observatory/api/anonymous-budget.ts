/**
 * This isolate's share of the anonymous readers' daily budget (read-budget.ts holds the day's totals): what the
 * anonymous requests it served cost, in D1 rows and Durable Object requests, added to the totals in batches.
 *
 * A batch goes at least every FLUSH_MS, and as soon as either pending count reaches FLUSH_SHARE of its budget.
 * Each request is checked against the totals the isolate last learned plus what it has pending, so past the budget
 * an isolate serves at most FLUSH_SHARE of each budget and one request's own cost (anonymousRowBound) more before
 * it learns: the overshoot is at most `isolates × (FLUSH_SHARE × budget + one request's bound)`, counting only the
 * isolates that served anonymous reads in the last FLUSH_MS. When the budget object cannot be reached, nothing
 * is dropped: the batch stays pending and goes with the next one.
 */
import { DAY_MS, SECOND_MS } from '../../../shared/time.ts';
import type { Spent } from '../read-budget.ts';

export const FLUSH_MS = 10 * SECOND_MS;
export const FLUSH_SHARE = 0.01;

export interface Budgets {
  rows: number;
  doRequests: number;
}

interface IsolateView {
  day: number;
  /** The day's totals as the budget object last said. */
  spent: Spent;
  /** Spent by this isolate since, not yet added. */
  pending: Spent;
  flushedAt: number;
}

const view: IsolateView = { day: 0, spent: { rows: 0, doRequests: 0 }, pending: { rows: 0, doRequests: 0 }, flushedAt: 0 };

const dayOf = (now: number) => Math.floor(now / DAY_MS) * DAY_MS;

function rollOver(now: number): void {
  const day = dayOf(now);
  if (view.day !== day) Object.assign(view, { day, spent: { rows: 0, doRequests: 0 }, pending: { rows: 0, doRequests: 0 }, flushedAt: 0 });
}

/** Which budget today's anonymous reads have used up (as far as this isolate knows), or null. */
export function spentBudget(budgets: Budgets, now: number): keyof Budgets | null {
  rollOver(now);
  if (view.spent.rows + view.pending.rows >= budgets.rows) return 'rows';
  if (view.spent.doRequests + view.pending.doRequests >= budgets.doRequests) return 'doRequests';
  return null;
}

/** Counts what a request cost. */
export function addSpent(rows: number, doRequests: number, now: number): void {
  rollOver(now);
  view.pending.rows += rows;
  view.pending.doRequests += doRequests;
}

export function flushDue(budgets: Budgets, now: number): boolean {
  return (
    now - view.flushedAt >= FLUSH_MS ||
    view.pending.rows >= budgets.rows * FLUSH_SHARE ||
    view.pending.doRequests >= budgets.doRequests * FLUSH_SHARE
  );
}

/**
 * Adds the pending batch to the day's totals and learns them back (`spend`: the budget object's method). Should
 * the object be out of reach, the batch is put back to go with the next one, and the error is thrown.
 */
export async function flush(spend: (day: number, rows: number, doRequests: number) => Promise<Spent>, now: number): Promise<void> {
  rollOver(now);
  const batch = view.pending;
  const day = view.day;
  view.pending = { rows: 0, doRequests: 0 };
  view.flushedAt = now;
  try {
    const spent = await spend(day, batch.rows, batch.doRequests);
    if (view.day === day) view.spent = spent;
  } catch (e) {
    if (view.day === day) {
      view.pending.rows += batch.rows;
      view.pending.doRequests += batch.doRequests;
    }
    throw e;
  }
}

/** What this isolate knows, for tests. */
export function isolateBudgetView(): Readonly<IsolateView> {
  return view;
}
