/**
 * The fastest within a budget: among the priced targets of a region whose cost per request fits the budget, the one
 * with the lowest expected time, and the runner-up it must be told apart from (by the paired verdict, not here).
 */
import type { PricePoint } from './workload-cost.ts';

export interface BudgetPick {
  /** US dollars per request. */
  budget_usd: number;
  /** Priced targets that fit it, fastest first (ties: the cheaper, then by id). */
  fits: PricePoint[];
  fastest: PricePoint | null;
  runner_up: PricePoint | null;
}

const faster = (a: PricePoint, b: PricePoint) => a.ms - b.ms || a.cost_usd! - b.cost_usd! || a.target.localeCompare(b.target);

/** The budgets worth asking about: each priced target's own cost, cheapest first, once each. */
export function budgetSteps(points: readonly PricePoint[]): number[] {
  return [...new Set(points.flatMap((p) => (p.cost_usd === null ? [] : [p.cost_usd])))].sort((a, b) => a - b);
}

/** The fastest of one region's points that cost at most `budget` (unpriced points never fit). */
export function fastestWithin(points: readonly PricePoint[], budget: number): BudgetPick {
  const fits = points.filter((p) => p.cost_usd !== null && p.cost_usd <= budget).sort(faster);
  return { budget_usd: budget, fits, fastest: fits[0] ?? null, runner_up: fits[1] ?? null };
}
