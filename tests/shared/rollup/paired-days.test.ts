/**
 * A family's packed day (shared/rollup/paired-days.ts) gives the very numbers its hourly JSON rows give: the same
 * series, bit for bit, for every figure, from rows of either stored format, with hours and pairs missing; and bytes
 * that are not a packed day are refused, never misread.
 */
import { describe, expect, it } from 'vitest';
import { packPairedDay, readPackedDay, PACKED_DAY_FORMAT } from '../../../shared/rollup/paired-days.ts';
import { familySeries, type ParsedPairedRow } from '../../../shared/rollup/paired-families.ts';
import { encodeBlocks, PAIRED_FIGURES, pairKey, type StoredBlocks } from '../../../shared/rollup/paired-hours.ts';
import type { PairBlock } from '../../../shared/stats/paired.ts';
import { DAY_MS, HOUR_MS } from '../../../shared/time.ts';

const DAY = Date.UTC(2026, 10, 3);
const TARGETS = ['a-one', 'b-two', 'c-three', 'd-four'];
const family = { region: 'weur', prompt_variant: 'chat', targets: TARGETS };

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A day of hourly rows as stored (format 2), some hours and pairs missing, some figures without a median. */
function dayRows(random: () => number, day = DAY): ParsedPairedRow[] {
  const rows: ParsedPairedRow[] = [];
  for (let h = 0; h < 24; h++) {
    if (random() < 0.15) continue;
    const blocks = new Map<string, PairBlock>();
    for (let i = 0; i < TARGETS.length; i++)
      for (let j = i + 1; j < TARGETS.length; j++) {
        if (random() < 0.1) continue;
        const n = PAIRED_FIGURES.map(() => Math.floor(random() * 13));
        blocks.set(pairKey(TARGETS[i], TARGETS[j]), {
          hour: day + h * HOUR_MS,
          n,
          aWins: n.map((x) => Math.floor(random() * (x + 1))),
          bWins: n.map(() => 0),
          d: n.map((x) => (x === 0 ? null : (random() - 0.5) * 3)),
        });
      }
    if (blocks.size > 0) rows.push({ hour: day + h * HOUR_MS, blocks: JSON.parse(encodeBlocks(blocks)) as StoredBlocks });
  }
  return rows;
}

const columns = (pairs: ReturnType<typeof familySeries>) => pairs.map((p) => ({ a: p.a, b: p.b, series: p.series.map((s) => ({ ...s })) }));

describe('a packed paired day', () => {
  it('gives the series its hourly rows give, bit for bit, every figure and any choice of figures', () => {
    const random = mulberry32(33);
    for (let k = 0; k < 20; k++) {
      const rows = dayRows(random);
      const packed = packPairedDay(DAY, rows)!;
      expect(packed[0]).toBe(PACKED_DAY_FORMAT);
      expect(columns(familySeries(family, [], PAIRED_FIGURES, [{ day: DAY, packed }]))).toEqual(columns(familySeries(family, rows)));
      const some = ['total_summary', 'ttfa_ms'] as const;
      expect(columns(familySeries(family, [], some, [{ day: DAY, packed }]))).toEqual(columns(familySeries(family, rows, some)));
    }
  });

  it('joins with hourly rows before and after it, in hour order', () => {
    const random = mulberry32(7);
    const before = dayRows(random, DAY - DAY_MS).slice(-5);
    const day = dayRows(random);
    const after = dayRows(random, DAY + DAY_MS).slice(0, 7);
    const mixed = familySeries(family, [...after, ...before], PAIRED_FIGURES, [{ day: DAY, packed: packPairedDay(DAY, day)! }]);
    expect(columns(mixed)).toEqual(columns(familySeries(family, [...before, ...day, ...after])));
    for (const p of mixed) for (const s of p.series) for (let i = 1; i < s.length; i++) expect(s.hours[i]).toBeGreaterThan(s.hours[i - 1]);
  });

  it('keeps what rows of format 1 did not store unknown', () => {
    // Format 1: [paired ticks, ticks A was faster, median d per figure]; B's wins and the other figures' counts unknown.
    const rows: ParsedPairedRow[] = [
      { hour: DAY + HOUR_MS, blocks: { 'a-one|b-two': [9, 4, 0.125, -0.5, 0.25, null, 1.5] } },
      { hour: DAY + 2 * HOUR_MS, blocks: { 'a-one|b-two': [3, 3, -0.031416, 0, 0, 0, 0] } },
    ];
    const packed = familySeries(family, [], PAIRED_FIGURES, [{ day: DAY, packed: packPairedDay(DAY, rows)! }]);
    expect(columns(packed)).toEqual(columns(familySeries(family, rows)));
    const ttfa = packed.find((p) => p.a === 'a-one' && p.b === 'b-two')!.series[0];
    expect([...ttfa.unknown]).toEqual([4, 4]);
    expect([...packed[0].series[1].unknown]).toEqual([7, 7]);
  });

  it('holds nothing for a day without blocks, and refuses counts it cannot hold', () => {
    expect(packPairedDay(DAY, [])).toBeNull();
    expect(packPairedDay(DAY, [{ hour: DAY + HOUR_MS, blocks: { v: 2 } }])).toBeNull();
    const big = { v: 2, 'a-one|b-two': PAIRED_FIGURES.flatMap(() => [70_000, 1, 1, 0.1]) };
    expect(() => packPairedDay(DAY, [{ hour: DAY, blocks: big }])).toThrow(/cannot be packed/);
  });

  it('refuses bytes that are not a whole packed day, naming why', () => {
    const packed = packPairedDay(DAY, dayRows(mulberry32(3)))!;
    const sink = { pairOf: () => -1, slots: new Int32Array(PAIRED_FIGURES.length).fill(-1), perPair: 0, builders: [] };
    const read = (bytes: Uint8Array) => readPackedDay({ day: DAY, packed: bytes }, sink);
    expect(() => read(packed)).not.toThrow();
    expect(() => read(packed.subarray(0, packed.length - 1))).toThrow(/ends early/);
    expect(() => read(packed.subarray(0, 3))).toThrow(/ends early/);
    const other = packed.slice();
    other[0] = 9;
    expect(() => read(other)).toThrow(/format 9/);
    const longer = new Uint8Array(packed.length + 1);
    longer.set(packed);
    expect(() => read(longer)).toThrow(/bytes after/);
  });
});
