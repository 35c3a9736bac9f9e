/**
 * Runs a share of one concurrency level: up to STREAMS_PER_RUNNER streams from one invocation (a
 * Worker holds at most 6 connections open), all started at the moment the region's object named, so
 * that the level's streams, spread over several runner objects in the region, start together. A
 * runner keeps nothing in storage; it measures, and hands its samples back.
 */
import { DurableObject } from 'cloudflare:workers';
import { findRegion, findTarget, findVariant, getConfig } from '../config.ts';
import { fetchColo, COLO_REFRESH_MS } from '../probe/colo.ts';
import { runJob } from '../probe/probe-job.ts';
import { STREAMS_PER_RUNNER } from '../../../shared/bursts/level-report.ts';
import type { StoredSample } from '../db/sample-row.ts';

export interface BurstShare {
  region: string;
  target: string;
  variant: string;
  tickId: number;
  /** Which of the level's streams this runner starts (0-based). */
  streams: number[];
  /** Epoch ms at which every stream of the level starts. */
  startAt: number;
  referenceUrl: string;
}

export interface BurstStreamResult {
  stream: number;
  sample: StoredSample | null;
  /** Why there is no sample (the probe could not be set up). */
  problem?: string;
}

/** Longest a runner waits for the common start (beyond, the region's clock and this one disagree: start now). */
const MAX_WAIT_MS = 5_000;

export class BurstRunner extends DurableObject<Env> {
  private colo: { value: string | null; at: number } | null = null;

  async run(share: BurstShare): Promise<BurstStreamResult[]> {
    if (share.streams.length > STREAMS_PER_RUNNER)
      throw new Error(`a runner starts at most ${STREAMS_PER_RUNNER} streams, asked for ${share.streams.length}`);
    const region = findRegion(share.region);
    const target = findTarget(share.target);
    const variant = findVariant(share.variant);
    if (!region || !target || !variant)
      return share.streams.map((stream) => ({ stream, sample: null, problem: 'unknown region, target or variant (config changed)' }));
    const colo = await this.coloNow();
    const wait = Math.min(MAX_WAIT_MS, share.startAt - Date.now());
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    // Single streams only: no round-trip probes (they would hold connections and delay the start).
    const config = { ...getConfig(), rttProbes: 0 };
    const env = {
      referenceUrl: share.referenceUrl,
      secrets: this.env as unknown as Record<string, unknown>,
      colo,
      simulated: this.env.SIMULATED_REGIONS === '1',
    };
    return Promise.all(
      share.streams.map(async (stream): Promise<BurstStreamResult> => {
        try {
          return {
            stream,
            sample: await runJob(
              { tickId: share.tickId, target: target.id, variant: variant.id, backfill: false },
              region,
              target,
              variant,
              config,
              env,
            ),
          };
        } catch (e) {
          return { stream, sample: null, problem: e instanceof Error ? e.message : String(e) };
        }
      }),
    );
  }

  private async coloNow(): Promise<string | null> {
    if (this.colo && Date.now() - this.colo.at < COLO_REFRESH_MS) return this.colo.value;
    this.colo = { value: await fetchColo(this.env.COLO_TRACE_URL), at: Date.now() };
    return this.colo.value;
  }
}
