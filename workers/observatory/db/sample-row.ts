/** A stored sample: the probe's Sample plus where and when it was taken, and its D1 row form. */
import { STORED_FIELDS, type FieldDef, type StoredRow } from '../../../shared/sample-fields.ts';

export interface StoredSample extends StoredRow {
  id?: number;
}

/** Columns written, in order: every stored field (shared/sample-fields.ts). */
export const SAMPLE_COLUMNS: readonly string[] = STORED_FIELDS.map((f) => f.name);

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

function toColumn(f: FieldDef, value: unknown): string | number | null {
  if (value === null || value === undefined) return f.type === 'json' ? '{}' : f.type === 'timeline' ? '' : null;
  switch (f.type) {
    case 'bool':
      return value ? 1 : 0;
    case 'json':
      return JSON.stringify(value);
    case 'timeline':
      return encodeTimeline(value as number[]);
    default:
      return value as string | number;
  }
}

function fromColumn(f: FieldDef, value: unknown): unknown {
  switch (f.type) {
    case 'bool':
      return value === null || value === undefined ? null : value === 1;
    case 'json':
      return JSON.parse(String(value ?? '{}'));
    case 'timeline':
      return decodeTimeline(String(value ?? ''));
    default:
      return value ?? null;
  }
}

export function toRowValues(s: StoredSample): Array<string | number | null> {
  const row = s as unknown as Record<string, unknown>;
  return STORED_FIELDS.map((f) => toColumn(f, row[f.name]));
}

export function fromRow(row: Record<string, unknown>): StoredSample {
  const s: Record<string, unknown> = {};
  if (row.id !== undefined) s.id = row.id;
  for (const f of STORED_FIELDS) s[f.name] = fromColumn(f, row[f.name]);
  return s as unknown as StoredSample;
}
