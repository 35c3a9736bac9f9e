/** The figures an hourly rollup keeps a histogram of (MEASUREMENT.md names), in their stored order. */

/** The figures rolled up for every successful sample (MEASUREMENT.md names). */
export const ROLLUP_METRICS = ['ttft_ms', 'ttfa_ms', 'tpot_ms', 'itl_p99_ms', 'total_ms', 'decode_tps'] as const;
export type RollupMetric = (typeof ROLLUP_METRICS)[number];
/** The split's parts, rolled up per split_source. */
export const SPLIT_METRICS = ['network_ms', 'server_ms'] as const;
export type SplitMetric = (typeof SPLIT_METRICS)[number];
/**
 * Figures reported per split_source: the split's parts and what the body's claim leaves beside them
 * (residual_ms, not rolled up). From different sources they are different measurements, so never pooled.
 */
export const PER_SOURCE_FIGURES = [...SPLIT_METRICS, 'residual_ms'] as const;
