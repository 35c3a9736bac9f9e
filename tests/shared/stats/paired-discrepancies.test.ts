/**
 * The five discrepancies of the paired comparisons (issue 36, section 2), each on the issue's own numbers:
 * wins counted per figure, the block cap the text states, one method for the p-value and the interval, and
 * the stored blocks' formats (the site's head-to-head reading and the compare page are tested in tests/site).
 */
import { describe, expect, it } from 'vitest';
import {
  BLOCKS_FORMAT,
  decodeBlocks,
  encodeBlocks,
  FORMAT_KEY,
  PAIRED_FIGURES,
  pairedHours,
  pairKey,
  type StoredBlocks,
} from '../../../shared/rollup/paired-hours.ts';
import type { RollupSample } from '../../../shared/rollup/rollup.ts';
import { blockLength, MIN_BLOCK_HOURS } from '../../../shared/stats/block-length.ts';
import { comparePaired, compareFamily, hodgesLehmann, holmLevels, MAX_BLOCKS, signedRankPValue } from '../../../shared/stats/paired.ts';
import { mulberry32 } from '../../../shared/stats/random.ts';
import { HOUR_MS, MINUTE_MS } from '../../../shared/time.ts';
import { correlatedBlocks } from '../../helpers/paired-sim.ts';

const START = Date.UTC(2026, 5, 1);
const TICK_MS = 10 * MINUTE_MS;
const figure = (id: (typeof PAIRED_FIGURES)[number]) => PAIRED_FIGURES.indexOf(id);

/** A successful sample of `target` at `tick` with the given TTFA and TPOT. */
const sample = (tick: number, target: string, ttfa: number, tpot: number) =>
  ({
    tick_id: tick,
    region: 'weur',
    target,
    prompt_variant: 'p',
    method_version: 2,
    error: null,
    split_source: null,
    ttfa_ms: ttfa,
    tpot_ms: tpot,
  }) as unknown as RollupSample;

/** `hours` hours of 6 ticks, each tick's (A, B) figures from `at(hour, tick)`, rolled up, stored and read back. */
function storedBlocks(hours: number, at: (h: number, k: number) => { a: [number, number]; b: [number, number] }) {
  const samples: RollupSample[] = [];
  for (let h = 0; h < hours; h++)
    for (let k = 0; k < 6; k++) {
      const tick = START + h * HOUR_MS + k * TICK_MS;
      const { a, b } = at(h, k);
      samples.push(sample(tick, 'a', ...a), sample(tick, 'b', ...b));
    }
  return pairedHours(samples).map((row) => decodeBlocks(row.hour, encodeBlocks(row.blocks)).get(pairKey('a', 'b'))!);
}

describe('1. wins and pairs are counted per figure', () => {
  // 8 hours × 6 ticks: A with TTFA 300 ms and TPOT 10 ms, B with TTFA 330 ms and TPOT 5 ms.
  const blocks = storedBlocks(8, () => ({ a: [300, 10], b: [330, 5] }));

  it("gives the chat total B's wins: A's 790 ms loses every tick to B's 575 ms", () => {
    const chat = comparePaired(blocks, figure('total_chat'));
    // Stored d keep 6 decimals of ln: the percentage to 1e-4.
    expect(chat.difference_pct!).toBeCloseTo(100 * (790 / 575 - 1), 3);
    expect(chat).toMatchObject({ pairs: 48, win_rate: 0, b_win_rate: 1 });
  });

  it("gives TTFA its own: A's 300 ms wins every tick", () => {
    const ttfa = comparePaired(blocks, figure('ttfa_ms'));
    expect(ttfa.difference_pct!).toBeCloseTo(100 * (300 / 330 - 1), 3);
    expect(ttfa).toMatchObject({ pairs: 48, win_rate: 1, b_win_rate: 0 });
  });

  it('counts a figure only where both had it: ticks without a TPOT pair on TTFA alone', () => {
    const partial = storedBlocks(2, (_, k) => ({ a: [300, k < 2 ? Number.NaN : 10], b: [330, 5] }));
    expect(partial[0].n[figure('ttfa_ms')]).toBe(6);
    expect(partial[0].n[figure('total_chat')]).toBe(4);
  });

  it('stores format 2, and reads a row of format 1 as "TTFA counts only, the other figures\' unknown"', () => {
    const [row] = pairedHours([sample(START, 'a', 300, 10), sample(START, 'b', 330, 5)]);
    const stored = JSON.parse(encodeBlocks(row.blocks)) as StoredBlocks;
    expect(stored[FORMAT_KEY]).toBe(BLOCKS_FORMAT);
    expect((stored['a|b'] as number[]).length).toBe(4 * PAIRED_FIGURES.length);
    // A row written before per-figure counts: [paired ticks, ticks A was faster, median d per figure].
    const old = decodeBlocks(START, { 'a|b': [6, 6, Math.log(300 / 330), Math.log(790 / 575), null, null, null] });
    const blocks = [...old.values()];
    expect(comparePaired(blocks, figure('ttfa_ms'))).toMatchObject({ pairs: 6, win_rate: 1, b_win_rate: null });
    const chat = comparePaired(blocks, figure('total_code'));
    expect(chat).toMatchObject({ pairs: null, win_rate: null, b_win_rate: null, more_ticks: null });
    expect(chat.difference_pct!).toBeCloseTo(100 * (790 / 575 - 1), 9);
    expect(() => decodeBlocks(START, { [FORMAT_KEY]: 9, 'a|b': [] })).toThrow(/format 9/);
  });
});

describe('2. the block cap is what the text says, and each comparison names its block length', () => {
  it('ranks at most 168 blocks (a week of hours), joining longer windows, never a week of independent hours', () => {
    expect(MAX_BLOCKS).toBe(168);
    // Independent weeks: blocks as the hours' fit says, which is mostly the shortest (the cap imposes nothing on a week).
    const lengths = Array.from({ length: 20 }, (_, seed) => {
      const blocks = correlatedBlocks(seed, 7 * 24, { shift: 0, rho: 0, hourSd: 0.05 });
      const week = comparePaired(blocks);
      expect(week.block_hours).toBe(blockLength(blocks.map((b) => ({ hour: b.hour, y: b.d[0]! }))).hours);
      expect(week.blocks).toBe(Math.ceil(168 / week.block_hours!));
      return week.block_hours!;
    });
    expect(lengths.filter((h) => h === MIN_BLOCK_HOURS).length).toBeGreaterThanOrEqual(15);
    const month = comparePaired(correlatedBlocks(1, 30 * 24, { shift: 0, rho: 0, hourSd: 0.05 }));
    expect(month.block_hours).toBeGreaterThanOrEqual(Math.ceil((30 * 24) / MAX_BLOCKS));
    expect(month.blocks).toBeLessThanOrEqual(MAX_BLOCKS);
  });

  it('joins hours into longer blocks when neighbouring hours are alike', () => {
    const alike = comparePaired(correlatedBlocks(2, 7 * 24, { shift: 0, rho: 0.9, hourSd: 0.1 }));
    expect(alike.block_hours).toBeGreaterThan(12);
    expect(alike.hour_autocorrelation!).toBeGreaterThan(0.5);
  });
});

describe('3. the p-value and the interval come from one method, ties and zeros included', () => {
  it("calls the issue's blocks B faster with an interval of [0.50 %, 9.42 %] and p = 3/64 (the exact 0.047), not 0.0511", () => {
    const y = [0.01, 0.09, -0.03, 0.09, 0.04, 0.08, 0.04];
    const hl = hodgesLehmann(y)!;
    expect(100 * (Math.exp(hl.low!) - 1)).toBeCloseTo(0.5, 2);
    expect(100 * (Math.exp(hl.high!) - 1)).toBeCloseTo(9.42, 2);
    expect(signedRankPValue(y)).toBeCloseTo(6 / 128, 12);
  });

  it('agrees on every draw: p ≤ 1 − confidence exactly when the interval leaves 0 out (ties, zeros, exact and normal ranks)', () => {
    const r = mulberry32(36);
    for (let draw = 0; draw < 500; draw++) {
      const m = 1 + Math.floor(r() * 170);
      // Values on a coarse grid, so ties and zeros (and Walsh averages at exactly 0) are common.
      const y = Array.from({ length: m }, () => Math.round((r() - 0.45) * 12) / 100);
      const p = signedRankPValue(y)!;
      for (const confidence of [0.95, 0.99, 1 - 0.05 / 7, 0.9999]) {
        const hl = hodgesLehmann(y, confidence)!;
        const excludes = hl.low !== null && hl.high !== null && (hl.low > 0 || hl.high < 0);
        expect(p <= 1 - confidence, `m ${m} at ${confidence}: p ${p}, [${hl.low}, ${hl.high}]`).toBe(excludes);
      }
    }
  });

  it('orders Holm by those p-values: a comparison it rejects has an interval without 0 at its level, and no other does', () => {
    const weeks = [0, 0.02, 0.04, 0.06, 0.1, -0.08].map((shift, k) => correlatedBlocks(100 + k, 7 * 24, { shift, rho: 0.3, hourSd: 0.05 }));
    const results = compareFamily(weeks, 0, 0);
    const levels = holmLevels(results.map((x) => x.p_value));
    results.forEach((x, i) => {
      expect(x.confidence).toBe(levels[i]);
      const excludes = x.ci_low_pct! > 0 || x.ci_high_pct! < 0;
      expect(excludes).toBe(x.p_value! <= 1 - x.confidence);
    });
    expect(results.filter((x) => x.verdict !== 'not_enough_data').length).toBeGreaterThan(0);
  });
});
