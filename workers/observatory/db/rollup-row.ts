/** A rollup as a D1 row and back: its stored columns after the key, histograms as bytes. */
import {
  ROLLUP_METRICS,
  STORED_HISTOGRAM,
  TOTAL_HOUR,
  decodeSplit,
  encodeErrors,
  encodeSplit,
  type Rollup,
  type RollupMetric,
} from '../../../shared/rollup/rollup.ts';
import type { ExpHistogram } from '../../../shared/stats/exp-histogram.ts';
import { decodeHistogram, encodeHistogram } from '../../../shared/stats/histogram-bytes.ts';
import type { ErrorClass } from '../../../shared/ids.ts';
import { hexToBytes } from '../../../shared/bytes.ts';

/** A rollup's stored columns after its key, as written. */
export const bodyValues = (r: Rollup) => [
  r.probes,
  r.successes,
  encodeErrors(r.errors),
  ...ROLLUP_METRICS.map((m) => encodeHistogram(r.histograms[m])),
  encodeSplit(r.split),
];

/**
 * A row's histograms, each decoded when first read: a reader of one figure over a long window
 * (percentiles) decodes one column of thousands of rows, not all. The accessors live on the prototype,
 * so making one costs an object, not six property definitions (a long window makes thousands).
 */
class StoredHistograms {
  readonly #row: Record<string, unknown>;
  readonly #decoded: Partial<Record<RollupMetric, ExpHistogram>> = {};
  /** Bit i: the histogram of ROLLUP_METRICS[i] was replaced, so its stored bytes no longer say what it holds. */
  #replaced = 0;

  constructor(row: Record<string, unknown>) {
    this.#row = row;
  }

  /** The stored bytes of `m`, unless its histogram was replaced since (shared/rollup/rollup.ts, STORED_HISTOGRAM). */
  [STORED_HISTOGRAM](m: RollupMetric | 'split'): Uint8Array | undefined {
    if (m === 'split') return this.splitReplaced ? undefined : blobBytes(this.#row.split);
    return this.#replaced & (1 << ROLLUP_METRICS.indexOf(m)) ? undefined : blobBytes(this.#row[m]);
  }

  /** Set by the rollup when its split is replaced: the stored split bytes no longer say what it holds. */
  splitReplaced = false;

  static {
    for (const m of ROLLUP_METRICS) {
      Object.defineProperty(StoredHistograms.prototype, m, {
        enumerable: true,
        get(this: StoredHistograms) {
          return (this.#decoded[m] ??= decodeHistogram(blobBytes(this.#row[m])));
        },
        set(this: StoredHistograms, v: ExpHistogram) {
          this.#decoded[m] = v;
          this.#replaced |= 1 << ROLLUP_METRICS.indexOf(m);
        },
      });
    }
  }
}

/** A rollup from its row as D1 returns it; its errors and split are decoded when first read, like its histograms. */
export function fromRollupRow(row: Record<string, unknown>): Rollup {
  const histograms = new StoredHistograms(row);
  let split: Rollup['split'] | undefined;
  let errors: Rollup['errors'] | undefined;
  const rollup: Rollup = {
    hour: Number(row.hour ?? row.day ?? TOTAL_HOUR),
    region: String(row.region),
    target: String(row.target),
    prompt_variant: String(row.prompt_variant),
    method_version: Number(row.method_version),
    probes: Number(row.probes),
    successes: Number(row.successes),
    get errors() {
      return (errors ??= JSON.parse(String(row.errors)) as Partial<Record<ErrorClass, number>>);
    },
    set errors(v) {
      errors = v;
    },
    histograms: histograms as unknown as Record<RollupMetric, ExpHistogram>,
    get split() {
      return (split ??= decodeSplit(blobBytes(row.split)));
    },
    set split(v) {
      split = v;
      histograms.splitReplaced = true;
    },
  };
  return rollup;
}

/**
 * A BLOB as D1 hands it back: an array of byte values (a plain SELECT of the column: D1's JSON), an
 * ArrayBuffer (other paths), or hex text (a SELECT of `hex(column)`, which costs the Worker a fraction
 * of the array's CPU to receive: db/rollups.ts reads long windows that way).
 */
export function blobBytes(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (typeof value === 'string') return hexToBytes(value);
  if (Array.isArray(value)) return Uint8Array.from(value as number[]);
  throw new TypeError(`expected a BLOB, got ${typeof value}`);
}
