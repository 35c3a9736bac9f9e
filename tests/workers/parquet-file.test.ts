/**
 * The Parquet writer inside workerd: hyparquet-writer (pure JavaScript, no Node built-ins) builds a day's
 * file of samples from D1's rows; hyparquet reads it back row for row, Snappy-compressed, the schema
 * in its footer; the same rows give the same bytes.
 */
import { describe, expect, it } from 'vitest';
import { env } from 'cloudflare:workers';
import { parquetMetadata, parquetReadObjects } from 'hyparquet/src/index.js';
import { archiveSamples } from '../helpers/archive-samples.ts';
import { insertSamples } from '../../workers/observatory/db/samples.ts';
import { samplesOfRegionDay } from '../../workers/observatory/db/archive.ts';
import { samplesParquet } from '../../shared/archive/parquet-file.ts';
import { SAMPLE_ARCHIVE_COLUMNS } from '../../shared/archive/archive-columns.ts';
import { sha256Hex } from '../../shared/archive/checksum.ts';
import { DAY_MS } from '../../shared/time.ts';

const TODAY = Date.UTC(2027, 0, 1);
const TICKS_PER_DAY = 6;

describe('the Parquet file', () => {
  it('is written in workerd, reads back row for row with its schema in the footer, and the same rows give the same bytes', async () => {
    const day = TODAY - DAY_MS;
    await insertSamples(env.DB, archiveSamples('weur', day, TICKS_PER_DAY));
    const rows = await samplesOfRegionDay(env.DB, 'weur', day);
    const bytes = samplesParquet(rows);
    expect(await sha256Hex(samplesParquet(rows))).toBe(await sha256Hex(bytes));
    const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    const metadata = parquetMetadata(file);
    expect(Number(metadata.num_rows)).toBe(rows.length);
    expect(metadata.row_groups[0].columns[0].meta_data?.codec).toBe('SNAPPY');
    const footer = Object.fromEntries((metadata.key_value_metadata ?? []).map((kv) => [kv.key, kv.value]));
    expect(JSON.parse(footer['llm_observatory.columns'] ?? '[]')).toEqual(SAMPLE_ARCHIVE_COLUMNS);
    const read = (await parquetReadObjects({ file })) as Array<Record<string, unknown>>;
    expect(read.map((r) => Number(r.tick_id))).toEqual(rows.map((r) => r.tick_id));
    expect(read.map((r) => r.ttft_ms)).toEqual(rows.map((r) => r.ttft_ms));
    expect(read.map((r) => r.colo_outside_region)).toEqual(
      rows.map((r) => (r.colo_outside_region === null ? null : r.colo_outside_region === 1)),
    );
    expect(read.map((r) => r.error_detail)).toEqual(rows.map((r) => r.error_detail));
  });
});
