/**
 * What the Data page says of the Parquet archive: the manifest summed up, and DuckDB and Polars snippets
 * over the newest day's real files at the archive's URL (or an example with BASE before any is written).
 */
import { describe, expect, it } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { archiveSummary, duckdbSnippet, fetchArchiveSummary, polarsSnippet } from '../../site/src/data/archive.ts';
import type { Manifest, ManifestEntry } from '../../shared/archive/manifest.ts';

const entry = (table: ManifestEntry['table'], day: string, region: string, rows: number): ManifestEntry => ({
  key: `${table}/day=${day}/region=${region}.parquet`,
  table,
  day,
  region,
  rows,
  bytes: rows * 100,
  sha256: '0'.repeat(64),
  schema_version: 1,
});
const manifest: Manifest = {
  manifest_version: 1,
  files: [
    entry('samples', '2026-11-29', 'weur', 10),
    entry('samples', '2026-11-30', 'weur', 12),
    entry('samples', '2026-11-30', 'apac', 7),
    entry('burst_samples', '2026-11-30', 'weur', 64),
    entry('hourly_rollups', '2026-11-16', 'weur', 24),
  ],
};

describe('the archive on the Data page', () => {
  it('sums up the manifest and points the DuckDB query at the newest day of raw samples', () => {
    const a = archiveSummary(manifest, 'https://data.example.org/');
    expect(a).toMatchObject({ base: 'https://data.example.org', files: 5, rows: 117, bytes: 11_700, newest_day: '2026-11-30' });
    expect(a.days).toEqual({ samples: 2, burst_samples: 1, hourly_rollups: 1 });
    expect(a.newest.map((f) => f.region)).toEqual(['weur', 'apac']);
    const sql = duckdbSnippet(a);
    expect(sql).toContain("'https://data.example.org/samples/day=2026-11-30/region=weur.parquet'");
    expect(sql).toContain("'https://data.example.org/samples/day=2026-11-30/region=apac.parquet'");
    expect(sql).not.toContain('2026-11-29');
    expect(polarsSnippet(a)).toContain('BASE = "https://data.example.org"');
  });

  it('gives an example with BASE when nothing is archived or the manifest could not be read', () => {
    expect(duckdbSnippet(null)).toContain("'BASE/samples/day=2026-11-30/region=weur.parquet'");
    const empty = archiveSummary({ manifest_version: 1, files: [] }, 'http://127.0.0.1:4321/archive');
    expect(empty).toMatchObject({ files: 0, newest_day: null, newest: [] });
    expect(duckdbSnippet(empty)).toContain("'http://127.0.0.1:4321/archive/samples/day=2026-11-30/region=weur.parquet'");
  });

  it('is SQL DuckDB parses', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      // Parsed and planned, up to the files it names (none exist here): the error is a missing file, not the syntax.
      await expect(connection.run(duckdbSnippet(archiveSummary(manifest, '/nonexistent')))).rejects.toThrow(
        /No files found|does not exist|IO Error/,
      );
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });

  it('reads the manifest from the API: its 404 is an empty archive, anything else null, and the build goes on', async () => {
    const answer = (status: number, body = '') => (async () => new Response(body, { status })) as unknown as typeof fetch;
    expect((await fetchArchiveSummary('http://api', 'http://api/archive', answer(200, JSON.stringify(manifest))))?.files).toBe(5);
    const noManifest = JSON.stringify({ error: { code: 'not_found', message: 'manifest.json is not in the archive (yet): …' } });
    expect((await fetchArchiveSummary('http://api', 'http://api/archive', answer(404, noManifest)))?.files).toBe(0);
    // An API without the route says so in its own words: the archive is unknown, not empty.
    const noRoute = JSON.stringify({ error: { code: 'not_found', message: 'no route for GET /archive/manifest.json' } });
    expect(await fetchArchiveSummary('http://api', 'http://api/archive', answer(404, noRoute))).toBeNull();
    expect(await fetchArchiveSummary('http://api', 'http://api/archive', answer(500))).toBeNull();
    expect(await fetchArchiveSummary('http://api', 'http://api/archive', answer(200, 'not json'))).toBeNull();
    const refused = (async () => {
      throw new Error('connection refused');
    }) as unknown as typeof fetch;
    expect(await fetchArchiveSummary('http://api', 'http://api/archive', refused)).toBeNull();
  });
});
