/**
 * Target status from the last hour against the target's own baseline:
 * - down: at least half of the last hour's samples failed;
 * - degraded: over 10 % failed, or the last hour's median TTFT is more than 1.5 × the baseline's;
 * - operational otherwise; no data when the last hour has no sample.
 * The baseline is the rest of the report window (it needs 10 successful samples to count).
 */
import { percentile } from '../../../shared/stats/percentile.ts';
import { DAY_MS, HOUR_MS } from './series.ts';
import type { SiteSample } from './types.ts';

export const STATUS_RULES = {
  recentMs: HOUR_MS,
  downErrorRate: 0.5,
  degradedErrorRate: 0.1,
  degradedSlowdown: 1.5,
  minBaseline: 10,
} as const;

export type Status = 'operational' | 'degraded' | 'down' | 'no-data';

export interface StatusVerdict {
  status: Status;
  samples: number;
  error_rate: number | null;
  ttft_p50: number | null;
  baseline_p50: number | null;
  reason: string;
}

export function judge(recent: SiteSample[], baseline: SiteSample[]): StatusVerdict {
  if (recent.length === 0) return { status: 'no-data', samples: 0, error_rate: null, ttft_p50: null, baseline_p50: null, reason: 'no sample in this period' };
  const failed = recent.filter((s) => s.error !== null).length;
  const errorRate = failed / recent.length;
  const ttft = percentile(recent.filter((s) => s.error === null && s.ttft_ms !== null).map((s) => s.ttft_ms!), 0.5);
  const base = baseline.filter((s) => s.error === null && s.ttft_ms !== null).map((s) => s.ttft_ms!);
  const baseP50 = base.length >= STATUS_RULES.minBaseline ? percentile(base, 0.5) : null;
  const verdict = (status: Status, reason: string): StatusVerdict => ({ status, samples: recent.length, error_rate: errorRate, ttft_p50: ttft, baseline_p50: baseP50, reason });
  if (errorRate >= STATUS_RULES.downErrorRate) return verdict('down', `${failed} of ${recent.length} samples failed`);
  if (errorRate > STATUS_RULES.degradedErrorRate) return verdict('degraded', `${failed} of ${recent.length} samples failed`);
  if (ttft !== null && baseP50 !== null && ttft > STATUS_RULES.degradedSlowdown * baseP50) {
    return verdict('degraded', `median TTFT ${ttft.toFixed(0)} ms is ${(ttft / baseP50).toFixed(1)}× its baseline of ${baseP50.toFixed(0)} ms`);
  }
  return verdict('operational', baseP50 === null ? 'no failures; too few earlier samples for a TTFT baseline' : 'no failures above 10 %; TTFT within 1.5× its baseline');
}

/** The target's status now, and one verdict per day of the window (oldest first). */
export function targetStatus(samples: SiteSample[], nowMs: number, fromMs: number) {
  const recent = samples.filter((s) => s.tick_id >= nowMs - STATUS_RULES.recentMs);
  const earlier = samples.filter((s) => s.tick_id < nowMs - STATUS_RULES.recentMs);
  const days: Array<{ day: string } & StatusVerdict> = [];
  for (let start = Math.floor(fromMs / DAY_MS) * DAY_MS; start < nowMs; start += DAY_MS) {
    const inDay = samples.filter((s) => s.tick_id >= start && s.tick_id < start + DAY_MS);
    days.push({ day: new Date(start).toISOString().slice(0, 10), ...judge(inDay, samples.filter((s) => s.tick_id < start || s.tick_id >= start + DAY_MS)) });
  }
  return { now: judge(recent, earlier), days };
}
