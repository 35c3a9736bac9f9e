/**
 * One region's concurrency run for one target: each level in turn (1, 4, 8, 16 by default), its
 * streams split over runner objects in the region and started at one moment; the samples stored
 * apart from regular ones (burst_samples). A rate limit (429) in a level stops the escalation.
 */
import { getConfig } from '../config.ts';
import type { StoredBurstSample } from '../db/bursts.ts';
import { burstLevels } from '../../../shared/config/bursts.ts';
import { burstId, isRateLimited, splitStreams } from '../../../shared/bursts/level-report.ts';
import type { BurstStreamResult } from './burst-runner.ts';
import type { RegionConfig, TargetConfig } from '../../../shared/config/types.ts';

/** Lead time for the runners to be reached before the common start. */
export const START_LEAD_MS = 300;

export interface LevelOutcome {
  level: number;
  streams: number;
  errors: number;
  rate_limited: number;
  /** The last start after the first, as the runners' clocks saw them. */
  start_spread_ms: number | null;
  /** Streams with no sample (a runner failed): counted, never stored. */
  missing: number;
}

export interface TargetBurstOutcome {
  target: string;
  levels: LevelOutcome[];
  /** Set when a rate limit stopped the escalation. */
  stopped_at: number | null;
}

/** Stores a level's samples (in D1, or kept for a later write when D1 fails: the caller's outbox). */
export type StoreBurstRows = (rows: StoredBurstSample[]) => Promise<void>;

export async function runTargetBurst(
  env: Env,
  region: RegionConfig,
  target: TargetConfig,
  tickId: number,
  referenceUrl: string,
  store: StoreBurstRows,
): Promise<TargetBurstOutcome> {
  const config = getConfig();
  const b = config.bursts!;
  const variant = b.variant ?? config.promptVariants[0].id;
  const outcome: TargetBurstOutcome = { target: target.id, levels: [], stopped_at: null };
  for (const level of burstLevels(b)) {
    const startAt = Date.now() + START_LEAD_MS;
    const shares = splitStreams(level);
    const results: BurstStreamResult[] = (
      await Promise.all(
        shares.map((streams, slot) => {
          const runner = env.BURST_RUNNER.getByName(`${region.code}:${slot}`, { locationHint: region.locationHint });
          return runner
            .run({ region: region.code, target: target.id, variant, tickId, streams, startAt, referenceUrl })
            .catch((e: unknown) =>
              streams.map((stream) => ({ stream, sample: null, problem: e instanceof Error ? e.message : String(e) })),
            );
        }),
      )
    ).flat();
    const measured = results.filter((r) => r.sample !== null);
    const first = Math.min(...measured.map((r) => r.sample!.started_at));
    const id = burstId(tickId, region.code, target.id, level);
    const rows: StoredBurstSample[] = measured.map((r) => ({
      ...r.sample!,
      burst_id: id,
      burst_level: level,
      burst_stream: r.stream,
      start_offset_ms: r.sample!.started_at - first,
    }));
    await store(rows);
    for (const r of results.filter((x) => x.sample === null))
      console.error(`region ${region.code}: burst ${id} stream ${r.stream} not measured: ${r.problem}`);
    const limited = rows.filter(isRateLimited).length;
    outcome.levels.push({
      level,
      streams: rows.length,
      errors: rows.filter((r) => r.error !== null).length,
      rate_limited: limited,
      start_spread_ms: rows.length ? Math.max(...rows.map((r) => r.start_offset_ms)) : null,
      missing: results.length - rows.length,
    });
    if (limited > 0) {
      outcome.stopped_at = level;
      break;
    }
  }
  return outcome;
}
