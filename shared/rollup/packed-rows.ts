/**
 * Rollup rows packed one after another into one byte string, as a read of a long window gets them from D1
 * (workers/observatory/db/rollups.ts packedRowsCovering: per period and region, one group_concat of each
 * row's key and columns as hex). D1 hands a BLOB to a Worker as a JSON array of numbers, whose parsing
 * costs the Worker several times the merge; a period's rows as one hex string it copies, and grouping by
 * the table key's leading columns streams, so D1 reads each row once.
 *
 * A packed row: the target's UTF-8 bytes after their length (one byte), the prompt variant's the same way,
 * probes and successes (4 bytes each, big-endian), then each column asked for, in the order asked: a
 * figure's canonical histogram bytes (shared/stats/histogram-bytes.ts), or the split's (split-bytes.ts).
 * Each part says where it ends, so the rows need no separator.
 */
import { TextCache } from '../bytes.ts';
import type { RollupMetric } from './figures.ts';

/** A column a packed row may hold. */
export type PackedColumn = RollupMetric | 'split';

/** One region's rows of one period (or more), packed. */
export interface PackedRollupRows {
  region: string;
  bytes: Uint8Array;
}

/** A packed row's key and counts, as readPackedKey leaves them (one object for every read). */
export interface PackedKey {
  target: string;
  prompt_variant: string;
  probes: number;
  successes: number;
}

/** Targets and variants by their bytes: more than any deployment names. */
const names = new TextCache(4_096);

const endsEarly = () => new Error('packed rollup rows end early');

/** Reads the key of the packed row at bytes[p] into `key`; returns where its columns start. */
export function readPackedKey(bytes: Uint8Array, p: number, key: PackedKey): number {
  const end = bytes.length;
  if (p >= end) throw endsEarly();
  const targetEnd = p + 1 + bytes[p];
  if (targetEnd >= end) throw endsEarly();
  key.target = names.textOf(bytes, p + 1, targetEnd);
  const variantEnd = targetEnd + 1 + bytes[targetEnd];
  if (variantEnd + 8 > end) throw endsEarly();
  key.prompt_variant = names.textOf(bytes, targetEnd + 1, variantEnd);
  key.probes = uint32(bytes, variantEnd);
  key.successes = uint32(bytes, variantEnd + 4);
  return variantEnd + 8;
}

const uint32 = (b: Uint8Array, p: number): number => b[p] * 0x1000000 + ((b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]);
