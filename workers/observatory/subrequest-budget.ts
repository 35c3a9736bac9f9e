/**
 * The subrequests one invocation may still make (the plan's limit: 50 on the free plan). Every fetch
 * and every call to another object takes its share first — probes with their round trips, the colo
 * lookup, OTLP pushes, reports to the status keeper — so the last ones of a busy alarm are put off
 * to the next alarm instead of failing at the limit. D1 queries have a limit of their own.
 */
export class SubrequestBudget {
  readonly limit: number;
  private used = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  get left(): number {
    return this.limit - this.used;
  }

  /** Gives back what was taken for a request that was not made. */
  refund(n: number): void {
    this.used = Math.max(0, this.used - n);
  }

  /** Takes `n` if, after it, at least `keep` are still left; otherwise takes none and returns false. */
  take(n: number, keep = 0): boolean {
    if (this.used + n + keep > this.limit) return false;
    this.used += n;
    return true;
  }
}
