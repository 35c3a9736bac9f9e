/**
 * One archive file: a day's raw samples of one region as Parquet bytes, Snappy-compressed, written by
 * hyparquet-writer (pure JavaScript, no Node built-ins: it runs in workerd, Node and the browser).
 * The same rows always give the same bytes (no clock, no random in the file), so a retried export
 * writes the same object.
 */
import { parquetWriteBuffer } from 'hyparquet-writer/src/index.js';
import { archiveFooter, SAMPLE_ARCHIVE_COLUMNS, toColumnData, type ArchiveColumn, type StoredColumns } from './archive-columns.ts';

/** Rows per row group: a day of one region is a few thousand rows, one group (DuckDB reads it at once). */
const ROW_GROUP_ROWS = 100_000;
const CREATED_BY = 'llm-latency-observatory (hyparquet-writer)';

export function samplesParquet(rows: readonly StoredColumns[], columns: readonly ArchiveColumn[] = SAMPLE_ARCHIVE_COLUMNS): Uint8Array {
  const buffer = parquetWriteBuffer({
    // The writer's column type accepts any decoded values; ours are typed per column above.
    columnData: toColumnData(rows, columns) as Parameters<typeof parquetWriteBuffer>[0]['columnData'],
    codec: 'SNAPPY',
    rowGroupSize: ROW_GROUP_ROWS,
    kvMetadata: archiveFooter(columns),
    createdBy: CREATED_BY,
  });
  return new Uint8Array(buffer);
}
