/** The percentiles every figure is reported at, by name: the API's fields (p50, p50_ci_low, …) and the site's derive from it. */
export const PERCENTILE_NAMES = ['p50', 'p90', 'p95', 'p99'] as const;
export const PERCENTILES: readonly number[] = PERCENTILE_NAMES.map((name) => Number(name.slice(1)) / 100);

/**
 * Exact percentile with linear interpolation between closest ranks (numpy's default, as vLLM and
 * LLMPerf report). `sorted` must be ascending; q in [0, 1].
 */
export function percentileSorted(sorted: ArrayLike<number>, q: number): number | null {
  return percentileAt(sorted.length, q, (rank) => sorted[rank - 1]);
}

/** The 1-based ranks whose values a percentile of n samples interpolates between. */
export function interpolationRanks(n: number, q: number): [number, number] {
  if (q <= 0) return [1, 1];
  if (q >= 1) return [n, n];
  const lo = Math.floor((n - 1) * q) + 1;
  return [lo, Math.min(lo + 1, n)];
}

/** The same percentile from only the order statistics it needs: `at(rank)` gives the rank-th smallest (1-based). */
export function percentileAt(n: number, q: number, at: (rank: number) => number): number | null {
  if (n === 0) return null;
  const [lo, hi] = interpolationRanks(n, q);
  const h = q <= 0 ? 0 : q >= 1 ? n - 1 : (n - 1) * q;
  const vLo = at(lo);
  return lo === hi ? vLo : vLo + (h - (lo - 1)) * (at(hi) - vLo);
}

export function percentile(values: readonly number[], q: number): number | null {
  return percentileSorted(Float64Array.from(values).sort(), q);
}

export function median(values: readonly number[]): number | null {
  return percentile(values, 0.5);
}
