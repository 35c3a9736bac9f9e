/** Rollups as D1 stores them, for the benchmarks: the rows a read returns, and those of span rollups merged from them. */
import { bodyValues, fromRollupRow } from '../workers/observatory/db/rollup-row.ts';
import { mergeByGroup, ROLLUP_METRICS, type Rollup } from '../shared/rollup/rollup.ts';
import { pieceEnd, type Piece } from '../shared/rollup/spans.ts';

/** A rollup as its D1 row: the stored columns, histograms as bytes. */
export function asRow(r: Rollup, period: 'hour' | 'day'): Record<string, unknown> {
  const [probes, successes, errors, ...rest] = bodyValues(r);
  const row: Record<string, unknown> = {
    [period]: r.hour,
    region: r.region,
    target: r.target,
    prompt_variant: r.prompt_variant,
    method_version: r.method_version,
    probes,
    successes,
    errors,
  };
  ROLLUP_METRICS.forEach((m, i) => {
    row[m] = rest[i];
  });
  row.split = rest[ROLLUP_METRICS.length];
  return row;
}

/**
 * The stored rows of each piece of a window (shared/rollup/spans.ts coverOf), keyed `hour` by the piece's start:
 * an hourly or daily row as it is, a span merged from the base rows `rowsOf(from, to)` gives for its periods, as
 * the rollup duty merges it (db/span-rollups.ts). The bench's days are alike, so its spans' histograms are as wide
 * as a day's; a real span's are somewhat wider.
 */
export function pieceRows(pieces: readonly Piece[], rowsOf: (from: number, to: number) => Array<Record<string, unknown>>) {
  return pieces.map((p) => {
    const base = rowsOf(p.start, pieceEnd(p));
    const rows =
      p.hours === 1 || p.hours === 24
        ? base.map((r) => ({ ...r, hour: p.start }))
        : mergeByGroup(base.map(fromRollupRow), p.start).map((r) => asRow(r, 'hour'));
    return { table: p.hours === 1 ? 'hourly' : p.hours === 24 ? 'daily' : 'span', rows };
  });
}
