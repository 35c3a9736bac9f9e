/**
 * The Parquet columns of the raw-samples archive, derived from the one sample definition
 * (shared/sample-fields.ts): every stored field, in order, with its Parquet type, whether it may be
 * null, its kind and its unit. docs/ARCHIVE.md documents them; a new field changes the archive by itself.
 */
import { STORED_FIELDS, unitOf, type FieldDef, type FieldKind, type FieldType } from '../sample-fields.ts';
import { ROLLUP_METRICS } from '../rollup/rollup.ts';

/** Raised when a column's type or meaning changes (a new column alone does not change it). */
export const ARCHIVE_SCHEMA_VERSION = 1;

export type ParquetType = 'INT64' | 'DOUBLE' | 'STRING' | 'BOOLEAN' | 'JSON' | 'BYTE_ARRAY';

/** `timeline` keeps its stored form: offsets from t0 in 0.1 ms steps, each the difference from the one before. */
const PARQUET_TYPES: Record<FieldType, ParquetType> = {
  int: 'INT64',
  real: 'DOUBLE',
  text: 'STRING',
  bool: 'BOOLEAN',
  json: 'JSON',
  timeline: 'STRING',
};

export interface ArchiveColumn {
  name: string;
  /** The sample definition's type (FieldType), kept beside the Parquet one; `bytes`: a rollup's stored histogram. */
  field_type: FieldType | 'bytes';
  parquet_type: ParquetType;
  nullable: boolean;
  kind: FieldKind;
  unit: string | null;
}

/** A column is nullable where its D1 column is (a field the store fills in is never null there). */
const nullableInStore = (f: FieldDef) => f.nullable && !f.storedNotNull;

/** A stored field as an archive column. */
const columnOf = (f: FieldDef): ArchiveColumn => ({
  name: f.name,
  field_type: f.type,
  parquet_type: PARQUET_TYPES[f.type],
  nullable: nullableInStore(f),
  kind: f.kind,
  unit: unitOf(f.name),
});

/** The archive's columns: every stored field (the row id is not archived: it is D1's, not the sample's). */
export const SAMPLE_ARCHIVE_COLUMNS: readonly ArchiveColumn[] = STORED_FIELDS.map(columnOf);

/** What a concurrency stream's row adds to a sample's (workers/observatory/db/bursts.ts, migration 0007). */
const BURST_ONLY_FIELDS: readonly FieldDef[] = [
  { name: 'burst_id', type: 'text', nullable: false, kind: 'context' },
  { name: 'burst_level', type: 'int', nullable: false, kind: 'context' },
  { name: 'burst_stream', type: 'int', nullable: false, kind: 'context' },
  // When the stream started, from the run's first start.
  { name: 'start_offset_ms', type: 'real', nullable: false, kind: 'context' },
];

/** The concurrency streams' archive: a sample's columns, then the stream's. */
export const BURST_ARCHIVE_COLUMNS: readonly ArchiveColumn[] = [...SAMPLE_ARCHIVE_COLUMNS, ...BURST_ONLY_FIELDS.map(columnOf)];

/**
 * The hourly rollups' archive (migrations/0003, workers/observatory/db/rollups.ts): the key, the counts,
 * the failures per error class (JSON), and each figure's exponential histogram as its stored bytes
 * (shared/stats/histogram-bytes.ts: decode with decodeHistogram), the split's per source in one.
 */
export const ROLLUP_ARCHIVE_COLUMNS: readonly ArchiveColumn[] = [
  ...(['hour', 'region', 'target', 'prompt_variant', 'method_version', 'probes', 'successes'] as const).map((name) => {
    const type: FieldType = name === 'region' || name === 'target' || name === 'prompt_variant' ? 'text' : 'int';
    return {
      name,
      field_type: type,
      parquet_type: PARQUET_TYPES[type],
      nullable: false,
      kind: 'context' as const,
      unit: name === 'hour' ? 'epoch ms' : null,
    };
  }),
  { name: 'errors', field_type: 'json', parquet_type: 'JSON', nullable: false, kind: 'outcome', unit: null },
  ...[...ROLLUP_METRICS, 'split'].map((name) => ({
    name,
    field_type: 'bytes' as const,
    parquet_type: 'BYTE_ARRAY' as const,
    nullable: false,
    kind: 'figure' as const,
    unit: 'histogram',
  })),
];

/** A D1 row as D1 returns it: column name to INTEGER, REAL, TEXT or NULL. */
export type StoredColumns = Record<string, string | number | null | ArrayBuffer | number[]>;

function toParquetValue(column: ArchiveColumn, value: StoredColumns[string] | undefined): unknown {
  if (value === null || value === undefined) return null;
  switch (column.field_type) {
    case 'bytes':
      return value instanceof ArrayBuffer ? new Uint8Array(value) : Uint8Array.from(value as number[]);
    case 'int':
      return BigInt(Math.trunc(Number(value)));
    case 'real':
      return Number(value);
    case 'bool':
      return Number(value) === 1;
    case 'json':
      return JSON.parse(String(value));
    default:
      return String(value);
  }
}

/** The column data of a file: one array per column, in row order. */
export function toColumnData(rows: readonly StoredColumns[], columns: readonly ArchiveColumn[] = SAMPLE_ARCHIVE_COLUMNS) {
  return columns.map((c) => ({
    name: c.name,
    type: c.parquet_type,
    nullable: c.nullable,
    data: rows.map((r) => toParquetValue(c, r[c.name])),
  }));
}

/** The footer's key-value metadata: the schema version and every column's type, kind and unit. */
export function archiveFooter(columns: readonly ArchiveColumn[] = SAMPLE_ARCHIVE_COLUMNS): Array<{ key: string; value: string }> {
  return [
    { key: 'llm_observatory.schema_version', value: String(ARCHIVE_SCHEMA_VERSION) },
    { key: 'llm_observatory.columns', value: JSON.stringify(columns) },
  ];
}
