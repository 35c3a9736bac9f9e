/**
 * Writes one region's rollup of one hour from the hour's samples in D1, and moves the running
 * totals by the difference from the hour's previous rows, in one transaction. The same samples give
 * the same rows, so a retried tick or a second rollup never counts twice.
 */
import { applyToTotals, rollUp } from '../../shared/rollup.ts';
import { rollupsOfRegionHour, rollupTotals, samplesOfHour, upsertRollups } from './db/rollups.ts';

export async function rollUpHour(db: D1Database, region: string, hour: number): Promise<void> {
  const fresh = rollUp(await samplesOfHour(db, region, hour));
  const previous = await rollupsOfRegionHour(db, region, hour);
  const totals = applyToTotals(await rollupTotals(db, { regions: [region] }), previous, fresh);
  await upsertRollups(db, fresh, totals);
}
