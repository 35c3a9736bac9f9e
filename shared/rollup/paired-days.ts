/**
 * A family's day of paired blocks packed into one byte string (migrations/0020_paired_days.sql): the day's hourly
 * rows of one region × prompt variant × method version (paired-hours.ts), written when the day has ended. A long
 * window then reads one D1 row a day instead of 24, and decodes it without JSON: at the goal's 45 pairs, parsing a
 * family's 90 days of hourly JSON cost the view builder more than all its comparisons (bench/duties.ts).
 *
 * Layout (integers big-endian):
 *   u8 format (3), u8 figures F (of PAIRED_FIGURES, in its order), u16 pairs P,
 *   P × (u8 byte length, the UTF-8 bytes of the pair's key "a|b"),
 *   u8 hours H, then per hour (in hour order): u8 hour of the day, ⌈P / 8⌉ bytes of which pairs have a block
 *   (bit 7 − p % 8 of byte p / 8), then each such pair's F × (u16 paired ticks, u16 ticks A was lower, u16 ticks B was
 *   lower, i32 median d in millionths).
 * A count not stored (rows of format 1) is 0xFFFF, a median d not had −2³¹. A median d is stored as the hourly
 * JSON holds it (D_DIGITS decimals): k / 10⁶ is the very double the JSON's text parses to, so a packed day gives
 * the same numbers as its hours.
 */
import { HOUR_MS } from '../time.ts';
import { TextCache } from '../bytes.ts';
import type { PairSeriesBuilder } from '../stats/pair-series.ts';
import { blockOf, formatOf, PAIRED_FIGURES, type StoredBlocks, FORMAT_KEY } from './paired-hours.ts';

export const PACKED_DAY_FORMAT = 3;
/** Bytes of one figure of one pair's hour. */
export const FIGURE_BYTES = 10;
const NO_COUNT = 0xffff;
const NO_D = -0x80000000;
const MICRO = 1e6;

/** A family's packed day as read: the day's start and its bytes. */
export interface PackedPairedDay {
  day: number;
  packed: Uint8Array;
}

const utf8 = new TextEncoder();
const keys = new TextCache(4_096);

/** The day's hourly rows of one family (parsed, any order, all of that day) packed; null when none has a block. */
export function packPairedDay(day: number, rows: ReadonlyArray<{ hour: number; blocks: StoredBlocks }>): Uint8Array | null {
  const hours = [...rows].filter((r) => r.hour >= day && r.hour < day + 24 * HOUR_MS).sort((a, b) => a.hour - b.hour);
  const pairKeys = [
    ...new Set(hours.flatMap((r) => Object.keys(r.blocks).filter((k) => k !== FORMAT_KEY && Array.isArray(r.blocks[k])))),
  ].sort();
  if (pairKeys.length === 0) return null;
  if (pairKeys.length > 0xffff) throw new Error(`a packed day holds at most 65535 pairs, not ${pairKeys.length}`);
  const F = PAIRED_FIGURES.length;
  const encodedKeys = pairKeys.map((k) => utf8.encode(k));
  for (const [i, k] of encodedKeys.entries()) if (k.length > 0xff) throw new Error(`pair key too long to pack: ${pairKeys[i]}`);
  const mapBytes = Math.ceil(pairKeys.length / 8);
  let size = 5 + encodedKeys.reduce((n, k) => n + 1 + k.length, 0);
  const present = hours.map((r) => pairKeys.map((k) => Array.isArray(r.blocks[k])));
  for (const p of present) size += 1 + mapBytes + p.filter(Boolean).length * F * FIGURE_BYTES;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out[0] = PACKED_DAY_FORMAT;
  out[1] = F;
  view.setUint16(2, pairKeys.length);
  let at = 4;
  for (const k of encodedKeys) {
    out[at++] = k.length;
    out.set(k, at);
    at += k.length;
  }
  out[at++] = hours.length;
  hours.forEach((r, h) => {
    out[at++] = Math.round((r.hour - day) / HOUR_MS);
    const map = at;
    at += mapBytes;
    const format = formatOf(r.blocks);
    pairKeys.forEach((key, p) => {
      if (!present[h][p]) return;
      out[map + (p >> 3)] |= 0x80 >> (p & 7);
      const b = blockOf(r.hour, r.blocks[key] as Array<number | null>, format);
      for (let f = 0; f < F; f++) {
        view.setUint16(at, countOf(b.n[f]));
        view.setUint16(at + 2, countOf(b.aWins[f]));
        view.setUint16(at + 4, countOf(b.bWins[f]));
        view.setInt32(at + 6, microOf(b.d[f]));
        at += FIGURE_BYTES;
      }
    });
  });
  return out;
}

function countOf(x: number | null | undefined): number {
  if (x === null || x === undefined) return NO_COUNT;
  if (!Number.isInteger(x) || x < 0 || x >= NO_COUNT) throw new Error(`a paired count of ${x} cannot be packed (0 to ${NO_COUNT - 1})`);
  return x;
}

function microOf(d: number | null | undefined): number {
  if (d === null || d === undefined) return NO_D;
  const k = Math.round(d * MICRO);
  if (!(Math.abs(k) < 0x80000000 - 1)) throw new Error(`a median d of ${d} cannot be packed`);
  return k;
}

const endsEarly = () => new Error('a packed paired day ends early');

/** Where a packed day's figures go: one series builder per pair and figure asked. */
export interface PackedDaySink {
  /** For each pair key the day holds (asked once per day): the reader's index of the pair, or −1 to skip it. */
  pairOf(key: string): number;
  /** Per position in PAIRED_FIGURES, the figure's slot among those asked (−1: not asked); as long as PAIRED_FIGURES. */
  slots: Int32Array;
  /** Slots a pair has (the figures asked). */
  perPair: number;
  /** The builders, pair by pair, each pair's slots in order. */
  builders: readonly PairSeriesBuilder[];
}

/**
 * Reads a packed day into `sink`: each hour's block of each pair it names, per figure asked, added to that pair's and
 * figure's series (a count not stored as null, a median d not had as nothing).
 */
export function readPackedDay(day: PackedPairedDay, sink: PackedDaySink): void {
  const b = day.packed;
  if (b.length < 5) throw endsEarly();
  if (b[0] !== PACKED_DAY_FORMAT)
    throw new Error(`a packed paired day in format ${b[0]}, which this code cannot read (it reads ${PACKED_DAY_FORMAT})`);
  const F = b[1];
  const P = (b[2] << 8) | b[3];
  let at = 4;
  const index = new Int32Array(P);
  for (let p = 0; p < P; p++) {
    const end = at + 1 + b[at];
    if (end > b.length) throw endsEarly();
    index[p] = sink.pairOf(keys.textOf(b, at + 1, end));
    at = end;
  }
  const { slots, perPair, builders } = sink;
  const figures = Math.min(F, slots.length);
  const H = b[at++];
  const mapBytes = (P + 7) >> 3;
  const pairBytes = F * FIGURE_BYTES;
  for (let h = 0; h < H; h++) {
    if (at + 1 + mapBytes > b.length) throw endsEarly();
    const hour = day.day + b[at] * HOUR_MS;
    const map = at + 1;
    at = map + mapBytes;
    for (let p = 0; p < P; p++) {
      if ((b[map + (p >> 3)] & (0x80 >> (p & 7))) === 0) continue;
      if (at + pairBytes > b.length) throw endsEarly();
      const i = index[p];
      if (i >= 0)
        for (let f = 0; f < figures; f++) {
          const slot = slots[f];
          if (slot < 0) continue;
          const x = at + f * FIGURE_BYTES;
          const k = (b[x + 6] << 24) | (b[x + 7] << 16) | (b[x + 8] << 8) | b[x + 9];
          if (k === NO_D) continue;
          const n = (b[x] << 8) | b[x + 1];
          const aWins = (b[x + 2] << 8) | b[x + 3];
          const bWins = (b[x + 4] << 8) | b[x + 5];
          builders[i * perPair + slot].add(
            hour,
            n === NO_COUNT ? null : n,
            aWins === NO_COUNT ? null : aWins,
            bWins === NO_COUNT ? null : bWins,
            k / MICRO,
          );
        }
      at += pairBytes;
    }
  }
  if (at !== b.length) throw new Error('a packed paired day has bytes after its last hour');
}
