/**
 * Writes one region's rollup of one hour from the hour's samples in D1, and moves the running
 * totals by the difference from the hour's previous rows, in one transaction (with the hour's paired blocks,
 * prompt-cache blocks and place records, from the same samples). The same samples give
 * the same rows, so a retried tick or a second rollup never counts twice.
 */
import { applyToTotals, mergeByGroup, rollUp } from '../../../shared/rollup/rollup.ts';
import { pairedHours } from '../../../shared/rollup/paired-hours.ts';
import { hourProfiles } from '../../../shared/rollup/hour-profile.ts';
import { upsertProfileStatements } from '../db/profiles.ts';
import { packPairedDayStatements, upsertPairedHourStatements } from '../db/paired.ts';
import { upsertCacheHourStatements } from '../db/cache.ts';
import { cacheHours } from '../../../shared/rollup/cache-hours.ts';
import { hourPlaces } from '../../../shared/rollup/hour-places.ts';
import { upsertPlacesStatements } from '../db/places.ts';
import { rollupsIn, rollupsOfRegionHour, rollupTotals, samplesOfHour, upsertDailyRollups, upsertRollups } from '../db/rollups.ts';
import { DAY_MS } from '../../../shared/time.ts';
import { METHOD_VERSION } from '../../../shared/constants.ts';
import { getConfig } from '../config.ts';

export async function rollUpHour(db: D1Database, region: string, hour: number): Promise<void> {
  const samples = await samplesOfHour(db, region, hour);
  const fresh = rollUp(samples);
  const previous = await rollupsOfRegionHour(db, region, hour);
  const totals = applyToTotals(await rollupTotals(db, { regions: [region] }), previous, fresh);
  // The paired comparisons' and the prompt-cache probes' blocks of the hour, from the same samples, in the same transaction.
  await upsertRollups(db, fresh, totals, [
    ...upsertPairedHourStatements(db, pairedHours(samples)),
    ...upsertCacheHourStatements(db, cacheHours(samples)),
    ...upsertPlacesStatements(db, hourPlaces(samples, hour)),
  ]);
}

/**
 * Writes one region's daily rows of one day, merged from the day's hourly rows (the same rows, the same bytes), and
 * its paired hours packed into a row a family (shared/rollup/paired-days.ts).
 */
export async function rollUpDay(db: D1Database, region: string, day: number): Promise<void> {
  const hourly = await rollupsIn(db, { fromHour: day, toHour: day + DAY_MS, regions: [region] });
  // The day's time profile (its 24 hours of TTFT) and its packed paired days, in the same transaction.
  await upsertDailyRollups(db, mergeByGroup(hourly, day), [
    ...upsertProfileStatements(db, hourProfiles(hourly, day)),
    ...(await packPairedDayStatements(
      db,
      region,
      day,
      getConfig().promptVariants.map((v) => v.id),
      METHOD_VERSION,
    )),
  ]);
}
