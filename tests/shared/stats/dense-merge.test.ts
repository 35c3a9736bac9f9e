/**
 * The dense merge (shared/stats/histogram-sum.ts, shared/rollup/figure-sums.ts) and /metrics from stored
 * bytes against the code they replace (tests/helpers/merge-before.ts) and against first principles
 * (merge() and rankReader() over decoded histograms): the same records, bucket for bucket and percentile
 * for percentile, intervals included, on random rollups of every shape the stored rows take.
 */
import { describe, expect, it } from 'vitest';
import { decodeHistogram, encodeHistogram, readEncoded } from '../../../shared/stats/histogram-bytes.ts';
import { emptyHistogram, histogramOf, merge, rankReader, type ExpHistogram } from '../../../shared/stats/exp-histogram.ts';
import { HistogramSum } from '../../../shared/stats/histogram-sum.ts';
import { hexToBytesHere } from '../../../shared/bytes.ts';
import {
  PercentileSums,
  percentileFields,
  rollupPercentileGroups,
  rollupPercentileGroupsByFigure,
  storedFigurePercentileGroups,
  packedColumnsOf,
  packedPercentileGroupsByFigure,
  type RollupFigure,
  type RollupGroupColumn,
  type PackedRollupRows,
} from '../../../shared/rollup/percentiles.ts';
import {
  decodeSplit,
  encodeSplit,
  readSplit,
  ROLLUP_METRICS,
  rollUp,
  SPLIT_METRICS,
  type Rollup,
  type RollupSample,
} from '../../../shared/rollup/rollup.ts';
import { bodyValues, fromRollupRow } from '../../../workers/observatory/db/rollup-row.ts';
import { prometheusText } from '../../../workers/observatory/api/prometheus.ts';
import {
  decodeHistogramBefore,
  prometheusTextBefore,
  rollupPercentileGroupsBefore,
  storedFigurePercentileGroupsBefore,
} from '../../helpers/merge-before.ts';

/** A deterministic uniform generator in [0, 1). */
function uniform(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 4_294_967_296;
  };
}

const REGIONS = ['weur', 'enam', 'apac'];
const TARGETS = ['t-a', 't-b', 't-c', 't-d'];
const VARIANTS = ['chat', 'code'];
const SOURCES = ['server-timing.total', 'server-timing.upstream', 'x-vendor'];
const FIGURES: RollupFigure[] = [...ROLLUP_METRICS, ...SPLIT_METRICS];
const GROUPINGS: RollupGroupColumn[][] = [
  ['region', 'target'],
  ['target'],
  ['region', 'target', 'prompt_variant'],
  ['target', 'region', 'split_source'],
  [],
  ['split_source'],
];

/** Rollups of random samples over `hours` hours: heavy tails, zeros, failures, several split sources, a pair now and then without any. */
function randomRollups(seed: number, hours: number, perHour: number): Rollup[] {
  const u = uniform(seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(u() * xs.length)];
  const samples: RollupSample[] = [];
  for (let h = 0; h < hours; h++)
    for (let k = 0; k < perHour; k++) {
      const failed = u() < 0.05;
      const spread = u() < 0.1 ? 4 : 0.4;
      const v = () => (u() < 0.02 ? 0 : (50 + 400 * u()) * Math.exp(spread * (u() - 0.5)));
      const ttft = v();
      samples.push({
        tick_id: Date.UTC(2026, 0, 1) + h * 3_600_000 + k,
        region: pick(REGIONS),
        target: pick(TARGETS),
        prompt_variant: pick(VARIANTS),
        method_version: 2,
        error: failed ? 'http' : null,
        split_source: failed || u() < 0.2 ? null : pick(SOURCES),
        ttft_ms: failed ? null : ttft,
        ttfa_ms: failed ? null : ttft + 30 * u(),
        tpot_ms: failed ? null : 1e-3 + 20 * u(),
        itl_p99_ms: failed || u() < 0.1 ? null : 1e5 * u(),
        total_ms: failed ? null : ttft + 900 * u(),
        decode_tps: failed ? null : 1000 * u(),
        network_ms: failed ? null : 80 * u(),
        server_ms: failed ? null : ttft * u(),
      } as unknown as RollupSample);
    }
  return rollUp(samples);
}

/** A rollup as D1 gives it back: its stored columns, read by fromRollupRow (histograms as their stored bytes). */
function stored(r: Rollup): Rollup {
  const [probes, successes, errors, ...rest] = bodyValues(r);
  const row: Record<string, unknown> = { ...r, probes, successes, errors, split: rest[ROLLUP_METRICS.length] };
  ROLLUP_METRICS.forEach((m, i) => {
    row[m] = rest[i];
  });
  return fromRollupRow(row);
}

/** Rollups packed as db/rollups.ts packedRowsCovering reads them (shared/rollup/packed-rows.ts): per region, `every` rows a string. */
function packed(rows: Rollup[], figures: readonly RollupFigure[], every: number): PackedRollupRows[] {
  const columns = packedColumnsOf(figures);
  const out = new Map<string, number[]>();
  rows.forEach((r, i) => {
    const id = `${r.region}|${Math.floor(i / every)}`;
    let b = out.get(id);
    if (!b) out.set(id, (b = []));
    for (const name of [r.target, r.prompt_variant]) {
      const text = new TextEncoder().encode(name);
      b.push(text.length, ...text);
    }
    for (const n of [r.probes, r.successes]) b.push(n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
    for (const c of columns) b.push(...(c === 'split' ? encodeSplit(r.split) : encodeHistogram(r.histograms[c])));
  });
  return [...out].map(([id, b]) => ({ region: id.split('|')[0], bytes: Uint8Array.from(b) }));
}

const json = (x: unknown) => JSON.stringify(x);

describe('the dense merge', () => {
  const rollups = randomRollups(1, 30, 40);
  const fromD1 = rollups.map(stored);

  it('sums stored bytes to exactly what merge() gives, and reads every rank as rankReader does', () => {
    const u = uniform(2);
    const shards: ExpHistogram[] = [
      ...rollups.map((r) => r.histograms.itl_p99_ms),
      histogramOf([0, 0, 1e-9, 3e-300]),
      histogramOf([7e200]),
      emptyHistogram(),
    ].sort(() => u() - 0.5);
    const sum = new HistogramSum();
    shards.forEach((h, i) => {
      if (i % 3 === 0) sum.add(h);
      else sum.addEncoded(encodeHistogram(h));
    });
    const merged = shards.reduce(merge, emptyHistogram());
    expect(encodeHistogram(sum.toHistogram())).toEqual(encodeHistogram(merged));
    const dense = sum.rankReader();
    const sparse = rankReader(merged);
    for (let rank = 1; rank <= merged.count; rank++) expect(dense(rank), `rank ${rank}`).toBe(sparse(rank));
    expect(percentileFields(sum.count, dense)).toEqual(percentileFields(merged.count, sparse));
  });

  it('answers every figure and grouping as before, from stored rows, decoded rollups and packed rows alike', () => {
    for (const by of GROUPINGS)
      for (const figure of FIGURES) {
        const before = json(rollupPercentileGroupsBefore(fromD1, figure, by));
        expect(before.length).toBeGreaterThan(2);
        expect(json(rollupPercentileGroups(fromD1, figure, by)), `${figure} by ${by}`).toBe(before);
        // (A rollup made here keeps its split sources in the order seen, a stored one in name order: each against its own.)
        expect(json(rollupPercentileGroups(rollups, figure, by)), `${figure} by ${by}, decoded`).toBe(
          json(rollupPercentileGroupsBefore(rollups, figure, by)),
        );
      }
    // Every figure in one pass, over rows packed 7 at a time: each exactly what one figure's read gives.
    for (const by of GROUPINGS) {
      const all = packedPercentileGroupsByFigure(packed(fromD1, FIGURES, 7), FIGURES, by);
      const pass = rollupPercentileGroupsByFigure(fromD1, FIGURES, by);
      for (const figure of FIGURES) {
        const before = json(rollupPercentileGroupsBefore(fromD1, figure, by));
        expect(json(all.get(figure)), `packed ${figure} by ${by}`).toBe(before);
        expect(json(pass.get(figure)), `one pass ${figure} by ${by}`).toBe(before);
      }
    }
  });

  it('groups the split parts by split_source where the other figures are not, in the same pass', () => {
    const by: RollupGroupColumn[] = ['region', 'target', 'prompt_variant'];
    const partsBy: RollupGroupColumn[] = [...by, 'split_source'];
    const all = packedPercentileGroupsByFigure(packed(fromD1, FIGURES, 3), FIGURES, by, partsBy);
    for (const figure of FIGURES) {
      const grouping = (SPLIT_METRICS as readonly string[]).includes(figure) ? partsBy : by;
      expect(json(all.get(figure)), figure).toBe(json(rollupPercentileGroupsBefore(fromD1, figure, grouping)));
    }
    expect(() => packedPercentileGroupsByFigure(packed(fromD1, FIGURES, 3), FIGURES, by, ['region', 'split_source'])).toThrow(
      'only split_source may differ',
    );
  });

  it('keeps sums open for windows that nest: each read after its rows is what those rows alone give', () => {
    const by: RollupGroupColumn[] = ['region', 'target', 'prompt_variant'];
    const partsBy: RollupGroupColumn[] = [...by, 'split_source'];
    const rows = packed(fromD1, FIGURES, 2);
    const sums = new PercentileSums(FIGURES, by, partsBy);
    for (const end of [10, 40, rows.length]) {
      sums.addPacked(rows.slice(end === 10 ? 0 : end === 40 ? 10 : 40, end));
      expect(json(sums.records()), `rows up to ${end}`).toBe(
        json(packedPercentileGroupsByFigure(rows.slice(0, end), FIGURES, by, partsBy)),
      );
    }
    // Read twice, the same.
    expect(json(sums.records())).toBe(json(sums.records()));
  });

  it('answers one figure from its column alone as before, a row at a time or packed', () => {
    const rows = fromD1.map((r) => ({ ...r, figure: encodeHistogram(r.histograms.total_ms) }));
    for (const by of GROUPINGS.filter((b) => !b.includes('split_source'))) {
      const before = json(storedFigurePercentileGroupsBefore(rows, by));
      expect(json(storedFigurePercentileGroups(rows, by))).toBe(before);
      expect(json(packedPercentileGroupsByFigure(packed(fromD1, ['total_ms'], 5), ['total_ms'], by).get('total_ms'))).toBe(before);
    }
  });

  it('refuses packed rows cut short or holding other columns than asked', () => {
    const [rows] = packed(fromD1.slice(0, 6), ['ttft_ms', 'network_ms'], 6);
    expect(packedColumnsOf(['network_ms', 'ttft_ms'])).toEqual(['ttft_ms', 'split']);
    for (const cut of [1, 3, 12, rows.bytes.length - 1])
      expect(() =>
        packedPercentileGroupsByFigure([{ ...rows, bytes: rows.bytes.subarray(0, cut) }], ['ttft_ms', 'network_ms'], []),
      ).toThrow(/end early|ends early/);
    // Read as if they held TTFT and TTFA: the split's bytes are not a histogram.
    expect(() => packedPercentileGroupsByFigure([rows], ['ttft_ms', 'ttfa_ms'], [])).toThrow();
  });

  it('walks split bytes one after another to the same parts decodeSplit gives, and refuses a source twice', () => {
    const splits = rollups.slice(0, 40).map((r) => encodeSplit(r.split));
    const run = Uint8Array.from(splits.flatMap((s) => [...s]));
    const seen: Array<[string, number[]]> = [];
    for (let p = 0; p < run.length; ) p = readSplit(run, (source, at) => seen.push([source, [...at]]), p);
    const expected = splits.flatMap((s) => [...decodeSplit(s)].map(([source, parts]) => [source, parts] as const));
    expect(seen.map(([s]) => s)).toEqual(expected.map(([s]) => s));
    seen.forEach(([, at], i) => {
      expect(decodeHistogram(run.subarray(at[0], at[1]))).toEqual(expected[i][1].network_ms);
      expect(decodeHistogram(run.subarray(at[2], at[3]))).toEqual(expected[i][1].server_ms);
    });
    const one = encodeSplit(new Map([['a', { network_ms: histogramOf([1]), server_ms: histogramOf([2]) }]]));
    const twice = Uint8Array.from([2, ...one.subarray(1), ...one.subarray(1)]);
    expect(() => decodeSplit(twice)).toThrow('out of order');
  });

  it('writes /metrics as before, from stored totals and decoded ones', () => {
    const totals = rollups.slice(0, 60).map((r) => ({ ...r, hour: 0 }));
    for (const t of [totals, totals.map(stored)]) expect(prometheusText(t)).toBe(prometheusTextBefore(t));
  });
});

describe('stored bytes', () => {
  it('read as before wherever the bytes before were canonical, and refused with a format error otherwise', () => {
    const u = uniform(3);
    const good = randomRollups(4, 4, 30).map((r) => encodeHistogram(r.histograms.ttft_ms));
    let refused = 0;
    for (let trial = 0; trial < 3_000; trial++) {
      const bytes = Uint8Array.from(good[trial % good.length]);
      // One to three bytes changed, or the bytes cut short.
      if (u() < 0.2) {
        const cut = bytes.subarray(0, Math.floor(u() * bytes.length));
        expect(() => decodeHistogram(cut)).toThrow();
        continue;
      }
      for (let k = 0; k < 1 + Math.floor(u() * 3); k++) bytes[Math.floor(u() * bytes.length)] = Math.floor(u() * 256);
      let before: ExpHistogram | Error;
      try {
        before = decodeHistogramBefore(bytes);
      } catch (e) {
        before = e as Error;
      }
      let now: ExpHistogram | Error;
      try {
        now = decodeHistogram(bytes);
      } catch (e) {
        now = e as Error;
      }
      const sum = new HistogramSum();
      let summed: ExpHistogram | Error;
      try {
        sum.addEncoded(bytes);
        summed = sum.toHistogram();
      } catch (e) {
        summed = e as Error;
      }
      if (now instanceof Error) {
        refused++;
        expect(now.name, String(now)).toBe('Error');
        expect(summed).toBeInstanceOf(Error);
        continue;
      }
      // Accepted now: accepted before, with the same buckets; the sum holds the same (a bucket of count 0 aside).
      expect(before).not.toBeInstanceOf(Error);
      expect(now).toEqual(before);
      expect(summed).not.toBeInstanceOf(Error);
      const nonEmpty = new Map([...now.buckets].filter(([, c]) => c !== 0));
      expect((summed as ExpHistogram).buckets).toEqual(nonEmpty);
      expect(readEncoded(bytes).n).toBe(now.buckets.size);
    }
    expect(refused).toBeGreaterThan(100);
  });

  it('refuse buckets out of order and indices no double can have, before making room for them', () => {
    // Version 1, scale 6, count 2, zero 0, sum 0, min and max, 2 buckets: index 5 then a gap of 0.
    const head = [1, 6, 2, 0, 0, ...new Array(16).fill(0), 2];
    expect(() => decodeHistogram(Uint8Array.from([...head, 10, 1, 0, 1]))).toThrow('out of order');
    expect(() => new HistogramSum().addEncoded(Uint8Array.from([...head, 10, 1, 0, 1]))).toThrow('out of order');
    // A first index of 2^35 (zigzag): far beyond any double's bucket.
    const huge = [0x80, 0x80, 0x80, 0x80, 0x80, 0x02];
    expect(() => decodeHistogram(Uint8Array.from([...head.slice(0, -1), 1, ...huge, 1]))).toThrow('out of range');
    expect(() => new HistogramSum().addEncoded(Uint8Array.from([...head.slice(0, -1), 1, ...huge, 1]))).toThrow('out of range');
  });

  it('come from hex text as SQLite writes it', () => {
    const bytes = encodeHistogram(histogramOf([1, 250, 3e4]));
    const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0').toUpperCase()).join('');
    expect(hexToBytesHere(hex)).toEqual(bytes);
    expect(hexToBytesHere(hex.toLowerCase())).toEqual(bytes);
    expect(hexToBytesHere('')).toEqual(new Uint8Array(0));
    expect(() => hexToBytesHere('ABC')).toThrow('odd length');
    expect(() => hexToBytesHere('0G')).toThrow('not a hex digit');
    expect(() => hexToBytesHere('0\u0100')).toThrow('not a hex digit');
  });
});
