/**
 * The paired comparisons' fast code beside the code before it (tests/helpers/paired-reference.ts), on seeded random
 * inputs: ties, zeros, constant series, gaps, hours out of order, unknown counts (format-1 rows), missing figures,
 * 1 to 200 hours and blocks. Every output is asked to be the same number, bit for bit (Object.is: −0 is not 0):
 * the speed-up changes how the figures are computed, never what they are.
 */
import { describe, expect, it } from 'vitest';
import * as paired from '../../../shared/stats/paired.ts';
import * as walsh from '../../../shared/stats/walsh.ts';
import * as signedRank from '../../../shared/stats/signed-rank.ts';
import * as blockLength from '../../../shared/stats/block-length.ts';
import * as families from '../../../shared/rollup/paired-families.ts';
import { encodeBlocks, PAIRED_FIGURES, pairKey, type StoredBlocks } from '../../../shared/rollup/paired-hours.ts';
import { CompareViewBuilder } from '../../../workers/observatory/views/compare-build.ts';
import { VIEW_WINDOWS, viewSpan } from '../../../shared/views/windows.ts';
import { HOUR_MS } from '../../../shared/time.ts';
import {
  blockLengthBefore,
  CompareViewBuilderBefore,
  familiesBefore,
  pairedBefore,
  signedRankBefore,
  walshBefore,
} from '../../helpers/paired-reference.ts';
import { mulberry32 } from '../../../shared/stats/random.ts';

const rng = mulberry32;

type Random = () => number;
const int = (r: Random, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));

/** Values of one kind: continuous, heavily tied (a few levels), with zeros, constant, or an autocorrelated drift. */
function values(r: Random, n: number): number[] {
  const kind = int(r, 0, 5);
  const shift = (r() - 0.5) * 0.2;
  const out: number[] = [];
  let drift = 0;
  for (let i = 0; i < n; i++) {
    drift = 0.9 * drift + 0.05 * (r() - 0.5);
    const noise = (r() - 0.5) * 0.1;
    if (kind === 0) out.push(shift + noise);
    else if (kind === 1) out.push(Math.round((shift + noise) * 50) / 50);
    else if (kind === 2) out.push(r() < 0.4 ? 0 : Math.round((shift + noise) * 1e3) / 1e3);
    else if (kind === 3) out.push(shift);
    else if (kind === 4) out.push(shift + drift + noise / 4);
    else out.push(Number((shift + noise).toFixed(6)) * (r() < 0.5 ? -1 : 1));
  }
  return out;
}

const HOUR0 = Date.UTC(2026, 0, 10, 0);

/** `n` whole hours from HOUR0 back, with gaps now and then, in order unless `shuffle`. */
function hoursOf(r: Random, n: number, shuffle: boolean): number[] {
  const gap = r() < 0.5 ? 0 : r() * 0.3;
  const out: number[] = [];
  let h = HOUR0 - 300 * HOUR_MS;
  for (let i = 0; i < n; i++) {
    out.push(h);
    h += HOUR_MS * (r() < gap ? int(r, 2, 30) : 1);
  }
  if (shuffle) for (let i = out.length - 1; i > 0; i--) swap(out, i, int(r, 0, i));
  return out;
}

function swap<T>(xs: T[], i: number, j: number) {
  const t = xs[i];
  xs[i] = xs[j];
  xs[j] = t;
}

/** Blocks of `figures` figures over `n` hours: counts sometimes unknown, a figure sometimes without a pair. */
function blocksOf(r: Random, n: number, figures: number, shuffle = r() < 0.2): paired.PairBlock[] {
  const hours = hoursOf(r, n, shuffle);
  const ds = Array.from({ length: figures }, () => values(r, n));
  const unknownCounts = r() < 0.15;
  const missing = r() < 0.3 ? 0.2 : 0;
  return hours.map((hour, i) => {
    const n: Array<number | null> = [];
    const aWins: Array<number | null> = [];
    const bWins: Array<number | null> = [];
    const d: Array<number | null> = [];
    for (let f = 0; f < figures; f++) {
      const ticks = int(r, 1, 12);
      const a = int(r, 0, ticks);
      n.push(unknownCounts && f > 0 ? null : ticks);
      aWins.push(unknownCounts && f > 0 ? null : a);
      bWins.push(unknownCounts ? null : int(r, 0, ticks - a));
      d.push(r() < missing ? null : ds[f][i]);
    }
    return { hour, n, aWins, bWins, d };
  });
}

const sizes = (r: Random) => (r() < 0.6 ? int(r, 1, 40) : int(r, 41, 200));
const CONFIDENCES = [0.95, 0.99, 0.999, 0.95 + 0.05 / 3, 1 - 0.05 / 45, 0.8];

describe('the paired comparisons, fast and before', () => {
  it('rank the same Walsh averages: every order statistic, count and median, ties and zeros included', () => {
    const r = rng(1);
    for (let trial = 0; trial < 400; trial++) {
      const m = trial < 200 ? trial + 1 : sizes(r);
      const y = Float64Array.from(values(r, m)).sort();
      const M = (m * (m + 1)) / 2;
      const ks = m <= 24 ? Array.from({ length: M }, (_, k) => k + 1) : Array.from({ length: 40 }, () => int(r, 1, M));
      ks.push(1, M, Math.ceil(M / 2));
      for (const k of ks) expect(walsh.walshOrderStatistic(y, k)).toBe(walshBefore.walshOrderStatistic(y, k));
      expect(walsh.walshMedian(y)).toBe(walshBefore.walshMedian(y));
      for (const v of [0, y[0], y[m - 1], (y[0] + y[m - 1]) / 2, walshBefore.walshMedian(y), r() - 0.5])
        for (const strict of [false, true]) expect(walsh.walshCount(y, v, strict)).toBe(walshBefore.walshCount(y, v, strict));
    }
  });

  it('give the same interval ranks and p-values, exact and normal', () => {
    for (let m = 1; m <= 200; m++)
      for (const c of CONFIDENCES) expect(signedRank.intervalRank(m, c)).toBe(signedRankBefore.intervalRank(m, c));
    const r = rng(2);
    for (let i = 0; i < 2_000; i++) {
      const m = int(r, 0, 200);
      const M = (m * (m + 1)) / 2;
      const atMost = int(r, 0, M);
      const atLeast = int(r, 0, M);
      expect(signedRank.signedRankPFromCounts(m, atMost, atLeast)).toBe(signedRankBefore.signedRankPFromCounts(m, atMost, atLeast));
      const t = int(r, -2, M + 2);
      expect(signedRank.signedRankLowerTail(m, t)).toBe(signedRankBefore.signedRankLowerTail(m, t));
    }
  });

  it("fit the same block length to the same hours' autocorrelation", () => {
    const r = rng(3);
    for (let trial = 0; trial < 400; trial++) {
      const n = trial < 200 ? trial + 1 : sizes(r);
      const hv = hoursOf(r, n, false).map((hour, i, hs) => ({ hour, y: values(r, hs.length)[i] }));
      const ys = values(r, n);
      hv.forEach((v, i) => {
        v.y = ys[i];
      });
      for (const lags of [1, 3, 12])
        expect(blockLength.hourAutocorrelation(hv, lags)).toStrictEqual(blockLengthBefore.hourAutocorrelation(hv, lags));
      for (const atLeast of [1, 2, int(r, 1, 30)])
        expect(blockLength.blockLength(hv, atLeast)).toStrictEqual(blockLengthBefore.blockLength(hv, atLeast));
      for (const h of [1, 3, int(r, 2, 24)]) expect(blockLength.joinHours(hv, h)).toStrictEqual(blockLengthBefore.joinHours(hv, h));
    }
  });

  it('give every field of a comparison the same, at every confidence and margin', () => {
    const r = rng(4);
    for (let trial = 0; trial < 600; trial++) {
      const n = trial < 200 ? trial + 1 : sizes(r);
      const figures = int(r, 1, 3);
      const blocks = blocksOf(r, n, figures);
      for (let f = 0; f < figures; f++) {
        const now = paired.pairedStats(blocks, f);
        const before = pairedBefore.pairedStats(blocks, f);
        expect({ ...now, y: Array.from(now.y) }).toStrictEqual({ ...before, y: Array.from(before.y) });
        const margin = [0.05, 0.01, 0.2][trial % 3];
        const confidence = CONFIDENCES[trial % CONFIDENCES.length];
        expect(paired.comparePaired(blocks, f, margin, confidence)).toStrictEqual(
          pairedBefore.comparePaired(blocks, f, margin, confidence),
        );
      }
      const y = values(r, int(r, 0, 60));
      expect(paired.hodgesLehmann(y)).toStrictEqual(pairedBefore.hodgesLehmann(y));
      expect(paired.signedRankPValue(y)).toStrictEqual(pairedBefore.signedRankPValue(y));
    }
  });

  it('give a family the same Holm levels and results', () => {
    const r = rng(5);
    for (let trial = 0; trial < 60; trial++) {
      const count = int(r, 1, 15);
      const sets = Array.from({ length: count }, () => blocksOf(r, sizes(r), 2));
      for (const f of [0, 1]) expect(paired.compareFamily(sets, f, 0.05)).toStrictEqual(pairedBefore.compareFamily(sets, f, 0.05));
    }
  });

  /** A family's stored rows over `hours` hours: format 2 mostly, format 1 now and then, some pairs absent some hours. */
  function storedRows(r: Random, targets: string[], hours: number): families.ParsedPairedRow[] {
    const pairs = families.familyPairs({ region: 'x', prompt_variant: 'v', targets });
    const series = pairs.map(() => blocksOf(r, hours, PAIRED_FIGURES.length, false));
    const rows: families.ParsedPairedRow[] = [];
    const formatOne = r() < 0.3 ? 0.2 : 0;
    for (let h = 0; h < hours; h++) {
      const hour = series[0][h].hour;
      const blocks = new Map<string, paired.PairBlock>();
      pairs.forEach((p, i) => {
        if (r() < 0.9) blocks.set(pairKey(p.a, p.b), { ...series[i][h], hour });
      });
      let stored = JSON.parse(encodeBlocks(blocks)) as StoredBlocks;
      if (r() < formatOne) {
        const one: StoredBlocks = {};
        for (const [key, b] of blocks)
          one[key] = [b.n[0] ?? 0, b.aWins[0] ?? 0, ...b.d.map((d) => (d === null ? null : Number(d.toFixed(6))))];
        stored = one;
      }
      rows.push({ hour, blocks: stored });
    }
    if (r() < 0.3) rows.reverse();
    return rows;
  }

  it('give the live route and the views the same comparisons from the same stored rows', () => {
    const r = rng(6);
    for (let trial = 0; trial < 12; trial++) {
      const targets = Array.from({ length: int(r, 2, 6) }, (_, k) => `t-${k}`);
      const f = { region: 'weur', prompt_variant: 'chat', targets };
      const rows = storedRows(r, targets, int(r, 1, 400));
      for (const figures of [PAIRED_FIGURES, ['ttfa_ms'] as const, [PAIRED_FIGURES[3], PAIRED_FIGURES[1]]]) {
        const now = families.familyComparisons(f, families.familyBlocks(f, rows, figures), figures);
        const before = familiesBefore.familyComparisons(f, familiesBefore.familyBlocks(f, rows, figures), figures);
        expect(now).toStrictEqual(before);
      }
      // The views' builder at an hour inside the rows (the windows cut them) and after them.
      for (const at of [HOUR0 - 150 * HOUR_MS, HOUR0 + 20 * HOUR_MS]) {
        const spans = VIEW_WINDOWS.map((w) => viewSpan(w.id, at));
        const now = new CompareViewBuilder(spans);
        const before = new CompareViewBuilderBefore(spans);
        now.add(f, rows);
        before.add(f, rows);
        now.add({ ...f, region: 'apac' }, rows);
        before.add({ ...f, region: 'apac' }, rows);
        expect(JSON.stringify(now.views())).toBe(JSON.stringify(before.views()));
        expect(now.views()).toStrictEqual(before.views());
      }
    }
  });
});
