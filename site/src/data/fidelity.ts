/**
 * Two checks a reader can make of the method itself:
 * - does a probe's place in its tick matter? (TTFT relative to its target's median in the region, by place, from the
 *   recent raw samples);
 * - how far can a vendor's own timing claims be trusted? (per region: how often its claim was used for the split,
 *   how often it was set aside as implausible, and how the split's network part agrees with the round trip: the
 *   API's answer over the last 24 whole hours).
 */
import { percentile } from '../../../shared/stats/percentile.ts';
import type { SiteData, SiteSample } from './types.ts';

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

/** How far a vendor's own timing claims held, per region (GET /api/v1/fidelity over the last 24 whole hours). */
export type FidelityRow = { region: string } & import('../../../shared/rollup/hour-places.ts').FidelityRow;

export function serverTimeFidelity(data: Pick<SiteData, 'fidelity'>, target: string, variant: string): FidelityRow[] {
  return (data.fidelity?.rows ?? [])
    .filter((r) => r.target === target && r.prompt_variant === variant && r.samples > 0)
    .map(({ region, samples, claim_used, set_aside, network_minus_rtt_p50, source }) => ({
      region,
      samples,
      claim_used,
      set_aside,
      network_minus_rtt_p50,
      source,
    }))
    .sort((a, b) => a.region.localeCompare(b.region));
}
