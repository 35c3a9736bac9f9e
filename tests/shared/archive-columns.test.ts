/** The archive's columns follow the one sample definition, and docs/ARCHIVE.md lists each of them as the code writes it. */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { STORED_FIELDS } from '../../shared/sample-fields.ts';
import { BURST_ARCHIVE_COLUMNS } from '../../shared/archive/archive-columns.ts';
import { unitOf } from '../../shared/sample-fields.ts';
import { sampleArchiveKey, withEntry, emptyManifest, confirms, type ManifestEntry } from '../../shared/archive/manifest.ts';

describe('archive columns', () => {
  it('are the stored fields, in order (the concurrency streams add theirs after them)', () => {
    expect(BURST_ARCHIVE_COLUMNS.map((c) => c.name).slice(0, STORED_FIELDS.length)).toEqual(STORED_FIELDS.map((f) => f.name));
  });

  it.each([
    ['ttft_ms', 'ms'],
    ['output_tokens', 'tokens'],
    ['decode_tps', 'tokens/s'],
    ['started_at', 'epoch ms'],
    ['target', null],
  ])('%s is in %s', (name, unit) => expect(unitOf(name)).toBe(unit));

  it('are documented in docs/ARCHIVE.md, each with its type, nullability, kind and unit', () => {
    const doc = readFileSync(new URL('../../docs/ARCHIVE.md', import.meta.url), 'utf8');
    for (const c of BURST_ARCHIVE_COLUMNS)
      expect(doc).toContain(`| \`${c.name}\` | ${c.parquet_type} | ${c.nullable ? 'yes' : 'no'} | ${c.kind} | ${c.unit ?? ''} |`);
  });
});

describe('the manifest', () => {
  const entry: ManifestEntry = {
    key: sampleArchiveKey(Date.UTC(2026, 10, 30), 'weur'),
    table: 'samples',
    day: '2026-11-30',
    region: 'weur',
    rows: 10,
    bytes: 500,
    sha256: 'ab',
    schema_version: 1,
  };

  it('names a day and region as Hive partitions, and refuses a time that is not a day start', () => {
    expect(entry.key).toBe('samples/day=2026-11-30/region=weur.parquet');
    expect(() => sampleArchiveKey(Date.UTC(2026, 10, 30, 1), 'weur')).toThrow(/not the start of a UTC day/);
  });

  it('keeps one entry per key, sorted', () => {
    const other = { ...entry, key: 'samples/day=2026-11-29/region=weur.parquet' };
    const m = withEntry(withEntry(withEntry(emptyManifest(), entry), other), { ...entry, rows: 11 });
    expect(m.files.map((f) => [f.key, f.rows])).toEqual([
      [other.key, 10],
      [entry.key, 11],
    ]);
  });

  it.each([
    ['whole', 10, { bytes: 500, sha256: 'ab' }, true],
    ['rows added in D1 since', 11, { bytes: 500, sha256: 'ab' }, false],
    ['part of the day deleted from D1 since (never replaced by fewer rows)', 7, { bytes: 500, sha256: 'ab' }, true],
    ['object missing', 10, null, false],
    ['truncated', 10, { bytes: 400, sha256: 'ab' }, false],
    ['changed, same size', 10, { bytes: 500, sha256: 'cd' }, false],
    ['put without our checksum', 10, { bytes: 500 }, false],
  ] as const)('confirms a day: %s → %s', (_case, rows, object, confirmed) => {
    expect(confirms(entry, rows, object)).toBe(confirmed);
  });
});
