/**
 * The daily archive inside workerd: each region's object writes its ended days to R2 with a manifest entry, retention deletes only the
 * days an entry confirms, a retried export writes the same bytes, a damaged or missing object is
 * written again from D1, and a failed R2 write keeps the samples and shows in /api/v1/health.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { runInDurableObject, SELF } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { archiveSamples } from '../helpers/archive-samples.ts';
import { expectConsoleErrors } from './console-errors.ts';
import { config } from './test-config.ts';
import { insertSamples } from '../../workers/observatory/db/samples.ts';
import { sha256Hex } from '../../shared/archive/checksum.ts';
import { archiveKey, MANIFEST_KEY, parseManifest, sampleArchiveKey, type Manifest } from '../../shared/archive/manifest.ts';
import { BURST_ARCHIVE_COLUMNS, ROLLUP_ARCHIVE_COLUMNS } from '../../shared/archive/archive-columns.ts';
import { oneProbeRollup } from '../helpers/one-probe-rollup.ts';
import { upsertRollups } from '../../workers/observatory/db/rollups.ts';
import { parquetMetadata, parquetReadObjects } from 'hyparquet/src/index.js';
import { insertBurstSamples } from '../../workers/observatory/db/bursts.ts';
import { ARCHIVE_EXPORTS_PER_RUN, archiveRegionDays } from '../../workers/observatory/archive/archive-duty.ts';
import { ProberStore } from '../../workers/observatory/duty/prober-store.ts';
import { deleteArchivedDays, sampleDayCounts, samplesOfRegionDay } from '../../workers/observatory/db/archive.ts';
import { meterD1 } from '../../workers/observatory/db/meter.ts';
import { DAY_SPANS } from '../../shared/rollup/spans.ts';
import {
  ARCHIVE_DAY_SCANS_PER_REGION,
  ARCHIVE_DAYS_COUNTED_PER_RUN,
  ARCHIVE_ROWS_READ_PER_ARCHIVED_SAMPLE,
  ARCHIVE_ROWS_READ_PER_COUNTED_SAMPLE,
  ARCHIVE_R2_CLASS_A_PER_REGION_DAY,
  ARCHIVE_R2_CLASS_B_PER_REGION_DAY,
  ROLLUP_RETENTION_DAY_SCANS_PER_REGION,
  ROLLUP_RETENTION_R2_CLASS_B_PER_REGION,
  ARCHIVE_R2_CLASS_B_PER_RUN,
} from '../../shared/config/capacity.ts';
import { SPAN_READS_PER_SEEK } from '../../shared/config/view-costs.ts';
import { applyRetention } from '../../workers/observatory/prober/scheduler.ts';
import { DAY_MS } from '../../shared/time.ts';

const TODAY = Date.UTC(2027, 0, 1); // the first tick of a day
const CUT = TODAY - config.retentionDays * DAY_MS;
const TICKS_PER_DAY = 6;

const count = async (region: string) =>
  Number(await env.DB.prepare('SELECT COUNT(*) AS n FROM samples WHERE region = ?').bind(region).first('n'));
const manifest = async (): Promise<Manifest> => parseManifest((await (await env.ARCHIVE.get(MANIFEST_KEY))?.text()) ?? null);
const bytesOf = async (key: string) => new Uint8Array(await (await env.ARCHIVE.get(key))!.arrayBuffer());
/** A region's archive of all its ended days (a retention run archives only yesterday and the days it cuts). */
const archiveDays = async (region: string) =>
  env.REGION_PROBER.getByName(region).archiveDays(region, (await sampleDayCounts(env.DB, 0, TODAY)).get(region) ?? []);

/** The archive bucket, its calls counted as R2 bills them: PUTs (Class A), GETs and HEADs (Class B). */
function countingBucket(): { bucket: R2Bucket; ops: { a: number; b: number } } {
  const ops = { a: 0, b: 0 };
  const bucket = new Proxy(env.ARCHIVE, {
    get: (target, name) => {
      const f = Reflect.get(target, name) as (...args: unknown[]) => unknown;
      if (name === 'put')
        return (...args: unknown[]) => {
          ops.a++;
          return f.apply(target, args);
        };
      if (name === 'get' || name === 'head')
        return (...args: unknown[]) => {
          ops.b++;
          return f.apply(target, args);
        };
      return typeof f === 'function' ? f.bind(target) : f;
    },
  });
  return { bucket, ops };
}

beforeEach(async () => {
  await env.DB.prepare('DELETE FROM samples').run();
  await env.DB.prepare('DELETE FROM burst_samples').run();
  await env.DB.prepare('DELETE FROM hourly_rollups').run();
  const listed = await env.ARCHIVE.list();
  if (listed.objects.length > 0) await env.ARCHIVE.delete(listed.objects.map((o) => o.key));
});

afterAll(async () => {
  for (const region of config.regions.map((r) => r.code)) {
    await runInDurableObject(env.REGION_PROBER.getByName(region), (_instance, state: DurableObjectState) => state.storage.deleteAlarm());
  }
});

describe('the daily archive', () => {
  it('writes every ended day of each region once, lists it in the manifest, and retention deletes only the confirmed days', async () => {
    const old = CUT - DAY_MS;
    for (const region of ['weur', 'enam']) {
      await insertSamples(env.DB, archiveSamples(region, old, TICKS_PER_DAY));
      await insertSamples(env.DB, archiveSamples(region, TODAY - DAY_MS, TICKS_PER_DAY));
      await insertSamples(env.DB, archiveSamples(region, TODAY, 1)); // today: not ended, not archived
    }
    // A day between yesterday and the cut that the manifest misses (its archive failed everywhere): archived now, kept in D1.
    await insertSamples(env.DB, archiveSamples('weur', TODAY - 3 * DAY_MS, 1));
    // More old days than a run writes: the newest of them waits for the next run, and keeps its samples till then.
    for (let i = 0; i <= ARCHIVE_EXPORTS_PER_RUN; i++)
      await insertSamples(env.DB, archiveSamples('apac', CUT - (ARCHIVE_EXPORTS_PER_RUN + 1 - i) * DAY_MS, 1));

    const result = await applyRetention(env, TODAY);
    const perDay = 2 * TICKS_PER_DAY;
    expect(result?.samples).toBe(2 * perDay + ARCHIVE_EXPORTS_PER_RUN * 2);
    expect(await count('weur')).toBe(perDay + 2 + 2);
    expect(await count('apac')).toBe(2);
    const first = await manifest();
    expect(first.files.filter((f) => f.region === 'apac')).toHaveLength(ARCHIVE_EXPORTS_PER_RUN);
    const yesterday = first.files.find((f) => f.key === sampleArchiveKey(TODAY - DAY_MS, 'weur'));
    expect(yesterday).toMatchObject({ table: 'samples', region: 'weur', day: '2026-12-31', rows: perDay, schema_version: 1 });
    const bytes = await bytesOf(yesterday!.key);
    expect(bytes.byteLength).toBe(yesterday!.bytes);
    expect(await sha256Hex(bytes)).toBe(yesterday!.sha256);
    expect(first.files.some((f) => f.day === '2027-01-01')).toBe(false);
    expect(first.files.find((f) => f.key === sampleArchiveKey(TODAY - 3 * DAY_MS, 'weur'))).toMatchObject({ rows: 2 });

    // The next run writes the day left over; the days already archived are confirmed as they are.
    const etag = (await env.ARCHIVE.head(yesterday!.key))!.etag;
    await applyRetention(env, TODAY);
    expect(await count('apac')).toBe(0);
    expect((await manifest()).files.filter((f) => f.region === 'apac')).toHaveLength(ARCHIVE_EXPORTS_PER_RUN + 1);
    expect((await env.ARCHIVE.head(yesterday!.key))!.etag).toBe(etag);

    // A retried export (the manifest lost) writes the same bytes.
    await env.ARCHIVE.delete(MANIFEST_KEY);
    await applyRetention(env, TODAY);
    expect(await sha256Hex(await bytesOf(yesterday!.key))).toBe(yesterday!.sha256);
    expect((await manifest()).files.filter((f) => f.region === 'weur').map((f) => f.day)).toEqual(['2026-12-29', '2026-12-31']);
    expect((await manifest()).files.find((f) => f.key === yesterday!.key)).toEqual(yesterday);
  });

  it('writes a truncated, corrupt or unlisted object again from D1 while its rows exist', async () => {
    const day = TODAY - DAY_MS;
    await insertSamples(env.DB, archiveSamples('weur', day, TICKS_PER_DAY));
    await archiveDays('weur');
    const [entry] = (await manifest()).files;
    const whole = await bytesOf(entry.key);

    await env.ARCHIVE.put(entry.key, whole.slice(0, whole.byteLength - 100)); // truncated
    expect(await archiveDays('weur')).toEqual([day]);
    expect(await sha256Hex(await bytesOf(entry.key))).toBe(entry.sha256);

    const corrupt = whole.slice();
    corrupt[200] ^= 0xff; // the same size, one byte changed
    await env.ARCHIVE.put(entry.key, corrupt);
    expect(await archiveDays('weur')).toEqual([day]);
    expect(await sha256Hex(await bytesOf(entry.key))).toBe(entry.sha256);

    await env.ARCHIVE.put(MANIFEST_KEY, JSON.stringify({ manifest_version: 1, files: [] })); // the entry missing
    expect(await archiveDays('weur')).toEqual([day]);
    expect((await manifest()).files).toEqual([entry]);
  });

  it('keeps the samples when R2 fails, says so in /api/v1/health, and archives them at the next run', async () => {
    const day = CUT - DAY_MS;
    await insertSamples(env.DB, archiveSamples('enam', day, TICKS_PER_DAY));
    const seen = expectConsoleErrors(/archive of samples\/day=.* failed, samples kept/);
    const failing = new Proxy(env.ARCHIVE, {
      get: (bucket, name) =>
        name === 'put' ? () => Promise.reject(new Error('R2 is unavailable')) : Reflect.get(bucket, name).bind(bucket),
    });
    const stub = env.REGION_PROBER.getByName('enam');
    const confirmed = await runInDurableObject(stub, (_instance, state: DurableObjectState) =>
      archiveRegionDays(new ProberStore(state.storage), env.DB, failing, 'enam', [{ day, rows: 2 * TICKS_PER_DAY }]),
    );
    expect(confirmed).toEqual([]);
    expect(seen).toHaveLength(1);
    const health = (await (await SELF.fetch('http://observatory/api/v1/health')).json()) as {
      duties: Array<{ region: string; errors: { archive: string | null } }>;
    };
    expect(health.duties.find((d) => d.region === 'enam')?.errors.archive).toMatch(/^archive of samples\/day=.*: R2 is unavailable/);
    expect(await count('enam')).toBe(2 * TICKS_PER_DAY);

    await applyRetention(env, TODAY);
    expect(await count('enam')).toBe(0);
    expect((await stub.status()).lastArchiveError).toBeNull();
  });

  it('costs what the capacity model says: D1 rows read a day, and R2 operations per region and day', async () => {
    const yesterday = TODAY - DAY_MS;
    const cut = CUT - DAY_MS;
    for (const region of ['weur', 'enam', 'apac']) {
      await insertSamples(env.DB, archiveSamples(region, yesterday, TICKS_PER_DAY));
      await insertSamples(env.DB, archiveSamples(region, cut, TICKS_PER_DAY));
    }
    // An older day, archived and deleted from D1 since: a run checks one such file.
    await insertSamples(env.DB, archiveSamples('weur', cut - DAY_MS, 1));
    await archiveDays('weur'); // the cut day archived when it ended, and yesterday too: forgotten, as if new
    await env.DB.prepare('DELETE FROM samples WHERE tick_id < ?').bind(cut).run();
    const stale = (await manifest()).files.filter((f) => f.day !== '2026-12-31');
    await env.ARCHIVE.put(MANIFEST_KEY, JSON.stringify({ manifest_version: 1, files: stale }));
    await env.ARCHIVE.delete(sampleArchiveKey(yesterday, 'weur'));
    const perDay = 3 * 2 * TICKS_PER_DAY; // a day's samples of every region

    const meter = meterD1(env.DB);
    const counts = [await sampleDayCounts(meter.db, 0, cut + DAY_MS), await sampleDayCounts(meter.db, yesterday, TODAY)];
    // Two days' rows, each read twice (the scan, then the grouping's sort), and one row more.
    expect(meter.rowsRead - 1).toBe(ARCHIVE_DAYS_COUNTED_PER_RUN * ARCHIVE_ROWS_READ_PER_COUNTED_SAMPLE * perDay);
    meter.reset();
    await samplesOfRegionDay(meter.db, 'weur', yesterday);
    await deleteArchivedDays(meter.db, 'weur', [cut], CUT);
    // A scan of the day's rows of every region each, the file's own rows sorted, and the retention mark's one row.
    expect(meter.rowsRead - 1).toBe(ARCHIVE_DAY_SCANS_PER_REGION * perDay + ARCHIVE_ROWS_READ_PER_ARCHIVED_SAMPLE * (perDay / 3));
    await insertSamples(env.DB, archiveSamples('weur', cut, TICKS_PER_DAY)); // back, for the R2 count below

    const { bucket: counting, ops } = countingBucket();
    const days = [...(counts[0].get('weur') ?? []), ...(counts[1].get('weur') ?? [])];
    const confirmed = await runInDurableObject(env.REGION_PROBER.getByName('weur'), (_instance, state: DurableObjectState) =>
      archiveRegionDays(new ProberStore(state.storage), env.DB, counting, 'weur', days),
    );
    expect(confirmed).toEqual([cut, yesterday]);
    expect(ops).toEqual({ a: ARCHIVE_R2_CLASS_A_PER_REGION_DAY, b: ARCHIVE_R2_CLASS_B_PER_REGION_DAY });
  });

  it('reports an archived file that no longer matches its entry once D1 has deleted its rows, in /api/v1/health', async () => {
    const gone = CUT - 2 * DAY_MS;
    await insertSamples(env.DB, archiveSamples('apac', gone, TICKS_PER_DAY));
    await archiveDays('apac');
    await env.DB.prepare('DELETE FROM samples WHERE region = ?').bind('apac').run(); // retention deleted the day
    const key = sampleArchiveKey(gone, 'apac');
    await env.ARCHIVE.put(key, (await bytesOf(key)).slice(0, 50));
    await insertSamples(env.DB, archiveSamples('apac', TODAY - DAY_MS, 1));
    const seen = expectConsoleErrors(/archive check: samples\/day=.* does not match its manifest entry/);
    expect(await archiveDays('apac')).toEqual([TODAY - DAY_MS]); // yesterday is archived all the same
    expect(seen).toHaveLength(1);
    const health = (await (await SELF.fetch('http://observatory/api/v1/health')).json()) as {
      duties: Array<{ region: string; errors: { archive: string | null } }>;
    };
    expect(health.duties.find((d) => d.region === 'apac')?.errors.archive).toMatch(
      new RegExp(`^archive check: ${key} does not match its manifest entry \\(50 bytes`),
    );
  });

  it('archives the concurrency streams in files of their own, and deletes only their archived days', async () => {
    const streams = (region: string, day: number) =>
      archiveSamples(region, day, TICKS_PER_DAY).map((sample, i) => ({
        ...sample,
        burst_id: `run-${day}`,
        burst_level: 4,
        burst_stream: i % 4,
        start_offset_ms: i * 1.5,
      }));
    await insertBurstSamples(env.DB, [...streams('enam', CUT - DAY_MS), ...streams('enam', TODAY - DAY_MS)]);
    await insertSamples(env.DB, archiveSamples('enam', CUT - DAY_MS, 1));
    await applyRetention(env, TODAY);
    const files = (await manifest()).files.filter((f) => f.table === 'burst_samples');
    expect(files.map((f) => [f.key, f.rows])).toEqual([
      [archiveKey('burst_samples', CUT - DAY_MS, 'enam'), 2 * TICKS_PER_DAY],
      [archiveKey('burst_samples', TODAY - DAY_MS, 'enam'), 2 * TICKS_PER_DAY],
    ]);
    const burstRows = async () => Number(await env.DB.prepare('SELECT COUNT(*) AS n FROM burst_samples').first('n'));
    expect(await burstRows()).toBe(2 * TICKS_PER_DAY); // yesterday's stay
    expect(await count('enam')).toBe(0);
    const bytes = await bytesOf(files[0].key);
    const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    const footer = Object.fromEntries((parquetMetadata(file).key_value_metadata ?? []).map((kv) => [kv.key, kv.value]));
    expect(JSON.parse(footer['llm_observatory.columns'] ?? '[]')).toEqual(BURST_ARCHIVE_COLUMNS);
    // The archive's columns are the table's, in order (migration 0007).
    const { results } = await env.DB.prepare('PRAGMA table_info(burst_samples)').all<{ name: string }>();
    expect(BURST_ARCHIVE_COLUMNS.map((c) => c.name).toSorted()).toEqual(
      results
        .map((c) => c.name)
        .filter((n) => n !== 'id')
        .toSorted(),
    );
    expect((await env.REGION_PROBER.getByName('enam').status()).lastBurstArchiveError).toBeNull();
  });

  it('archives the hourly rollups of the days retention has cut samples from, their histograms as the stored bytes', async () => {
    const day = CUT - 2 * DAY_MS;
    const rollup = oneProbeRollup('weur', day + 3_600_000);
    await upsertRollups(env.DB, [rollup, { ...rollup, hour: day + 2 * 3_600_000 }, { ...rollup, hour: TODAY - DAY_MS }]);
    // What the capacity model counts for them: each row counted twice (scan, grouping), the file's day scanned, its rows sorted.
    const meter = meterD1(env.DB);
    await sampleDayCounts(meter.db, day, day + DAY_MS, 'hourly_rollups');
    // (D1 reads at most one row more a query: the end of the range.)
    expect(meter.rowsRead - 2 * ARCHIVE_ROWS_READ_PER_COUNTED_SAMPLE).toBeOneOf([0, 1]);
    meter.reset();
    await samplesOfRegionDay(meter.db, 'weur', day, 'hourly_rollups');
    expect(meter.rowsRead - 2 * (1 + ARCHIVE_ROWS_READ_PER_ARCHIVED_SAMPLE)).toBeOneOf([0, 1]);
    const stored = await env.DB.prepare('SELECT ttft_ms, errors, probes FROM hourly_rollups WHERE region = ? AND hour = ?')
      .bind('weur', day + 3_600_000)
      .first<{ ttft_ms: ArrayBuffer | number[]; errors: string; probes: number }>();
    // The test configuration keeps raw samples longer than rollups: this run deletes the day's rollups after archiving them.
    await applyRetention(env, TODAY);
    const files = (await manifest()).files.filter((f) => f.table === 'hourly_rollups');
    // Yesterday's rollup can still change: only the day whose samples are gone is archived.
    expect(files.map((f) => [f.key, f.rows])).toEqual([[archiveKey('hourly_rollups', day, 'weur'), 2]]);
    const bytes = await bytesOf(files[0].key);
    const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    const footer = Object.fromEntries((parquetMetadata(file).key_value_metadata ?? []).map((kv) => [kv.key, kv.value]));
    expect(JSON.parse(footer['llm_observatory.columns'] ?? '[]')).toEqual(ROLLUP_ARCHIVE_COLUMNS);
    const [read] = (await parquetReadObjects({ file, utf8: false })) as Array<Record<string, unknown>>;
    const blob = stored!.ttft_ms instanceof ArrayBuffer ? new Uint8Array(stored!.ttft_ms) : Uint8Array.from(stored!.ttft_ms);
    expect([...(read.ttft_ms as Uint8Array)]).toEqual([...blob]);
    expect([Number(read.hour), Number(read.probes), read.errors]).toEqual([day + 3_600_000, stored!.probes, JSON.parse(stored!.errors)]);
    // The rollups' columns are the table's (migration 0003).
    const { results } = await env.DB.prepare('PRAGMA table_info(hourly_rollups)').all<{ name: string }>();
    expect(ROLLUP_ARCHIVE_COLUMNS.map((c) => c.name)).toEqual(results.map((c) => c.name));
  });
  it('deletes rollups only once their archive is confirmed: an R2 failure keeps them, the next run deletes them', async () => {
    const day = CUT - 3 * DAY_MS;
    const rollup = oneProbeRollup('enam', day + 3_600_000);
    await upsertRollups(env.DB, [rollup]);
    const rollupRows = async () =>
      Number(await env.DB.prepare('SELECT COUNT(*) AS n FROM hourly_rollups WHERE region = ?').bind('enam').first('n'));
    const { deleteArchivedRollups } = await import('../../workers/observatory/archive/archive-run.ts');
    // The archive cannot be written (its manifest is not one): the rollups stay, and health says why.
    await env.ARCHIVE.put(MANIFEST_KEY, 'not json');
    const seen = expectConsoleErrors(/manifest read failed, hourly_rollups kept for a later run/);
    expect(await deleteArchivedRollups(env, CUT)).toBe(0);
    expect(seen.length).toBeGreaterThanOrEqual(1);
    expect(await rollupRows()).toBe(1);
    expect((await env.REGION_PROBER.getByName('enam').status()).lastRollupArchiveError).toMatch(/^manifest read: /);
    // The archive whole again: the run writes the day, and only then deletes it.
    await env.ARCHIVE.delete(MANIFEST_KEY);
    expect(await deleteArchivedRollups(env, CUT)).toBe(1);
    expect(await rollupRows()).toBe(0);
    expect((await manifest()).files.map((f) => [f.key, f.rows])).toEqual([[archiveKey('hourly_rollups', day, 'enam'), 1]]);

    // What the capacity model counts for it, once the day is archived: its rows counted (scan, sort), and a delete per
    // region that scans the day's rows of every region.
    const rows = [1, 2].flatMap((h) => ['enam', 'weur'].map((region) => ({ ...rollup, region, hour: day + h * 3_600_000 })));
    await upsertRollups(env.DB, rows);
    for (const region of ['enam', 'weur'])
      await env.REGION_PROBER.getByName(region).archiveDays(
        region,
        (await sampleDayCounts(env.DB, 0, CUT, 'hourly_rollups')).get(region)!,
        'hourly_rollups',
      );
    const meter = meterD1(env.DB);
    expect(await deleteArchivedRollups({ ...env, DB: meter.db }, CUT)).toBe(rows.length);
    const queries = 1 + 2 * 2; // the count, and per region the hourly and the daily delete (each may read one row more)
    // … and per region the delete of its spans of days that held the day (no rows here: what D1 counts for each seek).
    const spans = 2 * DAY_SPANS.length * SPAN_READS_PER_SEEK;
    const modelled = rows.length * (ARCHIVE_ROWS_READ_PER_COUNTED_SAMPLE + 2 * ROLLUP_RETENTION_DAY_SCANS_PER_REGION) + spans;
    // An upper bound: a region's delete no longer meets the rows of the regions deleted before it.
    expect(meter.rowsRead).toBeGreaterThanOrEqual(rows.length * (ARCHIVE_ROWS_READ_PER_COUNTED_SAMPLE + 1));
    expect(meter.rowsRead).toBeLessThanOrEqual(modelled + queries);

    // In R2, confirming a region's archived day: the manifest's GET, the file's HEAD, and one older file's HEAD; no PUT.
    const older = day - DAY_MS;
    await upsertRollups(env.DB, [oneProbeRollup('enam', older + 3_600_000), oneProbeRollup('enam', day + 3_600_000)]);
    await env.REGION_PROBER.getByName('enam').archiveDays(
      'enam',
      (await sampleDayCounts(env.DB, 0, CUT, 'hourly_rollups')).get('enam')!,
      'hourly_rollups',
    );
    const { bucket: counting, ops } = countingBucket();
    const confirmed = await runInDurableObject(env.REGION_PROBER.getByName('enam'), (_instance, state: DurableObjectState) =>
      archiveRegionDays(new ProberStore(state.storage), env.DB, counting, 'enam', [{ day, rows: 1 }], 'hourly_rollups'),
    );
    expect(confirmed).toEqual([day]);
    expect(ops).toEqual({ a: 0, b: ROLLUP_RETENTION_R2_CLASS_B_PER_REGION });
  });

  it('archives and deletes the rows of a region no longer in the configuration, like any other', async () => {
    const day = CUT - DAY_MS;
    await insertSamples(env.DB, archiveSamples('olde', day, TICKS_PER_DAY));
    const result = await applyRetention(env, TODAY);
    expect(result?.samples).toBe(2 * TICKS_PER_DAY);
    expect(await count('olde')).toBe(0);
    expect((await manifest()).files.map((f) => [f.key, f.rows])).toEqual([[sampleArchiveKey(day, 'olde'), 2 * TICKS_PER_DAY]]);
  });
});

describe('the archive over HTTP', () => {
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  const admin = { authorization: `Bearer ${env.ADMIN_TOKEN}` };
  const archiveNow = async () => {
    const r = await SELF.fetch('http://observatory/api/v1/archive', { method: 'POST', headers: admin });
    expect(r.status).toBe(200);
    return (await r.json()) as {
      files_confirmed: number;
      pending: number;
      failed: string[];
      regions: Array<{ region: string; table: string; owed: number; confirmed: number }>;
    };
  };

  it('POST /api/v1/archive (admin) archives every ended day owed now, deletes nothing, and says what is left', async () => {
    expect((await SELF.fetch('http://observatory/api/v1/archive', { method: 'POST' })).status).toBe(401);
    await insertSamples(env.DB, archiveSamples('weur', today - DAY_MS, TICKS_PER_DAY));
    await insertSamples(env.DB, archiveSamples('weur', today - 12 * DAY_MS, 1));
    await insertSamples(env.DB, archiveSamples('enam', today - 40 * DAY_MS, 1));
    await insertSamples(env.DB, archiveSamples('enam', today, 1)); // today: not ended
    const first = await archiveNow();
    expect(first).toMatchObject({ files_confirmed: 3, pending: 0, failed: [] });
    expect(await count('weur')).toBe(2 * TICKS_PER_DAY + 2);
    expect((await manifest()).files.map((f) => f.key)).toEqual([
      sampleArchiveKey(today - 40 * DAY_MS, 'enam'),
      sampleArchiveKey(today - 12 * DAY_MS, 'weur'),
      sampleArchiveKey(today - DAY_MS, 'weur'),
    ]);
    // The run itself reads the manifest once per table of samples (the regions' objects read it again, counted per region).
    const { bucket: counting, ops: reads } = countingBucket();
    const { archiveSampleTables } = await import('../../workers/observatory/archive/archive-run.ts');
    await archiveSampleTables({ ...env, ARCHIVE: counting }, Date.now(), 0, false);
    expect(reads.b).toBe(ARCHIVE_R2_CLASS_B_PER_RUN);
    // Again: yesterday is confirmed as it is (the days between that hold a file are not even counted), nothing written.
    const etag = (await env.ARCHIVE.head(MANIFEST_KEY))!.etag;
    expect(await archiveNow()).toMatchObject({ files_confirmed: 1, pending: 0 });
    expect((await env.ARCHIVE.head(MANIFEST_KEY))!.etag).toBe(etag);
  });

  it('GET /archive/<key> serves the manifest and each file as R2 holds it, whole, by byte range, and HEAD', async () => {
    await insertSamples(env.DB, archiveSamples('weur', today - DAY_MS, TICKS_PER_DAY));
    await archiveNow();
    const m = await SELF.fetch('http://observatory/archive/manifest.json');
    expect(m.status).toBe(200);
    expect(m.headers.get('content-type')).toBe('application/json');
    expect(m.headers.get('access-control-allow-origin')).toBe('*');
    const [entry] = ((await m.json()) as Manifest).files;
    const url = `http://observatory/archive/${entry.key}`;
    const whole = await SELF.fetch(url);
    expect(whole.status).toBe(200);
    const bytes = new Uint8Array(await whole.arrayBuffer());
    expect([bytes.byteLength, await sha256Hex(bytes)]).toEqual([entry.bytes, entry.sha256]);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(whole.headers.get('etag')).toMatch(/^"/);
    const head = await SELF.fetch(url, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length'), await head.text()]).toEqual([200, String(entry.bytes), '']);
    // The ranges a Parquet reader asks for: the footer's length at the end, then the footer, then a column.
    const tail = await SELF.fetch(url, { headers: { range: 'bytes=-8' } });
    expect([tail.status, tail.headers.get('content-range')]).toEqual([206, `bytes ${entry.bytes - 8}-${entry.bytes - 1}/${entry.bytes}`]);
    expect([...new Uint8Array(await tail.arrayBuffer())]).toEqual([...bytes.slice(-8)]);
    const middle = await SELF.fetch(url, { headers: { range: 'bytes=4-103' } });
    expect([middle.status, middle.headers.get('content-length')]).toEqual([206, '100']);
    expect([...new Uint8Array(await middle.arrayBuffer())]).toEqual([...bytes.slice(4, 104)]);
    const open = await SELF.fetch(url, { headers: { range: `bytes=${entry.bytes - 3}-` } });
    expect(new TextDecoder().decode(await open.arrayBuffer())).toBe('AR1'); // PAR1 closes every Parquet file
    const beyond = await SELF.fetch(url, { headers: { range: `bytes=${entry.bytes}-` } });
    expect([beyond.status, beyond.headers.get('content-range')]).toEqual([416, `bytes */${entry.bytes}`]);
    await beyond.arrayBuffer();
    // A Range header this route does not read (several ranges, another unit, bad syntax, a reversed range) gets the whole file.
    for (const range of ['bytes=0-1,4-5', 'items=0-4', 'bytes=abc', 'bytes=9-3', `bytes=${'9'.repeat(40)}-`]) {
      const r = await SELF.fetch(url, { headers: { range } });
      expect([r.status, (await r.arrayBuffer()).byteLength], range).toEqual([200, entry.bytes]);
    }
    // A range of an older version (If-Range with another ETag) gets the whole current file; with its own ETag, the range.
    const stale = await SELF.fetch(url, { headers: { range: 'bytes=-8', 'if-range': '"not-this-one"' } });
    expect([stale.status, (await stale.arrayBuffer()).byteLength]).toEqual([200, entry.bytes]);
    const fresh = await SELF.fetch(url, { headers: { range: 'bytes=-8', 'if-range': whole.headers.get('etag')! } });
    expect([fresh.status, (await fresh.arrayBuffer()).byteLength]).toEqual([206, 8]);
    // HEAD answers for the whole file whatever Range it names.
    const headBeyond = await SELF.fetch(url, { method: 'HEAD', headers: { range: `bytes=${entry.bytes}-` } });
    expect([headBeyond.status, headBeyond.headers.get('content-length')]).toEqual([200, String(entry.bytes)]);
    // A browser's preflight for a range, and CORS on an error too.
    const preflight = await SELF.fetch(url, {
      method: 'OPTIONS',
      headers: { origin: 'https://notebook.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'range' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/range/);
    // Every region code the configuration accepts ("." and "_" among them) is a key it serves.
    const unusual = await SELF.fetch('http://observatory/archive/samples/day=2026-11-30/region=us_east.1.parquet');
    expect([unusual.status, unusual.headers.get('access-control-allow-origin')]).toEqual([404, '*']);
    expect(((await unusual.json()) as { error: { message: string } }).error.message).toMatch(/not in the archive/);
    // Only the archive's own keys, and a clear word for each other.
    for (const key of [
      'secrets.txt',
      '..%2Fmanifest.json',
      'samples/day=2026-02-30/region=weur.parquet',
      'other/day=2026-11-30/region=weur.parquet',
      '%E0%A4%A',
    ]) {
      const r = await SELF.fetch(`http://observatory/archive/${key}`);
      expect(r.status, key).toBe(404);
      expect(((await r.json()) as { error: { message: string } }).error.message).toMatch(/no archive file/);
    }
    const absent = await SELF.fetch(`http://observatory/archive/${sampleArchiveKey(today - 5 * DAY_MS, 'weur')}`);
    expect(absent.status).toBe(404);
    expect(((await absent.json()) as { error: { message: string } }).error.message).toMatch(/not in the archive/);
    expect((await SELF.fetch('http://observatory/archive/manifest.json', { method: 'PUT', body: '{}' })).status).toBe(404);
  });
});
