/** Per-target series for the charts, derived from samples at build time. */
import { percentile } from '../../../shared/stats/percentile.ts';
import type { SiteSample } from './types.ts';
import { theilSen } from '../../../shared/stats/line-fit.ts';

import { DAY_MS, HOUR_MS } from '../../../shared/time.ts';
/** Samples whose chunk timelines feed the ITL distribution (the newest), per target. */
const ITL_SAMPLES = 300;

const ok = (s: SiteSample) => s.error === null;

/** A sample's series on a chart: its region on a target's page, its target on a region's page. */
export type SeriesOf = (s: SiteSample) => string;
export const byRegion: SeriesOf = (s) => s.region;

/**
 * Median network and server time per series, over the samples of the split source most of them had
 * (sources are never pooled: a header claim and a round trip are different measurements), with how
 * many samples that is and which sources were left out.
 */
export function splitBySeries(samples: SiteSample[], seriesOf: SeriesOf = byRegion) {
  const names = [...new Set(samples.map(seriesOf))].sort();
  return names.map((series) => {
    const rows = samples.filter((s) => seriesOf(s) === series && ok(s) && s.ttft_ms !== null);
    const bySource = new Map<string, SiteSample[]>();
    for (const s of rows) {
      if (s.network_ms === null || s.server_ms === null || s.split_source === null) continue;
      bySource.set(s.split_source, [...(bySource.get(s.split_source) ?? []), s]);
    }
    const [source, split] = [...bySource.entries()].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]))[0] ?? [null, []];
    const residuals = split.filter((s) => s.residual_ms !== null).map((s) => s.residual_ms!);
    return {
      series,
      n: rows.length,
      with_split: split.length,
      network_ms: percentile(
        split.map((s) => s.network_ms!),
        0.5,
      ),
      server_ms: percentile(
        split.map((s) => s.server_ms!),
        0.5,
      ),
      residual_ms: percentile(residuals, 0.5),
      ttft_ms: percentile(
        rows.map((s) => s.ttft_ms!),
        0.5,
      ),
      split_source: source,
      other_sources: [...bySource.keys()].filter((k) => k !== source).sort(),
    };
  });
}

/** TTFT of every successful sample, by series (for an ECDF). */
export function ttftValues(samples: SiteSample[], seriesOf: SeriesOf = byRegion): Array<{ series: string; ttft_ms: number }> {
  return samples.filter((s) => ok(s) && s.ttft_ms !== null).map((s) => ({ series: seriesOf(s), ttft_ms: s.ttft_ms! }));
}

/** p50 and p95 TTFT per series and time bucket. */
export function ttftOverTime(samples: SiteSample[], bucketMs: number, seriesOf: SeriesOf = byRegion) {
  const groups = new Map<string, { series: string; t: number; values: number[] }>();
  for (const s of samples) {
    if (!ok(s) || s.ttft_ms === null) continue;
    const t = Math.floor(s.tick_id / bucketMs) * bucketMs;
    const series = seriesOf(s);
    const key = `${series}|${t}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { series, t, values: [] }));
    g.values.push(s.ttft_ms);
  }
  return [...groups.values()]
    .map((g) => ({ series: g.series, t: g.t, n: g.values.length, p50: percentile(g.values, 0.5)!, p95: percentile(g.values, 0.95)! }))
    .sort((a, b) => a.t - b.t || a.series.localeCompare(b.series));
}

/** Gaps between consecutive token-bearing reads (ITL), from the newest samples' timelines. */
export function itlGaps(samples: SiteSample[]): number[] {
  const gaps: number[] = [];
  const newest = samples
    .filter((s) => ok(s) && s.timeline.length > 1)
    .sort((a, b) => b.started_at - a.started_at)
    .slice(0, ITL_SAMPLES);
  for (const s of newest) for (let i = 1; i < s.timeline.length; i++) gaps.push(Math.round((s.timeline[i] - s.timeline[i - 1]) * 10) / 10);
  return gaps;
}

/** Tokens that came through the stream: the answer alone when the reasoning was counted but not streamed. */
export function streamedTokens(s: SiteSample): number | null {
  return s.reasoning_tokens !== null && s.reasoning_streamed === false ? s.answer_tokens : s.output_tokens;
}

/** Streamed tokens per token-bearing chunk, per sample. */
export function tokensPerChunk(samples: SiteSample[]): number[] {
  return samples.flatMap((s) => {
    const tokens = streamedTokens(s);
    return ok(s) && s.chunks > 0 && tokens !== null ? [Math.round((tokens / s.chunks) * 100) / 100] : [];
  });
}

/** Failed samples per error class and time bucket. */
export function errorsOverTime(samples: SiteSample[], bucketMs: number) {
  const counts = new Map<string, { t: number; error: string; count: number }>();
  for (const s of samples) {
    if (s.error === null) continue;
    const t = Math.floor(s.tick_id / bucketMs) * bucketMs;
    const key = `${t}|${s.error}`;
    const c = counts.get(key) ?? { t, error: s.error, count: 0 };
    c.count++;
    counts.set(key, c);
  }
  return [...counts.values()].sort((a, b) => a.t - b.t || a.error.localeCompare(b.error));
}

/** A bucket size that gives a readable number of points for the window. */
export function bucketFor(fromMs: number, toMs: number): number {
  return toMs - fromMs > 2 * DAY_MS ? 6 * HOUR_MS : HOUR_MS;
}

/**
 * The prefill rate per series: a robust line (Theil–Sen) of server time against prompt tokens over
 * the successful samples of every prompt variant, so the slope is the server's time per prompt token
 * and the intercept its fixed overhead. Server time, not TTFT, so the network's share (different per
 * region, the same for every prompt size) drops out of the slope and out of the overhead. Prompt
 * tokens as the provider counted them (its usage report) when every sample of the series has one,
 * else the variant's configured size (approximate by construction): never a mix of the two.
 */
export function prefillFits(samples: SiteSample[], seriesOf: SeriesOf = byRegion) {
  const usable = samples.filter((s) => ok(s) && s.server_ms !== null);
  const names = [...new Set(usable.map(seriesOf))];
  const points: Array<{ series: string; prompt_tokens: number; server_ms: number }> = [];
  const fits = names.map((series) => {
    const mine = usable.filter((s) => seriesOf(s) === series);
    const counted = mine.every((s) => s.input_tokens !== null && s.input_tokens !== undefined);
    const own = mine.map((s) => ({ series, prompt_tokens: counted ? s.input_tokens! : s.prompt_tokens, server_ms: s.server_ms! }));
    points.push(...own);
    return {
      series,
      tokens: counted ? ('reported by the provider' as const) : ('configured' as const),
      sizes: [...new Set(mine.map((s) => s.prompt_tokens))].sort((a, b) => a - b),
      fit: theilSen(own.map((p) => [p.prompt_tokens, p.server_ms] as const)),
    };
  });
  return { points, fits };
}
