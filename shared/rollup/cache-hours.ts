/**
 * The prompt-cache probes' hourly blocks (MEASUREMENT.md, "Prompt cache"), written with the hourly rollup from
 * the same samples: per region, target, prompt-cache variant and hour, the ticks where both passes succeeded,
 * how often the second pass was faster, and the median d = ln(second / first) of TTFT and of server time; with
 * what the provider said it read from its cache on the second passes. A discount over any window then reads
 * one row per hour (shared/stats/paired.ts merges the blocks, as it does a comparison's).
 */
import { comparePaired, pairBlock, type PairBlock, type PairedResult } from '../stats/paired.ts';
import { hourOf, type RollupSample } from './rollup.ts';
import { firstPassId } from '../config/work-list.ts';

/** What the discount is measured on: time to the first token, and the server's share of it. */
export const CACHE_FIGURES = ['ttft_ms', 'server_ms'] as const;
export type CacheFigure = (typeof CACHE_FIGURES)[number];

export type CacheSample = Pick<
  RollupSample,
  'tick_id' | 'region' | 'target' | 'prompt_variant' | 'method_version' | 'error' | 'ttft_ms' | 'server_ms'
> & {
  cache_pass: number | null;
  cached_tokens: number | null;
};

export interface CacheHour {
  hour: number;
  region: string;
  target: string;
  /** The prompt-cache variant (its first pass's id). */
  prompt_variant: string;
  method_version: number;
  /** a = the second pass, b = the first: d < 0 where the cache saved time. */
  block: PairBlock;
  /** Second passes (successful) whose provider reported its cached tokens, those that reported more than none, and their sum. */
  reported: number;
  hits: number;
  cached_sum: number;
}

/** The hour's blocks, from a region's samples of the hour: those of prompt-cache passes (`cache_pass` set), the rest ignored. */
export function cacheHours(samples: Iterable<CacheSample>): CacheHour[] {
  type Group = {
    key: Omit<CacheHour, 'block' | 'reported' | 'hits' | 'cached_sum'>;
    passes: [Array<Map<number, number>>, Array<Map<number, number>>];
    reported: number;
    hits: number;
    cachedSum: number;
  };
  const groups = new Map<string, Group>();
  for (const s of samples) {
    if ((s.cache_pass !== 1 && s.cache_pass !== 2) || s.error !== null) continue;
    const second = s.cache_pass === 2;
    const variant = second ? firstPassId(s.prompt_variant) : s.prompt_variant;
    const hour = hourOf(s.tick_id);
    const id = `${hour}|${s.region}|${s.target}|${variant}|${s.method_version}`;
    let g = groups.get(id);
    if (!g) {
      const empty = () => CACHE_FIGURES.map(() => new Map<number, number>());
      g = {
        key: { hour, region: s.region, target: s.target, prompt_variant: variant, method_version: s.method_version },
        passes: [empty(), empty()],
        reported: 0,
        hits: 0,
        cachedSum: 0,
      };
      groups.set(id, g);
    }
    const pass = second ? 0 : 1;
    CACHE_FIGURES.forEach((f, i) => {
      const v = s[f];
      if (v !== null) g.passes[pass][i].set(s.tick_id, v);
    });
    if (second && s.cached_tokens !== null) {
      g.reported++;
      if (s.cached_tokens > 0) g.hits++;
      g.cachedSum += s.cached_tokens;
    }
  }
  const out: CacheHour[] = [];
  for (const g of groups.values()) {
    const [warm, cold] = g.passes;
    const block = pairBlock(
      g.key.hour,
      warm.map((a, i) => ({ a, b: cold[i] })),
    );
    if (block) out.push({ ...g.key, block, reported: g.reported, hits: g.hits, cached_sum: g.cachedSum });
  }
  return out.sort(
    (x, y) =>
      x.hour - y.hour ||
      x.region.localeCompare(y.region) ||
      x.target.localeCompare(y.target) ||
      x.prompt_variant.localeCompare(y.prompt_variant),
  );
}

/** A cache discount as published: in percent of the first pass's figure, positive where the second was faster. */
export interface CacheDiscount {
  /** Paired ticks of this figure (null when an hour of the window was stored without its count: server time's, before migrations/0016). */
  pairs: number | null;
  hours: number;
  /** 100·(1 − e^shift): the second pass's saving; its interval at `confidence`. */
  discount_pct: number | null;
  ci_low_pct: number | null;
  ci_high_pct: number | null;
  /** Share of this figure's paired ticks where the second pass was faster (null when not stored). */
  win_rate: number | null;
  /** Hours each ranked block joins (shared/stats/block-length.ts). */
  block_hours: number | null;
  p_value: number | null;
  /** faster: the second pass was faster by more than the margin (the cache is worth something); slower: the reverse. */
  verdict: 'faster' | 'slower' | 'no_difference' | 'not_enough_data';
  more_ticks: number | null;
}

/** The blocks' discount on one figure (the paired Hodges–Lehmann interval, turned round into a saving). */
export function cacheDiscount(blocks: readonly PairBlock[], figure: CacheFigure, margin?: number): CacheDiscount {
  const r: PairedResult = comparePaired(blocks, CACHE_FIGURES.indexOf(figure), margin);
  const saving = (x: number | null) => (x === null ? null : -x);
  return {
    pairs: r.pairs,
    hours: r.hours,
    discount_pct: saving(r.difference_pct),
    // A saving's interval: the difference's, negated (so its ends swap).
    ci_low_pct: saving(r.ci_high_pct),
    ci_high_pct: saving(r.ci_low_pct),
    win_rate: r.win_rate,
    block_hours: r.block_hours,
    p_value: r.p_value,
    verdict: r.verdict === 'a_faster' ? 'faster' : r.verdict === 'b_faster' ? 'slower' : r.verdict,
    more_ticks: r.more_ticks,
  };
}
