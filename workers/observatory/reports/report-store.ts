/**
 * Where the weekly reports live: R2, in the archive's bucket beside the views, `reports/<week>/v<n>.json` (one
 * object per version, written once: a conditional put that only creates, so a version is never overwritten) and
 * `reports/index.json` (every week and version with its SHA-256, written with the ETag it was read with, so two
 * publishers never lose each other's version). A version is stored before the index names it; a version the
 * index does not name yet (the index write failed) is found and named by the next run, never written again.
 */
import { sha256Hex } from '../../../shared/archive/checksum.ts';
import {
  emptyReportIndex,
  REPORT_FORMAT,
  withVersion,
  type ReportIndex,
  type ReportVersionEntry,
  type WeeklyReport,
} from '../../../shared/reports/report.ts';

export const REPORT_PREFIX = 'reports/';
export const REPORT_INDEX_KEY = `${REPORT_PREFIX}index.json`;
export const reportKey = (week: string, version: number) => `${REPORT_PREFIX}${week}/v${version}.json`;
const JSON_TYPE = 'application/json; charset=utf-8';

/** The index and the ETag it was read with (none: there is no index yet). */
export async function readReportIndex(bucket: R2Bucket): Promise<{ index: ReportIndex; etag: string | null }> {
  const object = await bucket.get(REPORT_INDEX_KEY);
  if (!object) return { index: emptyReportIndex(), etag: null };
  const index = JSON.parse(await object.text()) as ReportIndex;
  if (index.format !== REPORT_FORMAT) throw new Error(`reports/index.json has format ${index.format}, not ${REPORT_FORMAT}`);
  return { index, etag: object.etag };
}

/** The index's text as stored and served. */
export const indexText = (index: ReportIndex) => JSON.stringify(index);

/**
 * Creates a version's object; false when the key holds one already (R2 refuses the put: nothing is overwritten).
 * R2 checks the bytes against their SHA-256 before it stores them.
 */
export async function createVersion(bucket: R2Bucket, key: string, text: string, sha256: string): Promise<boolean> {
  const written = await bucket.put(key, text, {
    onlyIf: { etagDoesNotMatch: '*' },
    sha256,
    httpMetadata: { contentType: JSON_TYPE },
    customMetadata: { sha256 },
  });
  return written !== null;
}

/** Writes the index only if nobody changed it since it was read; else throws (the next run tries again). */
async function writeIndex(bucket: R2Bucket, index: ReportIndex, etag: string | null): Promise<void> {
  const written = await bucket.put(REPORT_INDEX_KEY, indexText(index), {
    onlyIf: etag === null ? { etagDoesNotMatch: '*' } : { etagMatches: etag },
    httpMetadata: { contentType: JSON_TYPE },
  });
  if (written === null) throw new Error('reports/index.json changed while a report was published; the next run publishes it');
}

export interface Stored {
  entry: ReportVersionEntry;
  /** False when the version's object was there already (from a run whose index write failed): it is kept as it is. */
  created: boolean;
  /** The version as stored (the one found, when it was there already). */
  report: WeeklyReport;
}

/**
 * Stores a report as its week's next version and names it in the index. The version's object is created, or, if a
 * run before this one created it and failed to write the index, kept as it is and named with its own bytes' hash.
 */
export async function storeReport(
  bucket: R2Bucket,
  report: WeeklyReport,
  read: { index: ReportIndex; etag: string | null },
): Promise<Stored> {
  const key = reportKey(report.week, report.version);
  let text = JSON.stringify(report);
  let sha256 = await sha256Hex(new TextEncoder().encode(text));
  let stored = report;
  const created = await createVersion(bucket, key, text, sha256);
  if (!created) {
    const existing = await bucket.get(key);
    if (!existing) throw new Error(`${key} was refused as existing, yet cannot be read`);
    text = await existing.text();
    sha256 = await sha256Hex(new TextEncoder().encode(text));
    stored = JSON.parse(text) as WeeklyReport;
  }
  const entry: ReportVersionEntry = {
    version: report.version,
    sha256,
    bytes: new TextEncoder().encode(text).byteLength,
    published_at: stored.published_at,
    corrects: stored.corrects,
    superseded_by: null,
  };
  await writeIndex(bucket, withVersion(read.index, report.week, report.window, entry), read.etag);
  return { entry, created, report: stored };
}
