/**
 * What a response's headers claim about the server time spent before them. Server-Timing lists
 * `total` and then the additive parts (queue, prefill, app) that nest in it: a client that takes
 * the largest single metric, or `total` by name, gets the whole; one that sums every metric counts
 * it twice (nested metrics must not be summed). `total` comes first, so a client that keeps the
 * first of equally large metrics names it rather than a part. Each part is rounded down to 0.01 ms,
 * so the claim never exceeds the time really spent and `total` is exactly the sum of the parts as
 * written. openai-processing-ms (vendor timings) is the total, rounded down to whole ms.
 */

/** The Server-Timing metric that holds the whole time before the headers. */
export const TOTAL_METRIC = 'total';
const HUNDREDTHS_PER_MS = 100;

export interface TimingClaim {
  serverTiming: string;
  totalMs: number;
}

/** The parts as spent, each floored to 0.01 ms, and their exact total. */
export function honestClaim(parts: Record<string, number>): TimingClaim {
  const floored = Object.entries(parts).map(([name, ms]) => [name, Math.floor(Math.max(0, ms) * HUNDREDTHS_PER_MS)] as const);
  const total = floored.reduce((sum, [, hundredths]) => sum + hundredths, 0);
  const metrics = [[TOTAL_METRIC, total] as const, ...floored].map(([name, hundredths]) => `${name};dur=${formatHundredths(hundredths)}`);
  return { serverTiming: metrics.join(', '), totalMs: total / HUNDREDTHS_PER_MS };
}

/** The `bad-server-timing` fault: one `total` far beyond the time that really passed. */
export function impossibleClaim(claimedMs: number): TimingClaim {
  return { serverTiming: `${TOTAL_METRIC};dur=${claimedMs.toFixed(2)}`, totalMs: claimedMs };
}

/** Sets Server-Timing and, with vendor timings, openai-processing-ms. */
export function setTimingHeaders(headers: Headers, claim: TimingClaim, vendorTiming: boolean): void {
  headers.set('server-timing', claim.serverTiming);
  if (vendorTiming) headers.set('openai-processing-ms', String(Math.floor(claim.totalMs)));
}

function formatHundredths(hundredths: number): string {
  return `${Math.floor(hundredths / HUNDREDTHS_PER_MS)}.${String(hundredths % HUNDREDTHS_PER_MS).padStart(2, '0')}`;
}
