/**
 * The Pareto frontier of latency against price: the points no other point beats on both, cheaper or as cheap and
 * faster or as fast, and strictly on one. Equal points dominate neither, so a tie stays on the frontier together.
 */

export interface CostTime {
  cost: number;
  time: number;
}

/** Whether `q` dominates `p`: no worse on both, better on one. */
export function dominates(q: CostTime, p: CostTime): boolean {
  return q.cost <= p.cost && q.time <= p.time && (q.cost < p.cost || q.time < p.time);
}

/** The points on the frontier, cheapest first (then fastest), each the same object it was given. */
export function paretoFrontier<P extends CostTime>(points: readonly P[]): P[] {
  return points.filter((p) => !points.some((q) => dominates(q, p))).sort((a, b) => a.cost - b.cost || a.time - b.time);
}
