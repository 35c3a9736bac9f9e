/**
 * A region's evaluation of one tick: each of its pairs probed at that tick is judged by the status
 * rules against its baseline (read from hourly rollups once per hour and kept here), and the
 * findings go to the status keeper. D1 reads: the region's samples of the rules' lookback, and, once
 * an hour, the baseline's rollup rows.
 */
import type { SubrequestBudget } from './subrequest-budget.ts';
import { hourOf } from '../../shared/rollup/rollup.ts';
import { evaluate, type Finding, type Baseline } from '../../shared/status/evaluate.ts';
import { baselineKey, chooseBaselines, sameHourStarts, trailingHours } from '../../shared/status/baseline.ts';
import { lookbackMs, resolveStatusRules, rulesForSpread, type StatusRules } from '../../shared/status/rules.ts';
import { getCapacity, getConfig } from './config.ts';
import { METHOD_VERSION } from '../../shared/constants.ts';
import { regionWindow, type RegionWindowRow } from './db/status.ts';
import { regionRollupsAtHours } from './db/rollups.ts';
import type { EvaluationQueue } from './prober-store.ts';
import { HOUR_MS } from '../../shared/time.ts';

export interface PairFinding {
  target: string;
  variant: string;
  finding: Finding;
}

/** Baselines of one region for one hour, kept between evaluations of that hour. */
export class BaselineCache {
  private hour = -1;
  private baselines = new Map<string, Baseline>();

  async get(db: D1Database, region: string, tick: number, rules: StatusRules): Promise<Map<string, Baseline>> {
    const hour = hourOf(tick);
    if (hour !== this.hour) {
      const same = await regionRollupsAtHours(db, region, sameHourStarts(hour), METHOD_VERSION);
      const { from, to } = trailingHours(hour);
      const trailing = await regionRollupsAtHours(
        db,
        region,
        Array.from({ length: (to - from) / HOUR_MS }, (_, k) => from + k * HOUR_MS),
        METHOD_VERSION,
      );
      this.baselines = chooseBaselines(same, trailing, rules.baselineMinSamples);
      this.hour = hour;
    }
    return this.baselines;
  }
}

/** `ticks`: the ticks this region ran within the rules' lookback before `tick` (lookbackMs), and `tick`. */
export async function evaluateTick(
  db: D1Database,
  region: string,
  tick: number,
  ticks: number[],
  rules: StatusRules,
  cache: BaselineCache,
): Promise<PairFinding[]> {
  const rows = await regionWindow(db, region, ticks, METHOD_VERSION);
  const pairs = new Map<string, RegionWindowRow[]>();
  for (const r of rows) {
    const key = baselineKey(r.target, r.prompt_variant);
    pairs.set(key, [...(pairs.get(key) ?? []), r]);
  }
  const probed = [...pairs.values()].filter((samples) => samples.some((s) => s.tick_id === tick));
  if (probed.length === 0) return [];
  const baselines = await cache.get(db, region, tick, rules);
  return probed
    .map((samples) => {
      const { target, prompt_variant: variant } = samples[0];
      return { target, variant, finding: evaluate(samples, tick, baselines.get(baselineKey(target, variant)) ?? null, rules) };
    })
    .sort((a, b) => `${a.target}|${a.variant}`.localeCompare(`${b.target}|${b.variant}`));
}

/** Where findings go: the status keeper's report method. */
export interface FindingsSink {
  report(region: string, findings: PairFinding[]): Promise<number>;
}

/**
 * Judges each finished tick of a regional object's evaluation queue (prober-store.ts), oldest first, and
 * hands the findings to the status keeper. A tick stays pending (retried at a later alarm) until the
 * keeper has it; the keeper refuses a finding it already has, so a retry never counts twice. Evaluated
 * ticks are kept (done = 1) for as long as the rules look back: they are the ticks a later evaluation
 * reads. Returns null, or what failed.
 */
export async function evaluatePendingTicks(
  queue: EvaluationQueue,
  db: D1Database,
  keeper: FindingsSink,
  region: string,
  baselines: BaselineCache,
  budget?: SubrequestBudget,
): Promise<string | null> {
  const ticks = queue.pendingEvaluations();
  if (ticks.length === 0) return null;
  const capacity = getCapacity();
  const rules = rulesForSpread(resolveStatusRules(getConfig().status), capacity.spread);
  const lookback = lookbackMs(rules, capacity.tickMinutes, capacity.spread);
  for (const tick of ticks) {
    // In tick order: a tick waits while an older one still has probes to run (their samples belong in its window).
    if (queue.hasJobsBefore(tick)) return null;
    const window = queue.doneTicks(tick - lookback, tick);
    try {
      const findings = await evaluateTick(db, region, tick, window, rules, baselines);
      if (findings.length > 0) {
        // A report is a call to the keeper object: one subrequest. Out of them, the tick waits for the next alarm.
        if (budget && !budget.take(1)) return 'out of subrequests for this invocation; the rest waits for the next alarm';
        await keeper.report(region, findings);
      }
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      console.error(`region ${region}: status evaluation of tick ${new Date(tick).toISOString()} failed, kept for retry: ${message}`);
      return message;
    }
    queue.evaluated(tick, tick - lookback);
  }
  return null;
}
