/**
 * A region object's archive duty: every ended UTC day of the region's raw samples written to R2 as one
 * Parquet file (shared/archive/), listed in `manifest.json`. Run once a day by retention
 * (scheduler.ts), which deletes from D1 only the days this confirms. A failure keeps the samples and
 * is kept in the store's error field for the duty (GET /api/v1/health); the next run retries.
 */
import { samplesParquet } from '../../../shared/archive/parquet-file.ts';
import { hex, sha256Hex } from '../../../shared/archive/checksum.ts';
import {
  ARCHIVE_SCHEMA_VERSION,
  BURST_ARCHIVE_COLUMNS,
  ROLLUP_ARCHIVE_COLUMNS,
  SAMPLE_ARCHIVE_COLUMNS,
} from '../../../shared/archive/archive-columns.ts';
import {
  confirms,
  entryOf,
  isoDay,
  MANIFEST_KEY,
  manifestText,
  parseManifest,
  archiveKey,
  withEntry,
  type ArchiveTable,
  type Manifest,
  type StoredObject,
} from '../../../shared/archive/manifest.ts';
import { samplesOfRegionDay, type DayCount } from '../db/archive.ts';
import { DAY_MS } from '../../../shared/time.ts';
import type { DutyErrorKey } from '../duty/prober-store.ts';
import type { Duty } from '../duty/duty.ts';

/** Files a region writes per run, at most (a backlog, such as the demo's backfilled days, drains over later runs). */
export const ARCHIVE_EXPORTS_PER_RUN = 7;

const PARQUET_TYPE = 'application/vnd.apache.parquet';

/** Each table's columns, and the duty error its archive keeps (health: errors.archive, burst_archive, rollup_archive). */
const TABLES = {
  samples: { columns: SAMPLE_ARCHIVE_COLUMNS, error: 'last_archive_error' },
  burst_samples: { columns: BURST_ARCHIVE_COLUMNS, error: 'last_burst_archive_error' },
  hourly_rollups: { columns: ROLLUP_ARCHIVE_COLUMNS, error: 'last_rollup_archive_error' },
} as const satisfies Record<ArchiveTable, { columns: unknown; error: DutyErrorKey }>;

interface DutyErrors {
  noteDutyError(key: DutyErrorKey, message: string | null): void;
}

async function storedObject(bucket: R2Bucket, key: string): Promise<StoredObject | null> {
  const head = await bucket.head(key);
  if (!head) return null;
  const sha256 = head.checksums.sha256;
  return { bytes: head.size, ...(sha256 ? { sha256: hex(sha256) } : {}) };
}

/** Writes the manifest only if no other run changed it since it was read (R2's conditional put); else throws. */
async function writeManifest(bucket: R2Bucket, manifest: Manifest, etag: string | undefined): Promise<void> {
  const written = await bucket.put(MANIFEST_KEY, manifestText(manifest), {
    httpMetadata: { contentType: 'application/json' },
    ...(etag ? { onlyIf: { etagMatches: etag } } : {}),
  });
  if (written === null) throw new Error('manifest.json changed during the run; its files are written again at the next run');
}

/**
 * One archived file of the region beyond the days of this run, in turn (a run's oldest day picks it, so the
 * choice moves on each day): whether it is still whole. Its day's rows may be gone from D1, so a damaged file
 * is reported (in the duty's error, which health shows), not repaired. Null when it is whole, or there is none.
 */
async function checkOneOlderFile(
  bucket: R2Bucket,
  manifest: Manifest,
  table: ArchiveTable,
  region: string,
  days: readonly DayCount[],
): Promise<string | null> {
  const thisRun = new Set(days.map((d) => archiveKey(table, d.day, region)));
  const older = manifest.files.filter((f) => f.region === region && f.table === table && !thisRun.has(f.key));
  if (older.length === 0) return null;
  const entry = older[Math.floor(days[0].day / DAY_MS) % older.length];
  const object = await storedObject(bucket, entry.key);
  if (object && object.bytes === entry.bytes && object.sha256 === entry.sha256) return null;
  const found = object ? `${object.bytes} bytes, SHA-256 ${object.sha256 ?? 'none'}` : 'no object';
  return `archive check: ${entry.key} does not match its manifest entry (${found}; listed: ${entry.bytes} bytes); D1 may no longer hold its rows`;
}

/**
 * Confirms or writes the archive of each of these days of the region (with the rows D1 holds of it;
 * retention counts them, db/archive.ts sampleDayCounts), oldest first: a day whose manifest entry holds as many rows as D1 and whose object is whole is
 * confirmed as it is; any other (new, late rows, missing, truncated, corrupt) is written again from D1
 * (the same rows give the same bytes) before its entry. Returns the days confirmed.
 */
export async function archiveRegionDays(
  errors: DutyErrors,
  db: D1Database,
  bucket: R2Bucket,
  region: string,
  days: readonly DayCount[],
  table: ArchiveTable = 'samples',
): Promise<number[]> {
  const { columns, error } = TABLES[table];
  const confirmed: number[] = [];
  const written: number[] = [];
  let changed = false;
  let damaged: string | null = null;
  let step = 'manifest read';
  try {
    if (days.length === 0) {
      errors.noteDutyError(error, null);
      return [];
    }
    const stored = await bucket.get(MANIFEST_KEY);
    const etag = stored?.etag;
    let manifest = parseManifest(stored ? await stored.text() : null);
    for (const { day, rows } of days) {
      const key = archiveKey(table, day, region);
      step = `archive of ${key}`;
      const entry = entryOf(manifest, key);
      if (entry && confirms(entry, rows, await storedObject(bucket, key))) {
        confirmed.push(day);
        continue;
      }
      if (written.length >= ARCHIVE_EXPORTS_PER_RUN) continue; // at the next run
      const samples = await samplesOfRegionDay(db, region, day, table);
      const bytes = samplesParquet(samples, columns);
      const sha256 = await sha256Hex(bytes);
      // R2 checks the bytes against the checksum, and a put is atomic: the key holds the whole file or its old one.
      await bucket.put(key, bytes, { sha256, httpMetadata: { contentType: PARQUET_TYPE } });
      manifest = withEntry(manifest, {
        key,
        table,
        day: isoDay(day),
        region,
        rows: samples.length,
        bytes: bytes.byteLength,
        sha256,
        schema_version: ARCHIVE_SCHEMA_VERSION,
      });
      changed = true;
      // Rows that came in between the count and the read are in the file: the day is confirmed at the next run.
      if (samples.length === rows) written.push(day);
    }
    step = 'archive check';
    damaged = await checkOneOlderFile(bucket, manifest, table, region, days);
    if (changed) {
      step = 'manifest write';
      await writeManifest(bucket, manifest, etag);
    }
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    errors.noteDutyError(error, `${step}: ${message}`);
    console.error(`region ${region}: ${step} failed, ${table} kept for a later run: ${message}`);
    return confirmed;
  }
  if (damaged) console.error(`region ${region}: ${damaged}`);
  errors.noteDutyError(error, damaged);
  return [...confirmed, ...written].sort((a, b) => a - b);
}

/** The archive among the region's duties: run by retention's call (archiveDays), not the alarm; health reports its failures. */
export const archiveDuty: Duty = {
  name: 'archive',
  tables: [],
  pending: () => 0,
  healthKey: null,
  errors: Object.values(TABLES).map((t) => t.error),
};
