/**
 * What a concurrency level reports, from its streams (one or many runs of it): TTFT p50/p95, how much
 * the median server time grew over one stream alone (queueing), the decode speed each stream saw,
 * errors and rate limits, and how closely the streams' starts lined up.
 */
import { percentile } from '../stats/percentile.ts';

/** The fields of a stored burst sample a report reads. */
export interface BurstStreamRow {
  burst_id: string;
  burst_level: number;
  start_offset_ms: number;
  status: number | null;
  error: string | null;
  ttft_ms: number | null;
  server_ms: number | null;
  decode_tps: number | null;
}

export interface LevelReport {
  level: number;
  /** Runs of this level, and their streams. */
  runs: number;
  streams: number;
  ok: number;
  errors: number;
  /** Of the errors, answers 429: the vendor's concurrency or rate limit. */
  rate_limited: number;
  ttft_p50: number | null;
  ttft_p95: number | null;
  server_p50: number | null;
  /** Median server time over level 1's, in ms: the queueing this level adds (null without level 1 or a split). */
  server_growth_ms: number | null;
  /** Decode speed each stream saw: its median, and the slowest stream's. */
  decode_tps_p50: number | null;
  decode_tps_min: number | null;
  /** How far apart the streams of one run started (the last start after the first): the median over runs, and the worst. */
  start_spread_ms_p50: number | null;
  start_spread_ms_max: number | null;
}

export const RATE_LIMITED = 429;

export function isRateLimited(s: Pick<BurstStreamRow, 'status' | 'error'>): boolean {
  return s.status === RATE_LIMITED;
}

/** One report per level, ascending. */
export function levelReports(rows: readonly BurstStreamRow[]): LevelReport[] {
  const levels = [...new Set(rows.map((r) => r.burst_level))].sort((a, b) => a - b);
  const reports = levels.map((level): LevelReport => {
    const mine = rows.filter((r) => r.burst_level === level);
    const ok = mine.filter((r) => r.error === null);
    const values = (f: (r: BurstStreamRow) => number | null) => ok.map(f).filter((v): v is number => v !== null);
    const runs = new Map<string, number[]>();
    for (const r of mine) runs.set(r.burst_id, [...(runs.get(r.burst_id) ?? []), r.start_offset_ms]);
    const spreads = [...runs.values()].map((offsets) => Math.max(...offsets) - Math.min(...offsets));
    const tps = values((r) => r.decode_tps);
    return {
      level,
      runs: runs.size,
      streams: mine.length,
      ok: ok.length,
      errors: mine.length - ok.length,
      rate_limited: mine.filter(isRateLimited).length,
      ttft_p50: percentile(
        values((r) => r.ttft_ms),
        0.5,
      ),
      ttft_p95: percentile(
        values((r) => r.ttft_ms),
        0.95,
      ),
      server_p50: percentile(
        values((r) => r.server_ms),
        0.5,
      ),
      server_growth_ms: null,
      decode_tps_p50: percentile(tps, 0.5),
      decode_tps_min: tps.length ? Math.min(...tps) : null,
      start_spread_ms_p50: percentile(spreads, 0.5),
      start_spread_ms_max: spreads.length ? Math.max(...spreads) : null,
    };
  });
  const alone = reports.find((r) => r.level === 1)?.server_p50 ?? null;
  for (const r of reports) r.server_growth_ms = alone !== null && r.server_p50 !== null ? r.server_p50 - alone : null;
  return reports;
}

/** Streams per runner object: a Worker invocation holds at most 6 connections open, and one is kept spare. */
export const STREAMS_PER_RUNNER = 4;

/** Stream indices 0…level−1 split over ceil(level / STREAMS_PER_RUNNER) runners, as evenly as they go. */
export function splitStreams(level: number, perRunner = STREAMS_PER_RUNNER): number[][] {
  const runners = Math.ceil(level / perRunner);
  return Array.from({ length: runners }, (_, r) => Array.from({ length: level }, (_, i) => i).filter((i) => i % runners === r));
}

/** The burst id of one level of one run: run time, region, target, level. */
export function burstId(tickId: number, region: string, target: string, level: number): string {
  return `${new Date(tickId).toISOString()}|${region}|${target}|${level}`;
}
