/**
 * A pair's baseline, from its hourly rollups: the same hour of the day on each of the previous 7
 * days (so a daily rhythm is not mistaken for a slowdown) when those hold enough samples, otherwise
 * the trailing 24 ended hours. Read once per hour and region (status-evaluation.ts keeps it).
 */
import { mergeRollups, type Rollup } from '../rollup/rollup.ts';
import { quantile, type ExpHistogram } from '../stats/exp-histogram.ts';
import type { Baseline, BaselineSource } from './evaluate.ts';
import { DAY_MS, HOUR_MS } from '../time.ts';

export const BASELINE_DAYS = 7;
export const TRAILING_HOURS = 24;

/** The hours read for `hour`'s baseline: the same hour of the 7 previous days. */
export const sameHourStarts = (hour: number): number[] => Array.from({ length: BASELINE_DAYS }, (_, k) => hour - (k + 1) * DAY_MS);
/** The trailing window [from, to) of ended hours before `hour`. */
export const trailingHours = (hour: number): { from: number; to: number } => ({ from: hour - TRAILING_HOURS * HOUR_MS, to: hour });

const pairKey = (target: string, variant: string) => `${target}|${variant}`;

/** The split source that holds the most samples (its parts are never pooled across sources). */
function mainSplit(r: Rollup): { network: ExpHistogram; server: ExpHistogram } | null {
  let best: { network: ExpHistogram; server: ExpHistogram } | null = null;
  for (const parts of r.split.values())
    if (!best || parts.server_ms.count > best.server.count) best = { network: parts.network_ms, server: parts.server_ms };
  return best;
}

/** Baselines per target|variant from one set of rows (one region's). */
export function baselinesFrom(rows: readonly Rollup[], source: BaselineSource): Map<string, Baseline> {
  const merged = new Map<string, Rollup>();
  for (const r of rows) {
    const key = pairKey(r.target, r.prompt_variant);
    const have = merged.get(key);
    merged.set(key, have ? mergeRollups(have, { ...r, hour: have.hour }) : r);
  }
  const out = new Map<string, Baseline>();
  for (const [key, r] of merged) {
    const split = mainSplit(r);
    out.set(key, {
      source,
      n: r.successes,
      ttft_p99: quantile(r.histograms.ttft_ms, 0.99),
      decode_p50: quantile(r.histograms.decode_tps, 0.5),
      network_p50: split ? quantile(split.network, 0.5) : null,
      server_p50: split ? quantile(split.server, 0.5) : null,
    });
  }
  return out;
}

/** Per pair, the same-hour baseline when it has `minSamples`, else the trailing one (null when neither exists). */
export function chooseBaselines(sameHour: readonly Rollup[], trailing: readonly Rollup[], minSamples: number): Map<string, Baseline> {
  const a = baselinesFrom(sameHour, 'same-hour-7d');
  const b = baselinesFrom(trailing, 'trailing-24h');
  const out = new Map(b);
  for (const [key, base] of a) if (base.n >= minSamples || !out.has(key)) out.set(key, base);
  return out;
}

export const baselineKey = pairKey;
