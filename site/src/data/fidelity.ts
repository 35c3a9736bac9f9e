/**
 * Two checks a reader can make of the method itself, from the recent raw samples:
 * - does a probe's place in its tick matter? (TTFT relative to its target's median in the region, by place);
 * - how far can a vendor's own timing claims be trusted? (per region: how often its claim was used for the split,
 *   how often it was set aside as implausible, and how the split's network part agrees with the round trip).
 */
import { percentile } from '../../../shared/stats/percentile.ts';
import type { SiteSample } from './types.ts';

export interface PositionRow {
  position: number;
  n: number;
  /** Median of TTFT ÷ its region × target's median TTFT: 1 when the place makes no difference. */
  ratio_p50: number | null;
}

/** TTFT by place in the tick, each sample relative to its own region × target's median (successful samples of one variant). */
export function ttftByPosition(samples: readonly SiteSample[], variant: string): PositionRow[] {
  const ok = samples.filter((s) => s.prompt_variant === variant && s.error === null && s.ttft_ms !== null && s.tick_position !== null);
  const medians = new Map<string, number>();
  const groups = new Map<string, number[]>();
  for (const s of ok) {
    const key = `${s.region}|${s.target}`;
    let list = groups.get(key);
    if (!list) groups.set(key, (list = []));
    list.push(s.ttft_ms!);
  }
  for (const [key, list] of groups) medians.set(key, percentile(list, 0.5)!);
  const byPlace = new Map<number, number[]>();
  for (const s of ok) {
    const m = medians.get(`${s.region}|${s.target}`)!;
    if (!(m > 0)) continue;
    let list = byPlace.get(s.tick_position!);
    if (!list) byPlace.set(s.tick_position!, (list = []));
    list.push(s.ttft_ms! / m);
  }
  return [...byPlace.entries()]
    .sort(([a], [b]) => a - b)
    .map(([position, r]) => ({ position, n: r.length, ratio_p50: percentile(r, 0.5) }));
}

export interface FidelityRow {
  region: string;
  samples: number;
  /** Share of successful samples split by the vendor's own claim (a header or body timing), not the round trip. */
  claim_used: number | null;
  /** Share whose claim was set aside as implausible (split_note). */
  set_aside: number | null;
  /** Median of (network_ms from the vendor's claim − the round trip): near 0 when the two ways agree. */
  network_minus_rtt_p50: number | null;
  /** The split source most of them had. */
  source: string | null;
}

export function serverTimeFidelity(samples: readonly SiteSample[], target: string, variant: string): FidelityRow[] {
  const regions = new Map<string, SiteSample[]>();
  for (const s of samples) {
    if (s.target !== target || s.prompt_variant !== variant || s.error !== null) continue;
    let list = regions.get(s.region);
    if (!list) regions.set(s.region, (list = []));
    list.push(s);
  }
  return [...regions.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([region, rows]) => {
      const claimed = rows.filter((s) => s.split_source !== null && s.split_source !== 'rtt');
      const diffs = claimed.filter((s) => s.network_ms !== null && s.rtt_ms !== null).map((s) => s.network_ms! - s.rtt_ms!);
      const sources = new Map<string, number>();
      for (const s of rows) if (s.split_source) sources.set(s.split_source, (sources.get(s.split_source) ?? 0) + 1);
      const source = [...sources.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
      return {
        region,
        samples: rows.length,
        claim_used: rows.length ? claimed.length / rows.length : null,
        set_aside: rows.length ? rows.filter((s) => s.split_note !== null).length / rows.length : null,
        network_minus_rtt_p50: percentile(diffs, 0.5),
        source,
      };
    });
}
