/**
 * The split's parts per split_source as one canonical BLOB (the `split` column of the rollup tables), and
 * its readers: decoded into histograms, or walked to where each part's canonical bytes lie, so a reader of
 * one part over a long window adds them to its sum without decoding the rest.
 */
import type { ExpHistogram } from '../stats/exp-histogram.ts';
import { decodeHistogram, encodeHistogram } from '../stats/histogram-bytes.ts';
import { writeVarint } from '../stats/varint.ts';
import { TextCache } from '../bytes.ts';
import { SPLIT_METRICS, type SplitMetric } from './figures.ts';

/** The per-source split as one canonical BLOB: sources in name order, each its name and two histograms. */
export function encodeSplit(split: Map<string, Record<SplitMetric, ExpHistogram>>): Uint8Array {
  const out: number[] = [];
  const sources = [...split.keys()].sort();
  writeVarint(out, sources.length);
  for (const source of sources) {
    const name = new TextEncoder().encode(source);
    writeVarint(out, name.length);
    out.push(...name);
    for (const m of SPLIT_METRICS) {
      const bytes = encodeHistogram(split.get(source)![m]);
      writeVarint(out, bytes.length);
      out.push(...bytes);
    }
  }
  return new Uint8Array(out);
}

export function decodeSplit(bytes: Uint8Array): Map<string, Record<SplitMetric, ExpHistogram>> {
  const split = new Map<string, Record<SplitMetric, ExpHistogram>>();
  readSplit(bytes, (source, at) =>
    split.set(source, {
      network_ms: decodeHistogram(bytes.subarray(at[0], at[1])),
      server_ms: decodeHistogram(bytes.subarray(at[2], at[3])),
    }),
  );
  return split;
}

/** Split sources' names by their bytes: a window of thousands of rows decodes each name once. */
const sourceNames = new TextCache(64);

/** Where split bytes' parts lie, reused by every readSplit: [start, end) of each of SPLIT_METRICS in turn. */
const partsAt: number[] = [0, 0, 0, 0];

/**
 * Each source of the split's canonical bytes (encodeSplit) in bytes[start, …), in their order, with where
 * its parts' own canonical bytes lie (`at[2m]`, `at[2m + 1]`: start and end of SPLIT_METRICS[m]'s), no
 * histogram decoded: a reader of one part over a long window adds those bytes straight to its sum. Returns
 * where the split ends. Throws on bytes that end early (by `end`) or sources out of order (the encoding
 * sorts them, so a source twice is broken bytes).
 */
export function readSplit(
  bytes: Uint8Array,
  visit: (source: string, at: readonly number[]) => void,
  start = 0,
  end = bytes.length,
): number {
  let p = start;
  const varint = (): number => {
    let n = 0;
    for (let mult = 1; ; mult *= 0x80) {
      if (p >= end) throw new Error('split bytes end early');
      const b = bytes[p++];
      n += (b & 0x7f) * mult;
      if (b < 0x80) return n;
    }
  };
  const skip = (n: number): number => {
    if (p + n > end) throw new Error('split bytes end early');
    return (p += n);
  };
  const sources = varint();
  let previous: string | undefined;
  for (let k = 0; k < sources; k++) {
    const nameLength = varint();
    const nameStart = p;
    const source = sourceNames.textOf(bytes, nameStart, skip(nameLength));
    if (previous !== undefined && source <= previous) throw new Error(`split sources out of order: ${source} after ${previous}`);
    previous = source;
    for (let m = 0; m < SPLIT_METRICS.length; m++) {
      const length = varint();
      partsAt[2 * m] = p;
      partsAt[2 * m + 1] = skip(length);
    }
    visit(source, partsAt);
  }
  return p;
}
