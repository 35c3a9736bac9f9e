/**
 * The archive's `manifest.json`: every file with its row count, byte size, schema version and
 * checksum. An entry is written only after its object is; retention deletes a day's samples only
 * when the entry confirms them (confirms below).
 */
import { DAY_MS } from '../time.ts';

export const MANIFEST_KEY = 'manifest.json';
export const MANIFEST_VERSION = 1;

/** The D1 tables archived: the raw samples, the concurrency streams, and the hourly rollups. */
export type ArchiveTable = 'samples' | 'burst_samples' | 'hourly_rollups';

export interface ManifestEntry {
  key: string;
  table: ArchiveTable;
  /** The UTC day, YYYY-MM-DD. */
  day: string;
  region: string;
  rows: number;
  bytes: number;
  /** Lowercase hex SHA-256 of the object's bytes. */
  sha256: string;
  schema_version: number;
}

export interface Manifest {
  manifest_version: number;
  /** Sorted by key. */
  files: ManifestEntry[];
}

export const isoDay = (day: number): string => new Date(day).toISOString().slice(0, 10);

/** Where a table's day of a region lives: Hive-style partitions that DuckDB, pandas and Polars read as columns. */
export function archiveKey(table: ArchiveTable, day: number, region: string): string {
  if (day % DAY_MS !== 0) throw new Error(`not the start of a UTC day: ${day}`);
  return `${table}/day=${isoDay(day)}/region=${region}.parquet`;
}

export const sampleArchiveKey = (day: number, region: string): string => archiveKey('samples', day, region);

export function emptyManifest(): Manifest {
  return { manifest_version: MANIFEST_VERSION, files: [] };
}

/** The stored manifest, or an empty one when there is none yet; anything else than a manifest throws. */
export function parseManifest(text: string | null): Manifest {
  if (text === null) return emptyManifest();
  const parsed = JSON.parse(text) as Partial<Manifest>;
  if (!Array.isArray(parsed.files)) throw new Error('manifest.json has no file list');
  return { manifest_version: parsed.manifest_version ?? MANIFEST_VERSION, files: parsed.files };
}

export function entryOf(manifest: Manifest, key: string): ManifestEntry | undefined {
  return manifest.files.find((f) => f.key === key);
}

/** The manifest with this entry added, or replacing the one of its key. */
export function withEntry(manifest: Manifest, entry: ManifestEntry): Manifest {
  const files = [...manifest.files.filter((f) => f.key !== entry.key), entry].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { ...manifest, files };
}

export function manifestText(manifest: Manifest): string {
  return `${JSON.stringify(manifest, null, 1)}\n`;
}

/** What is known of the stored object: its size, and the SHA-256 the store checked it against when it was put. */
export interface StoredObject {
  bytes: number;
  sha256?: string;
}

/**
 * The entry confirms the day: it holds at least as many rows as D1 holds (more once retention has deleted
 * part of the day: a whole file is never replaced by one of fewer rows), and the object is there, whole and
 * unchanged (an object put without our checksum, or with another, is not ours: it is written again). Rows
 * that came in late make D1 hold more, and the day is written again.
 */
export function confirms(entry: ManifestEntry | undefined, rowsInD1: number, object: StoredObject | null): boolean {
  if (!entry || !object) return false;
  return entry.rows >= rowsInD1 && object.bytes === entry.bytes && object.sha256 === entry.sha256;
}
