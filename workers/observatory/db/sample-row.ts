/** A stored sample: the probe's Sample plus where and when it was taken, and its D1 row form. */
import type { Sample } from '../../../shared/types.ts';

export interface StoredSample extends Sample {
  id?: number;
  tick_id: number;
  region: string;
  simulated: boolean;
  backfill: boolean;
}

/** Columns written, in order; every one a field of StoredSample. */
export const SAMPLE_COLUMNS = [
  'tick_id', 'region', 'target', 'prompt_variant', 'started_at', 'colo', 'upstream_colo', 'colo_outside_region',
  'simulated', 'backfill', 'method_version', 'api', 'model', 'warm', 'status', 'headers_ms', 'first_byte_ms',
  'ttft_ms', 'ttfa_ms', 'total_ms', 'output_tokens', 'tokens_exact', 'prompt_tokens', 'input_tokens', 'max_tokens',
  'tpot_ms', 'decode_tps', 'itl_p50_ms', 'itl_p90_ms', 'itl_p99_ms', 'itl_max_ms', 'chunks', 'server_headers_ms',
  'server_timings', 'server_ttft_ms', 'server_ttft_source', 'rtt_ms', 'network_ms', 'server_ms', 'residual_ms',
  'split_source', 'finish_reason', 'error', 'error_detail', 'timeline',
] as const;

const BOOLEAN_COLUMNS = new Set(['colo_outside_region', 'simulated', 'backfill', 'warm', 'tokens_exact']);
const TIMELINE_UNITS_PER_MS = 10;

/** Offsets from t0 in 0.1 ms steps, each stored as the difference from the one before. */
export function encodeTimeline(offsetsMs: readonly number[]): string {
  let previous = 0;
  const parts: number[] = [];
  for (const ms of offsetsMs) {
    const units = Math.round(ms * TIMELINE_UNITS_PER_MS);
    parts.push(units - previous);
    previous = units;
  }
  return parts.join(',');
}

export function decodeTimeline(text: string): number[] {
  if (!text) return [];
  let units = 0;
  return text.split(',').map((d) => (units += Number(d)) / TIMELINE_UNITS_PER_MS);
}

export function toRowValues(s: StoredSample): Array<string | number | null> {
  return SAMPLE_COLUMNS.map((column) => {
    const value = s[column];
    if (column === 'server_timings') return JSON.stringify(value ?? {});
    if (column === 'timeline') return encodeTimeline(s.timeline);
    if (BOOLEAN_COLUMNS.has(column)) return value === null || value === undefined ? null : value ? 1 : 0;
    return (value ?? null) as string | number | null;
  });
}

export function fromRow(row: Record<string, unknown>): StoredSample {
  const s: Record<string, unknown> = { ...row };
  for (const column of BOOLEAN_COLUMNS) if (s[column] !== null && s[column] !== undefined) s[column] = s[column] === 1;
  s.server_timings = JSON.parse(String(row.server_timings ?? '{}'));
  s.timeline = decodeTimeline(String(row.timeline ?? ''));
  return s as unknown as StoredSample;
}
