/**
 * A robust straight line y = intercept + slope · x (Theil–Sen): the slope is the median of the slopes
 * between every two points with different x, so a few outliers (a queued request, a slow network
 * read) cannot tilt it. Its 95 % interval is Sen's (1968), distribution-free, from the rank of
 * Kendall's S with the variance corrected for ties in x (prompt sizes come in a few fixed values).
 * The intercept is the median of y − slope · x, with the order-statistic interval of that median,
 * widened to cover the intercepts at both ends of the slope's interval.
 */
import { ciRanks } from './percentile-ci.ts';
import { percentileSorted } from './percentile.ts';

const Z_95 = 1.959963984540054;
/** Points a fit uses at most (evenly thinned beyond): the pairs grow with the square. */
export const MAX_FIT_POINTS = 400;

export interface LineFit {
  slope: number;
  slope_low: number | null;
  slope_high: number | null;
  intercept: number;
  intercept_low: number | null;
  intercept_high: number | null;
  /** Points used, and how many different x values they have. */
  n: number;
  distinct_x: number;
}

/** Null when fewer than two different x values (no slope can be measured) or fewer than three points. */
export function theilSen(points: ReadonlyArray<readonly [number, number]>): LineFit | null {
  const step = Math.max(1, Math.ceil(points.length / MAX_FIT_POINTS));
  const pts = points.filter((_, i) => i % step === 0);
  const n = pts.length;
  const ties = new Map<number, number>();
  for (const [x] of pts) ties.set(x, (ties.get(x) ?? 0) + 1);
  if (ties.size < 2 || n < 3) return null;
  const slopes: number[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const dx = pts[j][0] - pts[i][0];
      if (dx !== 0) slopes.push((pts[j][1] - pts[i][1]) / dx);
    }
  }
  const sorted = Float64Array.from(slopes).sort();
  const slope = percentileSorted(sorted, 0.5)!;
  // Sen's interval: C = z·√Var(S); the bounds are the ((N − C)/2)-th and ((N + C)/2 + 1)-th smallest slopes.
  let tieTerm = 0;
  for (const t of ties.values()) tieTerm += t * (t - 1) * (2 * t + 5);
  const varS = (n * (n - 1) * (2 * n + 5) - tieTerm) / 18;
  const big = sorted.length;
  const c = Z_95 * Math.sqrt(varS);
  const lo = Math.floor((big - c) / 2);
  const hi = Math.ceil((big + c) / 2) + 1;
  const slopeLow = lo >= 1 ? sorted[lo - 1] : null;
  const slopeHigh = hi <= big ? sorted[hi - 1] : null;

  const interceptsAt = (b: number) => Float64Array.from(pts, ([x, y]) => y - b * x).sort();
  const at = interceptsAt(slope);
  const ranks = ciRanks(n, 0.5);
  let interceptLow: number | null = null;
  let interceptHigh: number | null = null;
  if (ranks && slopeLow !== null && slopeHigh !== null) {
    const ends = [at, interceptsAt(slopeLow), interceptsAt(slopeHigh)];
    interceptLow = Math.min(...ends.map((e) => e[ranks[0] - 1]));
    interceptHigh = Math.max(...ends.map((e) => e[ranks[1] - 1]));
  }
  return {
    slope,
    slope_low: slopeLow,
    slope_high: slopeHigh,
    intercept: percentileSorted(at, 0.5)!,
    intercept_low: interceptLow,
    intercept_high: interceptHigh,
    n,
    distinct_x: ties.size,
  };
}
