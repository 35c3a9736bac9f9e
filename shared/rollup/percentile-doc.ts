/** The answer of GET /api/v1/percentiles from rollups: the live route's and the percentile views'. */
import { HISTOGRAM_RELATIVE_ERROR, HISTOGRAM_SCALE } from '../stats/exp-histogram.ts';
import type { GroupRecord } from './percentiles.ts';

/** The answer of percentiles from rollups over whole hours [fromHour, toHour): the live route's and the views'. */
export function rollupPercentileDoc(
  groups: GroupRecord[],
  metric: string,
  by: readonly string[],
  fromHour: number,
  toHour: number,
  methodVersion: number,
) {
  return {
    metric,
    by: [...by],
    source: 'rollups' as const,
    // The whole hours inside the asked window; the current hour is rolled up once it has ended.
    window: { from: new Date(fromHour).toISOString(), to: new Date(toHour).toISOString() },
    method_version: methodVersion,
    method: `percentiles merged from hourly (and, for whole UTC days, daily) base-2 exponential histograms (scale ${HISTOGRAM_SCALE}), each within ${(HISTOGRAM_RELATIVE_ERROR * 100).toFixed(2)} % of the exact value over the same samples; 95 % order-statistic intervals whose bounds are read from the histogram within the same error; error_rate over all samples`,
    relative_error: HISTOGRAM_RELATIVE_ERROR,
    groups,
  };
}
