/**
 * Hourly rollups: for one hour × region × target × prompt variant × method version, the probe and
 * error counts and one mergeable histogram per latency figure, so any window of whole hours is
 * answered by merging a few small rows instead of reading every sample. The split's parts are kept
 * per split_source (never pooled). Rolling up the same samples always gives the same rows, so
 * writing a rollup again (a retried tick, a late sample) replaces it with the right one.
 */
import { ERROR_CLASSES, type ErrorClass } from '../ids.ts';
import {
  emptyHistogram,
  histogramFromJson,
  histogramToJson,
  merge,
  mergeInto,
  record,
  subtract,
  type ExpHistogram,
  type HistogramJson,
} from '../stats/exp-histogram.ts';
import { decodeHistogram, encodeHistogram } from '../stats/histogram-bytes.ts';
import { ROLLUP_METRICS, type RollupMetric, type SplitMetric } from './figures.ts';
import { decodeSplit, encodeSplit } from './split-bytes.ts';
import type { StoredRow } from '../sample-fields.ts';
import { base64ToBytes, bytesToBase64 } from '../base64.ts';

export { ROLLUP_METRICS, SPLIT_METRICS, type RollupMetric, type SplitMetric } from './figures.ts';
export { decodeSplit, encodeSplit, readSplit } from './split-bytes.ts';
import { DAY_MS, HOUR_MS } from '../time.ts';

export interface RollupKey {
  hour: number;
  region: string;
  target: string;
  prompt_variant: string;
  method_version: number;
}

/**
 * The histograms of a rollup read from its stored row may give their stored bytes under this key (until
 * one is replaced): a reader summing one figure over thousands of rows adds the bytes, never decoding a copy.
 */
export const STORED_HISTOGRAM = Symbol('stored histogram bytes');
/** `split`: the stored bytes of the whole split (encodeSplit), unless it was replaced. */
export type WithStoredHistograms = { [STORED_HISTOGRAM]?: (m: RollupMetric | 'split') => Uint8Array | undefined };

export interface Rollup extends RollupKey {
  probes: number;
  successes: number;
  errors: Partial<Record<ErrorClass, number>>;
  histograms: Record<RollupMetric, ExpHistogram>;
  /** split_source → its network and server histograms. */
  split: Map<string, Record<SplitMetric, ExpHistogram>>;
}

/** What a rollup reads of a sample. */
export type RollupSample = Pick<
  StoredRow,
  'tick_id' | 'region' | 'target' | 'prompt_variant' | 'method_version' | 'error' | 'split_source' | RollupMetric | SplitMetric
>;

export const hourOf = (t: number): number => Math.floor(t / HOUR_MS) * HOUR_MS;
/** The start of t's UTC day. */
export const dayOf = (t: number): number => Math.floor(t / DAY_MS) * DAY_MS;
const totalKey = (r: RollupKey): string => `${r.region}|${r.target}|${r.prompt_variant}|${r.method_version}`;
const keyString = (k: RollupKey): string => `${k.hour}|${k.region}|${k.target}|${k.prompt_variant}|${k.method_version}`;

function emptyRollup(k: RollupKey): Rollup {
  return {
    hour: k.hour,
    region: k.region,
    target: k.target,
    prompt_variant: k.prompt_variant,
    method_version: k.method_version,
    probes: 0,
    successes: 0,
    errors: {},
    histograms: Object.fromEntries(ROLLUP_METRICS.map((m) => [m, emptyHistogram()])) as Record<RollupMetric, ExpHistogram>,
    split: new Map(),
  };
}

/** Rolls samples up by their tick's hour; the rows come out in key order. */
export function rollUp(samples: Iterable<RollupSample>): Rollup[] {
  const rollups = new Map<string, Rollup>();
  for (const s of samples) {
    const key = {
      hour: hourOf(s.tick_id),
      region: s.region,
      target: s.target,
      prompt_variant: s.prompt_variant,
      method_version: s.method_version,
    };
    const id = keyString(key);
    let r = rollups.get(id);
    if (!r) rollups.set(id, (r = emptyRollup(key)));
    r.probes++;
    if (s.error !== null) {
      r.errors[s.error] = (r.errors[s.error] ?? 0) + 1;
      continue;
    }
    r.successes++;
    for (const m of ROLLUP_METRICS) if (s[m] !== null) record(r.histograms[m], s[m]);
    if (s.split_source !== null && s.network_ms !== null && s.server_ms !== null) {
      let parts = r.split.get(s.split_source);
      if (!parts) r.split.set(s.split_source, (parts = { network_ms: emptyHistogram(), server_ms: emptyHistogram() }));
      record(parts.network_ms, s.network_ms);
      record(parts.server_ms, s.server_ms);
    }
  }
  return [...rollups.values()].sort((a, b) => keyString(a).localeCompare(keyString(b)));
}

/**
 * Rows of the same region × target × variant × method version merged into one row each, whose period
 * starts at `start` (a day's rows from its hours): in key order, the same bytes in any input order.
 */
export function mergeByGroup(rows: Iterable<Rollup>, start: number): Rollup[] {
  const merged = new Map<string, Rollup>();
  for (const r of rows) {
    const id = totalKey(r);
    let m = merged.get(id);
    // Each group sums into a fresh row of its own, in place: no copy of every histogram per row merged.
    if (!m) merged.set(id, (m = { ...emptyRollup(r), hour: start }));
    addInto(m, r);
  }
  return [...merged.entries()].sort((a, b) => a[0].localeCompare(b[0])).map(([, r]) => r);
}

/** Adds b's counts and histograms into a (a row of mergeByGroup's own). */
function addInto(a: Rollup, b: Rollup): void {
  a.probes += b.probes;
  a.successes += b.successes;
  for (const [c, n] of Object.entries(b.errors) as Array<[ErrorClass, number]>) a.errors[c] = (a.errors[c] ?? 0) + n;
  for (const m of ROLLUP_METRICS) mergeInto(a.histograms[m], b.histograms[m]);
  for (const [source, parts] of b.split) {
    const mine = a.split.get(source);
    if (mine) {
      mergeInto(mine.network_ms, parts.network_ms);
      mergeInto(mine.server_ms, parts.server_ms);
    } else {
      a.split.set(source, {
        network_ms: mergeInto(emptyHistogram(), parts.network_ms),
        server_ms: mergeInto(emptyHistogram(), parts.server_ms),
      });
    }
  }
}

/** a + b: counts added, histograms merged; the key is a's (callers merge rows of one group). */
export function mergeRollups(a: Rollup, b: Rollup): Rollup {
  const errors: Partial<Record<ErrorClass, number>> = { ...a.errors };
  for (const [c, n] of Object.entries(b.errors) as Array<[ErrorClass, number]>) errors[c] = (errors[c] ?? 0) + n;
  const split = new Map(a.split);
  for (const [source, parts] of b.split) {
    const mine = split.get(source);
    split.set(
      source,
      mine ? { network_ms: merge(mine.network_ms, parts.network_ms), server_ms: merge(mine.server_ms, parts.server_ms) } : parts,
    );
  }
  return {
    ...a,
    probes: a.probes + b.probes,
    successes: a.successes + b.successes,
    errors,
    histograms: Object.fromEntries(ROLLUP_METRICS.map((m) => [m, merge(a.histograms[m], b.histograms[m])])) as Record<
      RollupMetric,
      ExpHistogram
    >,
    split,
  };
}

/** a − b, for b a part of a: counts and histograms taken out, never below zero (a's key kept). */
export function subtractRollup(a: Rollup, b: Rollup): Rollup {
  const errors: Partial<Record<ErrorClass, number>> = { ...a.errors };
  for (const [c, n] of Object.entries(b.errors) as Array<[ErrorClass, number]>) {
    const left = (errors[c] ?? 0) - n;
    if (left > 0) errors[c] = left;
    else delete errors[c];
  }
  const split = new Map(a.split);
  for (const [source, parts] of b.split) {
    const mine = split.get(source);
    if (!mine) continue;
    const left = { network_ms: subtract(mine.network_ms, parts.network_ms), server_ms: subtract(mine.server_ms, parts.server_ms) };
    if (left.network_ms.count === 0 && left.server_ms.count === 0) split.delete(source);
    else split.set(source, left);
  }
  return {
    ...a,
    probes: Math.max(a.probes - b.probes, 0),
    successes: Math.max(a.successes - b.successes, 0),
    errors,
    histograms: Object.fromEntries(ROLLUP_METRICS.map((m) => [m, subtract(a.histograms[m], b.histograms[m])])) as Record<
      RollupMetric,
      ExpHistogram
    >,
    split,
  };
}

/** The running total of a region × target × variant × method version: a rollup whose hour is 0. */
export const TOTAL_HOUR = 0;

/**
 * Running totals after an hour's rollup is rewritten: each total loses what the hour's previous rows
 * counted and gains what its fresh rows count, so rewriting an hour (a retried tick, late samples)
 * never counts twice. Returns the totals that changed.
 */
export function applyToTotals(totals: Rollup[], previous: Rollup[], fresh: Rollup[]): Rollup[] {
  const byKey = new Map(totals.map((t) => [totalKey(t), t]));
  const changed = new Set<string>();
  const start = (r: Rollup): Rollup => byKey.get(totalKey(r)) ?? { ...emptyRollup(r), hour: TOTAL_HOUR };
  for (const p of previous) {
    byKey.set(totalKey(p), subtractRollup(start(p), p));
    changed.add(totalKey(p));
  }
  for (const f of fresh) {
    byKey.set(totalKey(f), mergeRollups(start(f), f));
    changed.add(totalKey(f));
  }
  return [...changed].sort().map((k) => ({ ...byKey.get(k)!, hour: TOTAL_HOUR }));
}

/** Error counts as stored: every class, in the contract's order, so equal rollups give equal text. */
export function encodeErrors(errors: Partial<Record<ErrorClass, number>>): string {
  return JSON.stringify(Object.fromEntries(ERROR_CLASSES.filter((c) => errors[c]).map((c) => [c, errors[c]])));
}

/** A rollup row as the read API serves it: `start` is the hour's (or day's) start, histograms in their JSON form. */
export interface RollupJson {
  start: string;
  region: string;
  target: string;
  prompt_variant: string;
  method_version: number;
  probes: number;
  successes: number;
  errors: Partial<Record<ErrorClass, number>>;
  histograms: Record<RollupMetric, HistogramJson>;
  split: Record<string, Record<SplitMetric, HistogramJson>>;
}

/** A rollup's key and counts as the read API serves them, the same in either form of its histograms. */
type RollupHeadJson = Omit<RollupJson, 'histograms' | 'split'>;

function headToJson(r: Rollup): RollupHeadJson {
  return {
    start: new Date(r.hour).toISOString(),
    region: r.region,
    target: r.target,
    prompt_variant: r.prompt_variant,
    method_version: r.method_version,
    probes: r.probes,
    successes: r.successes,
    errors: JSON.parse(encodeErrors(r.errors)),
  };
}

function headFromJson(j: RollupHeadJson): Omit<Rollup, 'histograms' | 'split'> {
  return {
    hour: Date.parse(j.start),
    region: j.region,
    target: j.target,
    prompt_variant: j.prompt_variant,
    method_version: j.method_version,
    probes: j.probes,
    successes: j.successes,
    errors: { ...j.errors },
  };
}

export function rollupToJson(r: Rollup): RollupJson {
  return {
    ...headToJson(r),
    histograms: Object.fromEntries(ROLLUP_METRICS.map((m) => [m, histogramToJson(r.histograms[m])])) as Record<RollupMetric, HistogramJson>,
    split: Object.fromEntries(
      [...r.split.keys()].sort().map((source) => {
        const parts = r.split.get(source)!;
        return [source, { network_ms: histogramToJson(parts.network_ms), server_ms: histogramToJson(parts.server_ms) }];
      }),
    ),
  };
}

/**
 * The compact form (`histograms=base64`): each histogram, and the whole split, as base64 of its
 * canonical bytes (encodeHistogram, encodeSplit), as stored: about a fifth of the JSON form's size,
 * and served without decoding a bucket, so a page of long-window rows fits a free-plan request's CPU.
 */
export interface RollupBase64Json extends RollupHeadJson {
  histograms: Record<RollupMetric, string>;
  split: string;
}

export function rollupToBase64Json(r: Rollup): RollupBase64Json {
  const h = r.histograms as WithStoredHistograms;
  const bytesOf = (m: RollupMetric) => h[STORED_HISTOGRAM]?.(m) ?? encodeHistogram(r.histograms[m]);
  return {
    ...headToJson(r),
    histograms: Object.fromEntries(ROLLUP_METRICS.map((m) => [m, bytesToBase64(bytesOf(m))])) as Record<RollupMetric, string>,
    split: bytesToBase64(h[STORED_HISTOGRAM]?.('split') ?? encodeSplit(r.split)),
  };
}

export function rollupFromBase64Json(j: RollupBase64Json): Rollup {
  return {
    ...headFromJson(j),
    histograms: Object.fromEntries(ROLLUP_METRICS.map((m) => [m, decodeHistogram(base64ToBytes(j.histograms[m]))])) as Record<
      RollupMetric,
      ExpHistogram
    >,
    split: decodeSplit(base64ToBytes(j.split)),
  };
}

export function rollupFromJson(j: RollupJson): Rollup {
  return {
    ...headFromJson(j),
    histograms: Object.fromEntries(ROLLUP_METRICS.map((m) => [m, histogramFromJson(j.histograms[m])])) as Record<
      RollupMetric,
      ExpHistogram
    >,
    split: new Map(
      Object.entries(j.split).map(([source, parts]) => [
        source,
        { network_ms: histogramFromJson(parts.network_ms), server_ms: histogramFromJson(parts.server_ms) },
      ]),
    ),
  };
}
