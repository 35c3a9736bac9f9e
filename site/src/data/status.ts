/**
 * Target status, now and per period of a view, against the target's own baseline:
 * - down: at least half of the period's probes failed;
 * - degraded: over 10 % failed, or the period's median TTFT is more than 1.5 × the baseline's;
 * - operational otherwise; no data when the period has no probe.
 * "Now" is the last hour of raw samples; a view's periods are its rollups' hours (24 h) or days.
 * The baseline is the view's median TTFT for the target, its regions pooled (at least 10 successes).
 */
import { percentile } from '../../../shared/stats/percentile.ts';
import { HOUR_MS } from './series.ts';
import type { SiteData, SiteSample, WindowView } from './types.ts';

export const STATUS_RULES = {
  recentMs: HOUR_MS,
  downErrorRate: 0.5,
  degradedErrorRate: 0.1,
  degradedSlowdown: 1.5,
  minBaseline: 10,
} as const;

export type Status = 'operational' | 'degraded' | 'down' | 'no-data';

/** What a period's verdict rests on. */
export interface Tally {
  probes: number;
  failures: number;
  ttft_p50: number | null;
}

export interface StatusVerdict {
  status: Status;
  samples: number;
  error_rate: number | null;
  ttft_p50: number | null;
  baseline_p50: number | null;
  reason: string;
}

export function judge(t: Tally, baselineP50: number | null): StatusVerdict {
  if (t.probes === 0)
    return {
      status: 'no-data',
      samples: 0,
      error_rate: null,
      ttft_p50: null,
      baseline_p50: baselineP50,
      reason: 'no sample in this period',
    };
  const errorRate = t.failures / t.probes;
  const verdict = (status: Status, reason: string): StatusVerdict => ({
    status,
    samples: t.probes,
    error_rate: errorRate,
    ttft_p50: t.ttft_p50,
    baseline_p50: baselineP50,
    reason,
  });
  if (errorRate >= STATUS_RULES.downErrorRate) return verdict('down', `${t.failures} of ${t.probes} samples failed`);
  if (errorRate > STATUS_RULES.degradedErrorRate) return verdict('degraded', `${t.failures} of ${t.probes} samples failed`);
  if (t.ttft_p50 !== null && baselineP50 !== null && t.ttft_p50 > STATUS_RULES.degradedSlowdown * baselineP50) {
    return verdict(
      'degraded',
      `median TTFT ${t.ttft_p50.toFixed(0)} ms is ${(t.ttft_p50 / baselineP50).toFixed(1)}× its baseline of ${baselineP50.toFixed(0)} ms`,
    );
  }
  return verdict(
    'operational',
    baselineP50 === null
      ? 'no failures above 10 %; too few samples for a TTFT baseline'
      : 'no failures above 10 %; TTFT within 1.5× its baseline',
  );
}

/** The last hour of a target's raw samples as a tally. */
export function recentTally(samples: SiteSample[], nowMs: number): Tally {
  const recent = samples.filter((s) => s.tick_id >= nowMs - STATUS_RULES.recentMs);
  return {
    probes: recent.length,
    failures: recent.filter((s) => s.error !== null).length,
    ttft_p50: percentile(
      recent.filter((s) => s.error === null && s.ttft_ms !== null).map((s) => s.ttft_ms!),
      0.5,
    ),
  };
}

/** The target's status now, and one verdict per period of the view (oldest first, empty periods included). */
export function targetStatus(data: SiteData, view: WindowView, target: string, variant = data.variant.id) {
  const base = view.ttft_by_target.find((g) => g.target === target);
  const baseline = base && base.n >= STATUS_RULES.minBaseline ? base.p50 : null;
  const now = judge(
    recentTally(
      data.samples.filter((s) => s.target === target && s.prompt_variant === variant),
      Date.parse(data.generated_at),
    ),
    baseline,
  );
  const step = view.resolution === 'hour' ? HOUR_MS : 24 * HOUR_MS;
  const points = new Map(view.target_history.filter((p) => p.target === target).map((p) => [Date.parse(p.start), p]));
  const periods: Array<{ start: string } & StatusVerdict> = [];
  const first = Math.floor(Date.parse(view.window.from) / step) * step;
  for (let start = first; start < Date.parse(view.window.to); start += step) {
    const p = points.get(start);
    periods.push({ start: new Date(start).toISOString(), ...judge(p ?? { probes: 0, failures: 0, ttft_p50: null }, baseline) });
  }
  return { now, periods };
}
