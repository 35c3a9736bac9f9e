/**
 * What the Data page says of the Parquet archive (docs/ARCHIVE.md): its manifest, read by the build
 * from `<API>/archive/manifest.json` (no D1 row), summed up, and the newest day's files of the raw
 * samples for the DuckDB and Polars snippets. Readers fetch the files from `base`: the bucket's public
 * URL (SITE_ARCHIVE_URL), or else the API's own /archive route.
 */
import { parseManifest, type Manifest } from '../../../shared/archive/manifest.ts';

export interface ArchiveSummary {
  base: string;
  files: number;
  rows: number;
  bytes: number;
  /** Days with a file, per table. */
  days: Record<string, number>;
  /** The newest day of raw samples archived, and its files (one per region). */
  newest_day: string | null;
  newest: Array<{ key: string; region: string; rows: number; bytes: number }>;
}

export function archiveSummary(manifest: Manifest, base: string): ArchiveSummary {
  const days: Record<string, Set<string>> = {};
  for (const f of manifest.files) (days[f.table] ??= new Set()).add(f.day);
  const sampleDays = [...(days.samples ?? [])].sort();
  const newestDay = sampleDays.at(-1) ?? null;
  return {
    base: base.replace(/\/$/, ''),
    files: manifest.files.length,
    rows: manifest.files.reduce((n, f) => n + f.rows, 0),
    bytes: manifest.files.reduce((n, f) => n + f.bytes, 0),
    days: Object.fromEntries(Object.entries(days).map(([table, set]) => [table, set.size])),
    newest_day: newestDay,
    newest: manifest.files
      .filter((f) => f.table === 'samples' && f.day === newestDay)
      .map((f) => ({ key: f.key, region: f.region, rows: f.rows, bytes: f.bytes })),
  };
}

/**
 * The archive's summary, or null when its manifest cannot be had (an API without the route, or R2 out of reach):
 * the page then says so, and the build goes on. No manifest yet (the route's 404) is an empty archive.
 */
export async function fetchArchiveSummary(apiBase: string, base: string, fetchImpl: typeof fetch): Promise<ArchiveSummary | null> {
  try {
    const r = await fetchImpl(`${apiBase.replace(/\/$/, '')}/archive/manifest.json`, { signal: AbortSignal.timeout(30_000) });
    // The route's own 404 (no manifest written yet), not an API without the route ("no route for …").
    if (r.status === 404) return /not in the archive/.test(await r.text()) ? archiveSummary(parseManifest(null), base) : null;
    if (!r.ok) return null;
    return archiveSummary(parseManifest(await r.text()), base);
  } catch {
    return null;
  }
}

const EXAMPLE_DAY = '2026-11-30';
const EXAMPLE_REGIONS = ['weur', 'enam'];

/** A DuckDB query over the newest day's files, at their real URLs (or, before any is archived, an example with BASE). */
export function duckdbSnippet(archive: ArchiveSummary | null | undefined): string {
  const base = archive?.base ?? 'BASE';
  const keys =
    archive && archive.newest.length > 0
      ? archive.newest.map((f) => f.key)
      : EXAMPLE_REGIONS.map((r) => `samples/day=${EXAMPLE_DAY}/region=${r}.parquet`);
  const files = keys.map((k) => `'${base}/${k}'`).join(',\n  ');
  return `SELECT target, region, count(*) AS n, median(ttft_ms) AS ttft_p50
FROM read_parquet([${files}], hive_partitioning = true)
WHERE error IS NULL GROUP BY ALL ORDER BY ttft_p50;`;
}

/** The same in Polars, over every file the manifest lists. */
export function polarsSnippet(archive: ArchiveSummary | null | undefined): string {
  return `import polars as pl, json, urllib.request
BASE = "${archive?.base ?? 'BASE'}"
files = [f"{BASE}/{f['key']}" for f in json.load(urllib.request.urlopen(f"{BASE}/manifest.json"))["files"] if f["table"] == "samples"]
print(pl.read_parquet(files, hive_partitioning=True).filter(pl.col("error").is_null()).group_by("target", "region").agg(pl.col("ttft_ms").median()))`;
}
