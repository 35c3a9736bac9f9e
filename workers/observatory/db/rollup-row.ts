/** A rollup as a D1 row and back: its stored columns after the key, histograms as bytes. */
import { ROLLUP_METRICS, TOTAL_HOUR, decodeSplit, encodeErrors, encodeSplit, type Rollup, type RollupMetric } from '../../../shared/rollup.ts';
import { decodeHistogram, encodeHistogram, type ExpHistogram } from '../../../shared/stats/exp-histogram.ts';
import type { ErrorClass } from '../../../shared/ids.ts';

/** A rollup's stored columns after its key, as written. */
export const bodyValues = (r: Rollup) => [r.probes, r.successes, encodeErrors(r.errors), ...ROLLUP_METRICS.map((m) => encodeHistogram(r.histograms[m])), encodeSplit(r.split)];

/**
 * A rollup from its row as D1 returns it. Each histogram (and the split) is decoded when first read: a
 * reader of one figure over a long window (percentiles) decodes one column of thousands of rows, not all.
 */
export function fromRollupRow(row: Record<string, unknown>): Rollup {
  const histograms = {} as Record<RollupMetric, ExpHistogram>;
  for (const m of ROLLUP_METRICS) {
    let h: ExpHistogram | undefined;
    Object.defineProperty(histograms, m, {
      enumerable: true, configurable: true,
      get: () => (h ??= decodeHistogram(bytes(row[m]))),
      set: (v: ExpHistogram) => { h = v; },
    });
  }
  let split: Rollup['split'] | undefined;
  return {
    hour: Number(row.hour ?? row.day ?? TOTAL_HOUR), region: String(row.region), target: String(row.target), prompt_variant: String(row.prompt_variant),
    method_version: Number(row.method_version), probes: Number(row.probes), successes: Number(row.successes),
    errors: JSON.parse(String(row.errors)) as Partial<Record<ErrorClass, number>>,
    histograms,
    get split() {
      return (split ??= decodeSplit(bytes(row.split)));
    },
    set split(v) {
      split = v;
    },
  };
}

function bytes(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (Array.isArray(value)) return Uint8Array.from(value as number[]);
  throw new TypeError(`expected a BLOB, got ${typeof value}`);
}
