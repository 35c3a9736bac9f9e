/**
 * The mergeable exponential histogram against exact computation: 100,000 heavy-tailed samples, every
 * percentile within the stated relative error; merging shards in any order gives the same bytes; the
 * encoding round-trips and stays small.
 */
import { describe, expect, it } from 'vitest';
import { percentile } from '../../../shared/stats/percentile.ts';
import {
  HISTOGRAM_RELATIVE_ERROR,
  bucketIndex,
  emptyHistogram,
  histogramFromJson,
  histogramOf,
  histogramToJson,
  lowerBound,
  merge,
  quantile,
  rankReader,
  sumOf,
} from '../../../shared/stats/exp-histogram.ts';
import { percentileWithCi, percentileWithCiAt } from '../../../shared/stats/percentile-ci.ts';
import { HistogramSum } from '../../../shared/stats/histogram-sum.ts';
import { decodeHistogram, encodeHistogram } from '../../../shared/stats/histogram-bytes.ts';

/** A deterministic uniform generator in (0, 1). */
function uniform(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return (x + 0.5) / 4_294_967_296;
  };
}

const N = 100_000;
const QS = [0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999];

function lognormal(seed: number, median: number, sigma: number): number[] {
  const u = uniform(seed);
  return Array.from({ length: N }, () => median * Math.exp(sigma * Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u())));
}

function pareto(seed: number, minimum: number, alpha: number): number[] {
  const u = uniform(seed);
  return Array.from({ length: N }, () => minimum / u() ** (1 / alpha));
}

describe('exponential histogram', () => {
  const cases: Array<[string, number[]]> = [
    ['lognormal TTFT (median 300 ms, sigma 0.8)', lognormal(1, 300, 0.8)],
    ['Pareto tail (from 40 ms, alpha 1.2)', pareto(2, 40, 1.2)],
    ['mixture: fast path plus a slow mode', [...lognormal(3, 80, 0.2).slice(0, N / 2), ...pareto(4, 900, 1.5).slice(0, N / 2)]],
  ];
  for (const [name, values] of cases) {
    it(`${name}: every percentile within ${(HISTOGRAM_RELATIVE_ERROR * 100).toFixed(2)} % of the exact one`, () => {
      const h = histogramOf(values);
      expect(h.count).toBe(values.length);
      for (const q of QS) {
        const exact = percentile(values, q)!;
        const estimate = quantile(h, q)!;
        expect(Math.abs(estimate - exact) / exact, `q=${q}`).toBeLessThanOrEqual(HISTOGRAM_RELATIVE_ERROR * (1 + 1e-9));
      }
      expect(quantile(h, 0)).toBe(Math.min(...values));
      expect(quantile(h, 1)).toBe(Math.max(...values));
    });

    it(`${name}: each percentile's interval bounds, read from the histogram, within the same error of the exact ones`, () => {
      const h = histogramOf(values);
      const sorted = Float64Array.from(values).sort();
      for (const n of [N, 1_000, 40]) {
        const part = n === N ? sorted : Float64Array.from(values.slice(0, n)).sort();
        const at = rankReader(n === N ? h : histogramOf(values.slice(0, n)));
        for (const q of [0.5, 0.9, 0.99]) {
          const exact = percentileWithCi(part, q);
          const estimate = percentileWithCiAt(n, q, at);
          for (const k of ['value', 'ci_low', 'ci_high'] as const) {
            if (exact[k] === null) expect(estimate[k], `n=${n} q=${q} ${k}`).toBeNull();
            else
              expect(Math.abs(estimate[k]! - exact[k]!) / exact[k]!, `n=${n} q=${q} ${k}`).toBeLessThanOrEqual(
                HISTOGRAM_RELATIVE_ERROR * (1 + 1e-9),
              );
          }
        }
      }
    });
  }

  it('round-trips through the JSON form the read API serves', () => {
    const h = histogramOf(pareto(6, 40, 1.2).slice(0, 500));
    const json = JSON.parse(JSON.stringify(histogramToJson(h)));
    expect(json.buckets.length).toBe(h.buckets.size);
    expect(encodeHistogram(histogramFromJson(json))).toEqual(encodeHistogram(h));
  });

  it('merges shards in any order to the same bytes, equal to the histogram of all values', () => {
    const values = pareto(5, 10, 1.1);
    const shards = Array.from({ length: 24 }, (_, k) => histogramOf(values.filter((_, i) => i % 24 === k)));
    const whole = encodeHistogram(histogramOf(values));
    const u = uniform(6);
    for (let trial = 0; trial < 5; trial++) {
      const order = [...shards].sort(() => u() - 0.5);
      // Pairwise as well as left to right: the grouping does not matter either.
      let merged = order.reduce(merge, emptyHistogram());
      if (trial % 2 === 1)
        merged = merge(order.slice(0, 12).reduce(merge, emptyHistogram()), order.slice(12).reduce(merge, emptyHistogram()));
      expect(encodeHistogram(merged)).toEqual(whole);
    }
  });

  it('round-trips through its bytes, and an hour of probes takes tens of bytes', () => {
    const hour = lognormal(7, 450, 0.15).slice(0, 12);
    const h = histogramOf(hour);
    const bytes = encodeHistogram(h);
    expect(decodeHistogram(bytes)).toEqual(h);
    expect(bytes.length).toBeLessThan(80);
    expect(sumOf(h)).toBeCloseTo(
      hour.reduce((a, b) => a + b, 0),
      2,
    );
    expect(decodeHistogram(encodeHistogram(emptyHistogram()))).toEqual(emptyHistogram());
    expect(quantile(emptyHistogram(), 0.5)).toBeNull();
  });

  it('puts each value in the bucket whose bounds hold it, exact boundaries included', () => {
    for (const v of [1, 2, 4, 1024, 0.5, lowerBound(37), lowerBound(-5), Math.PI, 1e-3, 1e6]) {
      const i = bucketIndex(v);
      expect(v).toBeGreaterThan(lowerBound(i));
      expect(v).toBeLessThanOrEqual(lowerBound(i + 1) * (1 + 1e-12));
    }
    const zeros = histogramOf([0, 0, 5]);
    expect(zeros.zeroCount).toBe(2);
    expect(quantile(zeros, 0.5)).toBe(0);
  });

  it('refuses bytes that are not a histogram', () => {
    expect(() => decodeHistogram(new Uint8Array([9, 6, 0]))).toThrow('unknown histogram format');
    expect(() => decodeHistogram(encodeHistogram(histogramOf([1, 2, 3])).slice(0, 5))).toThrow('end early');
  });

  it('sums histograms from their bytes or decoded to exactly what merging gives, far apart and negative indices included', () => {
    const u = uniform(11);
    const shards = [
      ...Array.from({ length: 40 }, (_, k) => histogramOf(lognormal(20 + k, 300 + 40 * k, 0.4).slice(0, 50))),
      histogramOf([0, 0, 0.001, 0.5]), // the zero bucket and indices below 0
      histogramOf([5e6, 9e6]), // far above the rest: the dense range grows
      emptyHistogram(),
    ].sort(() => u() - 0.5);
    const merged = shards.reduce(merge, emptyHistogram());
    const fromBytes = new HistogramSum();
    const fromDecoded = new HistogramSum();
    shards.forEach((h, i) => {
      fromBytes.addEncoded(encodeHistogram(h));
      // Mixed: the read API adds stored bytes, or a histogram already decoded.
      if (i % 2 === 0) fromDecoded.add(h);
      else fromDecoded.addEncoded(encodeHistogram(h));
    });
    expect(encodeHistogram(fromBytes.toHistogram())).toEqual(encodeHistogram(merged));
    expect(encodeHistogram(fromDecoded.toHistogram())).toEqual(encodeHistogram(merged));
    expect(new HistogramSum().toHistogram()).toEqual(emptyHistogram());
    // Its quantiles are the very ones of the merged histogram, read from the dense counts.
    const qs = [0, 0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 1];
    expect(fromBytes.quantiles(qs)).toEqual(qs.map((q) => quantile(merged, q)));
    for (const h of shards) {
      const one = new HistogramSum();
      one.addEncoded(encodeHistogram(h));
      expect(one.quantiles([0.95, 0.5])).toEqual([quantile(h, 0.95), quantile(h, 0.5)]);
    }
    expect(new HistogramSum().quantiles([0.5])).toEqual([null]);
    // Emptied, a sum is as new: what it sums next alone counts.
    fromBytes.clear();
    expect(fromBytes.toHistogram()).toEqual(emptyHistogram());
    fromBytes.add(shards[0]);
    expect(encodeHistogram(fromBytes.toHistogram())).toEqual(encodeHistogram(shards[0]));
  });

  it('refuses, when summing bytes, what decoding refuses', () => {
    const good = encodeHistogram(histogramOf([1, 2, 3]));
    expect(() => new HistogramSum().addEncoded(new Uint8Array([9, 6, 0]))).toThrow('unknown histogram format');
    expect(() => new HistogramSum().addEncoded(good.slice(0, 5))).toThrow('end early');
    expect(() => new HistogramSum().addEncoded(good.slice(0, good.length - 1))).toThrow('end early');
    expect(() => new HistogramSum().addEncoded(new Uint8Array([...good, 0]))).toThrow('trailing bytes');
    expect(() => new HistogramSum().addEncoded(new Uint8Array([1, 5, 0]))).toThrow('scale 5');
  });
});
