/** Latency against price: expected time and cost per request, hand-computed; the Pareto frontier; the fastest within a budget. */
import { describe, expect, it } from 'vitest';
import type { PercentileGroup, TargetPrice } from '../../shared/api-types.ts';
import { SCENARIOS } from '../../shared/config/scenarios.ts';
import { budgetSteps, fastestWithin } from '../../shared/price/budget.ts';
import { dominates, paretoFrontier } from '../../shared/price/pareto.ts';
import { expectedTime, pricePoints, requestCost, scenarioFor, workloadOf } from '../../shared/price/workload-cost.ts';
import { targetPrice } from '../../shared/price/target-price.ts';

const median = (p50: number | null, low: number | null, high: number | null, n = 30) => ({ p50, p50_ci_low: low, p50_ci_high: high, n });
const group = (region: string, target: string, p50: number, low: number | null, high: number | null): PercentileGroup =>
  ({ region, target, ...median(p50, low, high), samples: 30, errors: 0, error_rate: 0 }) as unknown as PercentileGroup;
const price = (input: number, output: number): TargetPrice => ({
  input_per_mtokens: input,
  output_per_mtokens: output,
  currency: 'USD',
  as_of: '2026-12-01',
  source: 'test',
});

describe('expected time of a request', () => {
  it('is the first answer token, then (tokens − 1) × TPOT, with the intervals’ ends', () => {
    // 300 + 49 × 20 = 1,280; 280 + 49 × 18 = 1,162; 330 + 49 × 23 = 1,457.
    expect(expectedTime(median(300, 280, 330), median(20, 18, 23), 50)).toEqual({ ms: 1_280, low_ms: 1_162, high_ms: 1_457 });
    // One token out: the first answer token alone.
    expect(expectedTime(median(300, 280, 330), median(20, 18, 23), 1)).toEqual({ ms: 300, low_ms: 280, high_ms: 330 });
  });

  it('has no interval when either figure lacks one, and no time without both medians', () => {
    expect(expectedTime(median(300, null, null), median(20, 18, 23), 50)).toEqual({ ms: 1_280, low_ms: null, high_ms: null });
    expect(expectedTime(median(null, null, null), median(20, 18, 23), 50)).toBeNull();
    expect(expectedTime(median(300, 280, 330), undefined, 50)).toBeNull();
    expect(expectedTime(median(300, 280, 330), median(20, 18, 23), 0)).toBeNull();
  });
});

describe('cost of a request', () => {
  it('is tokens in and out at the price per million', () => {
    // (200 × 3 + 50 × 15) / 1e6 = 0.00135 US dollars.
    expect(requestCost(price(3, 15), { inputTokens: 200, outputTokens: 50 })).toBeCloseTo(0.00135, 12);
    // (32,000 × 0.15 + 50 × 0.6) / 1e6 = 0.00483.
    expect(requestCost(price(0.15, 0.6), { inputTokens: 32_000, outputTokens: 50 })).toBeCloseTo(0.00483, 12);
    expect(requestCost(price(0, 0), { inputTokens: 1_000, outputTokens: 24 })).toBe(0);
  });

  it('takes the variant’s prompt and the scenario’s judged length, the scenario the variant’s own output falls in', () => {
    const byId = (id: string) => SCENARIOS.find((s) => s.id === id)!;
    expect(scenarioFor(64).id).toBe('chat'); // 20–80
    expect(scenarioFor(24).id).toBe('code'); // 5–30 comes first
    expect(scenarioFor(16).id).toBe('code');
    expect(scenarioFor(500).id).toBe('summary');
    expect(scenarioFor(5_000).id).toBe('batch'); // beyond every range: the nearest judged length, 1,250
    expect(workloadOf({ prompt_tokens: 200 }, byId('chat'))).toEqual({ inputTokens: 200, outputTokens: 50 });
  });

  it('maps a configured price to the catalog’s names, and none to null', () => {
    expect(targetPrice({ price: { inputPerMTokens: 1, outputPerMTokens: 2, currency: 'USD', asOf: '2026-12-01', source: 's' } })).toEqual({
      input_per_mtokens: 1,
      output_per_mtokens: 2,
      currency: 'USD',
      as_of: '2026-12-01',
      source: 's',
    });
    expect(targetPrice({})).toBeNull();
  });
});

describe('points per region × target', () => {
  const ttfa = [
    group('weur', 'a', 300, 280, 330),
    group('weur', 'b', 100, 90, 110),
    group('weur', 'c', 200, 190, 210),
    group('apac', 'a', 500, 480, 530),
  ];
  const tpot = [group('weur', 'a', 20, 18, 23), group('weur', 'b', 10, 9, 11), group('apac', 'a', 20, 18, 23)];
  const points = pricePoints({
    variant: 'chat',
    workload: { inputTokens: 200, outputTokens: 50 },
    regions: ['weur', 'apac'],
    targets: [
      { id: 'a', price: price(3, 15) },
      { id: 'b', price: null },
      { id: 'c', price: price(1, 1) },
    ],
    ttfa,
    tpot,
  });

  it('has a time for each pair with both medians, a cost for each priced one', () => {
    // c has no TPOT in weur: no point. b has no price: a point without a cost.
    expect(points.map((p) => [p.region, p.target, p.ms, p.cost_usd])).toEqual([
      ['weur', 'a', 1_280, expect.closeTo(0.00135, 12)],
      ['weur', 'b', 590, null],
      ['apac', 'a', 1_480, expect.closeTo(0.00135, 12)],
    ]);
    expect(points[0]).toMatchObject({ variant: 'chat', input_tokens: 200, output_tokens: 50, low_ms: 1_162, high_ms: 1_457, ttfa_n: 30 });
  });

  it('skips groups of another variant', () => {
    const other = pricePoints({
      variant: 'code',
      workload: { inputTokens: 1_000, outputTokens: 18 },
      regions: ['weur'],
      targets: [{ id: 'a', price: price(3, 15) }],
      ttfa: ttfa.map((g) => ({ ...g, prompt_variant: 'chat' })),
      tpot: tpot.map((g) => ({ ...g, prompt_variant: 'chat' })),
    });
    expect(other).toEqual([]);
  });
});

describe('Pareto frontier', () => {
  it('keeps the points nothing beats on both, cheapest first; excludes the dominated; keeps ties together', () => {
    const A = { id: 'A', cost: 1, time: 100 };
    const A2 = { id: 'A2', cost: 1, time: 100 }; // equal to A: neither dominates
    const B = { id: 'B', cost: 2, time: 50 };
    const C = { id: 'C', cost: 2, time: 60 }; // B: as cheap, faster
    const D = { id: 'D', cost: 3, time: 50 }; // B: as fast, cheaper
    const E = { id: 'E', cost: 0.5, time: 200 };
    const F = { id: 'F', cost: 1.5, time: 100 }; // A: cheaper, as fast
    expect(paretoFrontier([A, B, C, D, E, F, A2]).map((p) => p.id)).toEqual(['E', 'A', 'A2', 'B']);
    expect(dominates(B, C) && dominates(B, D) && dominates(A, F)).toBe(true);
    expect(dominates(A, A2) || dominates(A2, A) || dominates(A, B) || dominates(B, A)).toBe(false);
    expect(paretoFrontier([])).toEqual([]);
    expect(paretoFrontier([C]).map((p) => p.id)).toEqual(['C']);
  });
});

describe('the fastest within a budget', () => {
  const point = (target: string, ms: number, cost: number | null) =>
    ({
      region: 'weur',
      target,
      variant: 'chat',
      ms,
      low_ms: null,
      high_ms: null,
      cost_usd: cost,
      input_tokens: 200,
      output_tokens: 50,
      ttfa_n: 1,
      tpot_n: 1,
    }) as const;
  const points = [
    point('cheap-slow', 900, 0.0001),
    point('mid', 500, 0.001),
    point('dear-fast', 300, 0.01),
    point('unpriced', 100, null),
    point('mid-twin', 500, 0.001),
  ];

  it('asks at each priced target’s own cost, once each', () => {
    expect(budgetSteps(points)).toEqual([0.0001, 0.001, 0.01]);
  });

  it('picks the fastest that fits and its runner-up; an unpriced target never fits', () => {
    const pick = (b: number) => {
      const x = fastestWithin(points, b);
      return [x.fastest?.target ?? null, x.runner_up?.target ?? null];
    };
    expect(pick(0.00005)).toEqual([null, null]);
    expect(pick(0.0001)).toEqual(['cheap-slow', null]);
    // Equal time and cost: by id, the other the runner-up.
    expect(pick(0.001)).toEqual(['mid', 'mid-twin']);
    expect(pick(0.01)).toEqual(['dear-fast', 'mid']);
    expect(pick(1)).toEqual(['dear-fast', 'mid']);
  });
});
