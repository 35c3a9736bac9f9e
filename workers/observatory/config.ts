/** The validated configuration, and the parts of it each tick and probe need. */
import { tickPositions } from '../../shared/config/tick-order.ts';
import { config as userConfig } from '../../observatory.config.ts';
import { validateConfig } from '../../shared/config/validate.ts';
import { capacity, type Capacity } from '../../shared/config/capacity.ts';
import { tickSlice } from '../../shared/config/schedule.ts';
import { storedListOf, workListOf } from '../../shared/config/work-list.ts';
import type { ObservatoryConfig, PromptVariantConfig, RegionConfig, TargetConfig } from '../../shared/config/types.ts';

let validated: ObservatoryConfig | null = null;

/** Throws ConfigError (every problem listed) when observatory.config.ts is wrong. */
export function getConfig(): ObservatoryConfig {
  validated ??= validateConfig(userConfig);
  return validated;
}

let modelled: Capacity | null = null;

/** The cost model of the configuration, computed once per isolate (the configuration does not change within one). */
export function getCapacity(): Capacity {
  modelled ??= capacity(getConfig());
  return modelled;
}

/** One probe a region owes for a tick. */
export interface Job {
  tickId: number;
  target: string;
  variant: string;
  backfill: boolean;
  /** Run by its region because the tick never came (region-prober.ts, the heartbeat), not by the scheduler. */
  late?: boolean;
  /** Its place in the region's shuffled order of the tick (shared/config/tick-order.ts), stored as tick_position. */
  position?: number;
}

/** The (target, variant) pairs a region probes, in a stable order (shared/config/work-list.ts). */
export function workList(region: string): Array<{ target: TargetConfig; variant: PromptVariantConfig }> {
  return workListOf(getConfig(), region);
}

/** The (target, variant) pairs a region stores samples of: its work list and the prompt-cache jobs' second passes (work-list.ts). */
export function storedList(region: string): Array<{ target: TargetConfig; variant: PromptVariantConfig }> {
  return storedListOf(getConfig(), region);
}

/** A region's share of a tick: its work list, thinned to the tick's slice when the work is spread over ticks, in a shuffled order. */
export function tickJobs(region: string, tickId: number, flags: { backfill?: boolean; late?: boolean } = {}): Job[] {
  const { spread, tickMinutes } = getCapacity();
  const slice = tickSlice(tickId, tickMinutes, spread);
  const share = workList(region).filter((_, i) => i % spread === slice);
  // Probed in an order shuffled per tick and region, each job's place recorded.
  const positions = tickPositions(share.length, tickId, region);
  return share.map(({ target, variant }, i) => ({
    tickId,
    target: target.id,
    variant: variant.id,
    backfill: flags.backfill === true,
    ...(flags.late ? { late: true } : {}),
    position: positions[i],
  }));
}

export function findRegion(code: string): RegionConfig | undefined {
  return getConfig().regions.find((r) => r.code === code);
}

export function findTarget(id: string): TargetConfig | undefined {
  return getConfig().targets.find((t) => t.id === id);
}

/** A target's label, or its id when the configuration no longer has it. */
export function targetLabel(id: string): string {
  return findTarget(id)?.label ?? id;
}

/** A prompt-cache variant's second pass (validate.ts adds one to each). */
export function warmPassOf(id: string): PromptVariantConfig | undefined {
  return getConfig().promptVariants.find((v) => v.warmPassOf === id);
}

export function findVariant(id: string): PromptVariantConfig | undefined {
  return getConfig().promptVariants.find((v) => v.id === id);
}
