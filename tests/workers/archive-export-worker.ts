/**
 * The archive duty alone as a Worker, for the DuckDB test (tests/e2e/archive-duckdb.test.ts) to run in
 * Miniflare: it stores the helper's samples in D1, then archives a region's day into R2 as a region
 * object does. Not a test file: the workers project runs only `*.test.ts`.
 */
import { insertSamples } from '../../workers/observatory/db/samples.ts';
import { archiveRegionDays } from '../../workers/observatory/archive/archive-duty.ts';
import { sampleDayCounts } from '../../workers/observatory/db/archive.ts';
import { archiveSamples } from '../helpers/archive-samples.ts';
import { DAY_MS } from '../../shared/time.ts';

interface ArchiveEnv {
  DB: D1Database;
  ARCHIVE: R2Bucket;
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const region = url.searchParams.get('region') ?? 'weur';
    const day = Number(url.searchParams.get('day'));
    if (url.pathname === '/samples') {
      const ticks = Number(url.searchParams.get('ticks'));
      return Response.json({ inserted: await insertSamples(env.DB, archiveSamples(region, day, ticks)) });
    }
    const errors: string[] = [];
    const duty = { noteDutyError: (_key: string, message: string | null) => void (message && errors.push(message)) };
    const days = (await sampleDayCounts(env.DB, day, day + DAY_MS)).get(region) ?? [];
    const confirmed = await archiveRegionDays(duty, env.DB, env.ARCHIVE, region, days);
    return Response.json({ confirmed, errors });
  },
} satisfies ExportedHandler<ArchiveEnv>;
