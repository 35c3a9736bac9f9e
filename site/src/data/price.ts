/**
 * Latency against price on the compare page (docs/MEASUREMENT.md, "Latency against price"): per region, each priced
 * target's expected time and cost for the variant's workload, the Pareto frontier, and the fastest within each budget
 * with its paired verdict against the runner-up (the scenario's Holm-corrected total, data/paired.ts).
 */
import type { PairedFigure } from '../../../shared/rollup/paired-hours.ts';
import { budgetSteps, fastestWithin } from '../../../shared/price/budget.ts';
import { paretoFrontier } from '../../../shared/price/pareto.ts';
import { pricePoints, scenarioFor, workloadOf, type PricePoint, type Workload } from '../../../shared/price/workload-cost.ts';
import type { Scenario } from '../../../shared/config/scenarios.ts';
import type { TargetPrice } from '../../../shared/api-types.ts';
import { headToHead, versusWords, type PairedView } from './paired.ts';
import type { Region, SiteData } from './types.ts';

/** A budget's answer, in words for the page. */
export interface BudgetRow {
  budget_usd: number;
  /** The targets whose own cost the budget is. */
  cost_of: string[];
  fastest: PricePoint | null;
  runner_up: PricePoint | null;
  /** The paired verdict of the fastest against the runner-up ('none' without a runner-up). */
  verdict: string;
  words: string;
}

export interface RegionPrices {
  region: Region;
  /** Priced points, cheapest first. */
  points: PricePoint[];
  frontier: string[];
  /** Labels of the targets measured here that have no price. */
  unpriced: string[];
  budgets: BudgetRow[];
}

export interface PriceView {
  scenario: Scenario;
  workload: Workload;
  figure: PairedFigure;
  regions: RegionPrices[];
  /** Every target's price as the catalog gave it (null: none), in the configured order. */
  prices: Array<{ id: string; label: string; price: TargetPrice | null }>;
}

/**
 * The fastest against the runner-up in words. A verdict that does not separate them says so: tied (no meaningful
 * difference), or not distinguishable (not settled, or no paired ticks yet).
 */
export function budgetWords(
  view: PairedView | undefined,
  figure: PairedFigure,
  region: string,
  first: string,
  second: string | null,
  label: (id: string) => string,
): { verdict: string; words: string } {
  if (second === null) return { verdict: 'none', words: 'the only priced target within it' };
  const c = headToHead(view, figure, region, first, second);
  const other = label(second);
  if (!c) return { verdict: 'not_enough_data', words: `not distinguishable from ${other}: no paired ticks yet` };
  switch (c.verdict) {
    case 'a_faster':
    case 'b_faster':
      return { verdict: c.verdict, words: versusWords(c, other) };
    case 'no_difference':
      return { verdict: c.verdict, words: `tied with ${other}: ${versusWords(c, other)}` };
    default:
      return {
        verdict: c.verdict,
        words: `not distinguishable from ${other} yet${c.more_ticks !== null ? `: about ${c.more_ticks.toLocaleString('en-US')} more paired ticks` : ''}`,
      };
  }
}

export function priceView(data: SiteData): PriceView {
  const scenario = scenarioFor(data.variant.max_tokens);
  const workload = workloadOf(data.variant, scenario);
  const figure = `total_${scenario.id}` as PairedFigure;
  const label = (id: string) => data.targets.find((t) => t.id === id)?.label ?? id;
  const view = data.paired[data.variant.id];
  const regions = data.regions.flatMap((region): RegionPrices[] => {
    const all = pricePoints({
      variant: data.variant.id,
      workload,
      regions: [region.code],
      targets: data.targets.map((t) => ({ id: t.id, price: t.price ?? null })),
      ttfa: data.percentiles.ttfa_ms,
      tpot: data.percentiles.tpot_ms,
    });
    if (all.length === 0) return [];
    const points = all.filter((p) => p.cost_usd !== null).sort((a, b) => a.cost_usd! - b.cost_usd! || a.ms - b.ms);
    const frontier = paretoFrontier(points.map((p) => ({ ...p, cost: p.cost_usd!, time: p.ms }))).map((p) => p.target);
    const budgets = budgetSteps(points).map((budget): BudgetRow => {
      const pick = fastestWithin(points, budget);
      const words = budgetWords(view, figure, region.code, pick.fastest!.target, pick.runner_up?.target ?? null, label);
      return {
        budget_usd: budget,
        cost_of: points.filter((p) => p.cost_usd === budget).map((p) => label(p.target)),
        fastest: pick.fastest,
        runner_up: pick.runner_up,
        ...words,
      };
    });
    return [{ region, points, frontier, unpriced: all.filter((p) => p.cost_usd === null).map((p) => label(p.target)), budgets }];
  });
  return { scenario, workload, figure, regions, prices: data.targets.map((t) => ({ id: t.id, label: t.label, price: t.price ?? null })) };
}
