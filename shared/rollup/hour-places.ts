/**
 * Where each hour's samples were taken and answered, per region × target × prompt variant: how many, the newest,
 * the Cloudflare colos they ran in, the places the vendor said it answered from (each with its successful probes'
 * TTFT), and how far the vendor's own timing claims held against the round trip. Written with the hour's rollup,
 * from the same samples (migrations/0017_hour_places.sql), so the catalog, "answered from" and the fidelity
 * check of any window of whole hours read one row a pair and hour, not every sample.
 *
 * The TTFT values and the claim's differences are kept as they are (one a tick at most: a few dozen numbers an
 * hour), so their medians over a window are exact, as over the raw samples.
 */
import { percentile } from '../stats/percentile.ts';

/** The columns of a sample a place record is made of (read with the hour's other rollup columns). */
export interface PlaceSample {
  region: string;
  target: string;
  prompt_variant: string;
  started_at: number;
  colo: string | null;
  colo_outside_region: number | boolean | null;
  served_by: string | null;
  served_by_source: string | null;
  error: string | null;
  ttft_ms: number | null;
  split_source: string | null;
  split_note: string | null;
  network_ms: number | null;
  rtt_ms: number | null;
}

/** [colo, samples, of them outside the region]. */
export type ColoCount = [string | null, number, number];
/** [place, source, samples, successful probes' TTFT]. */
export type ServedPlace = [string | null, string | null, number, number[]];

export interface Fidelity {
  /** Successful samples. */
  ok: number;
  /** Of them split by the vendor's own claim (a header or body timing), not the round trip. */
  claimed: number;
  /** Of them whose claim was set aside as implausible. */
  set_aside: number;
  /** Successful samples per split source. */
  sources: Array<[string, number]>;
  /** network_ms from the claim − the round trip, where both were measured. */
  network_minus_rtt: number[];
}

export interface HourPlaces {
  hour: number;
  region: string;
  target: string;
  prompt_variant: string;
  samples: number;
  last_started_at: number;
  colos: ColoCount[];
  served: ServedPlace[];
  fidelity: Fidelity;
}

const ok = (s: PlaceSample) => s.error === null;

/** The place records of one hour's samples (any region), one per region × target × prompt variant. */
export function hourPlaces(samples: Iterable<PlaceSample>, hour: number): HourPlaces[] {
  const groups = new Map<string, PlaceSample[]>();
  for (const s of samples) {
    const key = `${s.region}\u0000${s.target}\u0000${s.prompt_variant}`;
    let list = groups.get(key);
    if (!list) groups.set(key, (list = []));
    list.push(s);
  }
  return [...groups.values()].map((rows) => {
    const colos = new Map<string | null, ColoCount>();
    const served = new Map<string, ServedPlace>();
    const sources = new Map<string, number>();
    const fidelity: Fidelity = { ok: 0, claimed: 0, set_aside: 0, sources: [], network_minus_rtt: [] };
    let last = -Infinity;
    for (const s of rows) {
      last = Math.max(last, s.started_at);
      const c = colos.get(s.colo) ?? colos.set(s.colo, [s.colo, 0, 0]).get(s.colo)!;
      c[1]++;
      if (s.colo_outside_region) c[2]++;
      const placeKey = `${s.served_by ?? ''}\u0000${s.served_by_source ?? ''}`;
      const p = served.get(placeKey) ?? served.set(placeKey, [s.served_by, s.served_by_source, 0, []]).get(placeKey)!;
      p[2]++;
      if (!ok(s)) continue;
      if (s.ttft_ms !== null) p[3].push(s.ttft_ms);
      fidelity.ok++;
      if (s.split_source) sources.set(s.split_source, (sources.get(s.split_source) ?? 0) + 1);
      if (s.split_note !== null) fidelity.set_aside++;
      if (s.split_source !== null && s.split_source !== 'rtt') {
        fidelity.claimed++;
        if (s.network_ms !== null && s.rtt_ms !== null) fidelity.network_minus_rtt.push(s.network_ms - s.rtt_ms);
      }
    }
    fidelity.sources = [...sources.entries()].sort((a, b) => a[0].localeCompare(b[0]));
    return {
      hour,
      region: rows[0].region,
      target: rows[0].target,
      prompt_variant: rows[0].prompt_variant,
      samples: rows.length,
      last_started_at: last,
      colos: [...colos.values()],
      served: [...served.values()],
      fidelity,
    };
  });
}

const byCount =
  <T extends [unknown, ...unknown[]]>(count: (x: T) => number, name: (x: T) => string) =>
  (a: T, b: T) =>
    count(b) - count(a) || name(a).localeCompare(name(b));

/** One region's colos over a window's records: [colo, samples, outside], most samples first. */
export function mergeColos(records: Iterable<HourPlaces>): ColoCount[] {
  const out = new Map<string | null, ColoCount>();
  for (const r of records)
    for (const [colo, n, outside] of r.colos) {
      const c = out.get(colo) ?? out.set(colo, [colo, 0, 0]).get(colo)!;
      c[1] += n;
      c[2] += outside;
    }
  return [...out.values()].sort(
    byCount(
      (c) => c[1],
      (c) => String(c[0]),
    ),
  );
}

/** "Answered from" of one region × target × variant: each place with its samples and the median TTFT of its successes. */
export interface ServedPlaceRow {
  place: string | null;
  source: string | null;
  samples: number;
  ttft_p50: number | null;
}

export function servedPlaces(records: Iterable<HourPlaces>): ServedPlaceRow[] {
  const out = new Map<string, ServedPlace>();
  for (const r of records)
    for (const [place, source, n, ttft] of r.served) {
      const key = `${place ?? ''}\u0000${source ?? ''}`;
      const p = out.get(key) ?? out.set(key, [place, source, 0, []]).get(key)!;
      p[2] += n;
      p[3].push(...ttft);
    }
  return [...out.values()]
    .map(([place, source, samples, ttft]) => ({ place, source, samples, ttft_p50: percentile(ttft, 0.5) }))
    .sort((a, b) => b.samples - a.samples || String(a.place).localeCompare(String(b.place)));
}

/** How far one region × target × variant's own timing claims held, over a window's records. */
export interface FidelityRow {
  samples: number;
  /** Share of successful samples split by the vendor's own claim, not the round trip. */
  claim_used: number | null;
  /** Share whose claim was set aside as implausible (split_note). */
  set_aside: number | null;
  /** Median of (network_ms from the vendor's claim − the round trip): near 0 when the two ways agree. */
  network_minus_rtt_p50: number | null;
  /** The split source most of them had. */
  source: string | null;
}

export function fidelityOf(records: Iterable<HourPlaces>): FidelityRow {
  let okCount = 0;
  let claimed = 0;
  let setAside = 0;
  const diffs: number[] = [];
  const sources = new Map<string, number>();
  for (const r of records) {
    okCount += r.fidelity.ok;
    claimed += r.fidelity.claimed;
    setAside += r.fidelity.set_aside;
    diffs.push(...r.fidelity.network_minus_rtt);
    for (const [s, n] of r.fidelity.sources) sources.set(s, (sources.get(s) ?? 0) + n);
  }
  const source = [...sources.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? null;
  return {
    samples: okCount,
    claim_used: okCount ? claimed / okCount : null,
    set_aside: okCount ? setAside / okCount : null,
    network_minus_rtt_p50: percentile(diffs, 0.5),
    source,
  };
}
