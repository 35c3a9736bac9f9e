/**
 * Exact percentile with linear interpolation between closest ranks (numpy's default, as vLLM and
 * LLMPerf report). `sorted` must be ascending; q in [0, 1].
 */
export function percentileSorted(sorted: ArrayLike<number>, q: number): number | null {
  const n = sorted.length;
  if (n === 0) return null;
  if (q <= 0) return sorted[0];
  if (q >= 1) return sorted[n - 1];
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

export function percentile(values: readonly number[], q: number): number | null {
  return percentileSorted(Float64Array.from(values).sort(), q);
}

export function median(values: readonly number[]): number | null {
  return percentile(values, 0.5);
}
