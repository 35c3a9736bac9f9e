/**
 * "Answered from": where the vendor served a region × target's recent samples (`served_by`, with the
 * header, body field or URL part that said so), one entry per place, most samples first, each with its
 * own TTFT median so a split between places shows.
 */
import { percentile } from '../../../shared/stats/percentile.ts';
import type { SiteSample } from './types.ts';

export interface ServedPlace {
  /** The vendor's region, PoP or routed provider; null: it did not say. */
  place: string | null;
  source: string | null;
  samples: number;
  ttft_p50: number | null;
}

export function answeredFrom(samples: readonly SiteSample[], region: string, target: string, variant: string): ServedPlace[] {
  const by = new Map<string, { place: string | null; source: string | null; samples: number; ttft: number[] }>();
  for (const s of samples) {
    if (s.region !== region || s.target !== target || s.prompt_variant !== variant) continue;
    const key = `${s.served_by ?? ''}|${s.served_by_source ?? ''}`;
    let p = by.get(key);
    if (!p) by.set(key, (p = { place: s.served_by, source: s.served_by_source, samples: 0, ttft: [] }));
    p.samples++;
    if (s.error === null && s.ttft_ms !== null) p.ttft.push(s.ttft_ms);
  }
  return [...by.values()]
    .map((p) => ({ place: p.place, source: p.source, samples: p.samples, ttft_p50: percentile(p.ttft, 0.5) }))
    .sort((a, b) => b.samples - a.samples || String(a.place).localeCompare(String(b.place)));
}
