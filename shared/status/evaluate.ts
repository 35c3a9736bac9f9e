/**
 * One evaluation: the rules of rules.ts applied to one pair's recent samples at tick T, against its
 * baseline. Pure: the same samples and baseline always give the same finding.
 */
import { ciHighRank, ciLowRank } from '../stats/percentile-ci.ts';
import { median, percentile } from '../stats/percentile.ts';
import type { StatusRules } from './rules.ts';
import type { Level } from './levels.ts';
import { MINUTE_MS } from '../time.ts';

/** What an evaluation reads of a sample. */
export interface WindowSample {
  tick_id: number;
  error: string | null;
  ttft_ms: number | null;
  itl_p99_ms: number | null;
  decode_tps: number | null;
  network_ms: number | null;
  server_ms: number | null;
}

export type BaselineSource = 'same-hour-7d' | 'trailing-24h';

/** The pair's usual figures, from hourly rollups (baseline.ts). */
export interface Baseline {
  source: BaselineSource;
  /** Successful samples behind it. */
  n: number;
  ttft_p99: number | null;
  decode_p50: number | null;
  network_p50: number | null;
  server_p50: number | null;
}

export type RuleName = 'down' | 'errors' | 'ttft' | 'itl' | 'decode';
export type { Level };

export interface RuleResult {
  rule: RuleName;
  outcome: 'fired' | 'ok' | 'insufficient';
  /** Samples the rule looked at. */
  n: number;
  /** The figure compared (a bound of the interval for the percentile rules), or null. */
  value: number | null;
  /** The window's own figure (p99, p50, error rate …) where it differs from value. */
  estimate: number | null;
  threshold: number | null;
  baseline: number | null;
  /** The rule in words, with its numbers. */
  note: string;
}

/** Which part of TTFT moved against the baseline: medians of the window's split. */
export interface SplitShift {
  network_delta_ms: number;
  server_delta_ms: number;
  moved: 'network' | 'server' | 'both' | 'neither';
}

export interface Finding {
  tick_id: number;
  /** null: no rule had enough data ("not enough data"). */
  level: Level | null;
  rules: RuleResult[];
  shift: SplitShift | null;
  /** The baseline compared against (null: none yet). */
  baseline: Baseline | null;
  /** This tick's own sample, for the incident's chart. */
  sample: { ttft_ms: number | null; error: string | null } | null;
}

const fmt = (v: number) => (Math.abs(v) >= 100 ? Math.round(v).toLocaleString('en-US') : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2));
const pct = (v: number) => `${(v * 100).toFixed(0)} %`;

/** Samples of the pair, any order; `tickId` the tick being judged. */
export function evaluate(samples: readonly WindowSample[], tickId: number, baseline: Baseline | null, rules: StatusRules): Finding {
  const series = samples.filter((s) => s.tick_id <= tickId).sort((a, b) => a.tick_id - b.tick_id);
  const within = (minutes: number, inclusive = false) =>
    series.filter((s) => (inclusive ? s.tick_id >= tickId - minutes * MINUTE_MS : s.tick_id > tickId - minutes * MINUTE_MS));
  const usable = baseline !== null && baseline.n >= rules.baselineMinSamples ? baseline : null;
  const baselineNote =
    baseline === null ? 'no baseline yet' : `baseline has ${baseline.n} of the ${rules.baselineMinSamples} samples it needs`;
  const results: RuleResult[] = [];
  const result = (r: Omit<RuleResult, 'estimate'> & { estimate?: number | null }) => results.push({ estimate: null, ...r });

  // down: the last N probes all failed.
  const N = rules.downAfterFailures;
  const last = series.slice(-N);
  const failed = last.filter((s) => s.error !== null).length;
  if (last.length < N)
    result({
      rule: 'down',
      outcome: 'insufficient',
      n: last.length,
      value: failed,
      threshold: N,
      baseline: null,
      note: `${last.length} probe(s) so far; down needs ${N} in a row failing`,
    });
  else
    result({
      rule: 'down',
      outcome: failed === N ? 'fired' : 'ok',
      n: N,
      value: failed,
      threshold: N,
      baseline: null,
      note: failed === N ? `the last ${N} probes failed (${last.at(-1)!.error})` : `${failed} of the last ${N} probes failed`,
    });

  // errors: the window's failure rate.
  const errWindow = within(rules.errors.windowMinutes);
  const errors = errWindow.filter((s) => s.error !== null).length;
  if (errWindow.length < rules.errors.minSamples)
    result({
      rule: 'errors',
      outcome: 'insufficient',
      n: errWindow.length,
      value: null,
      threshold: rules.errors.rate,
      baseline: null,
      note: `${errWindow.length} probe(s) in ${rules.errors.windowMinutes} min; needs ${rules.errors.minSamples}`,
    });
  else {
    const rate = errors / errWindow.length;
    result({
      rule: 'errors',
      outcome: rate > rules.errors.rate ? 'fired' : 'ok',
      n: errWindow.length,
      value: rate,
      threshold: rules.errors.rate,
      baseline: null,
      note: `${errors} of ${errWindow.length} probes failed in ${rules.errors.windowMinutes} min (${pct(rate)}; limit ${pct(rules.errors.rate)})`,
    });
  }

  // ttft: the lower bound of the window's p99 interval against ratio × baseline p99.
  const ttft = within(rules.ttft.windowMinutes)
    .filter((s) => s.error === null && s.ttft_ms !== null)
    .map((s) => s.ttft_ms!)
    .sort((a, b) => a - b);
  const lowRank = ciLowRank(ttft.length, 0.99);
  if (ttft.length < rules.ttft.minSamples || lowRank === null)
    result({
      rule: 'ttft',
      outcome: 'insufficient',
      n: ttft.length,
      value: null,
      threshold: null,
      baseline: null,
      note: `${ttft.length} successful probe(s) in ${rules.ttft.windowMinutes} min; needs ${rules.ttft.minSamples}`,
    });
  else if (!usable || usable.ttft_p99 === null)
    result({ rule: 'ttft', outcome: 'insufficient', n: ttft.length, value: null, threshold: null, baseline: null, note: baselineNote });
  else {
    const low = ttft[lowRank - 1];
    const threshold = rules.ttft.ratio * usable.ttft_p99;
    result({
      rule: 'ttft',
      outcome: low > threshold ? 'fired' : 'ok',
      n: ttft.length,
      value: low,
      estimate: percentile(ttft, 0.99),
      threshold,
      baseline: usable.ttft_p99,
      note: `TTFT p99 ≥ ${fmt(low)} ms (95 % lower bound, n=${ttft.length}) against ${fmt(threshold)} ms, ${rules.ttft.ratio}× the baseline p99 of ${fmt(usable.ttft_p99)} ms`,
    });
  }

  // itl: every probe's ITL p99 above the threshold for sustainMinutes.
  const itl = within(rules.itl.sustainMinutes, true).filter((s) => s.error === null && s.itl_p99_ms !== null);
  const span = itl.length > 0 ? (itl.at(-1)!.tick_id - itl[0].tick_id) / MINUTE_MS : 0;
  if (itl.length < rules.itl.minSamples || span < rules.itl.sustainMinutes)
    result({
      rule: 'itl',
      outcome: 'insufficient',
      n: itl.length,
      value: null,
      threshold: rules.itl.thresholdMs,
      baseline: null,
      note: `${itl.length} probe(s) with an ITL over ${span} min; needs ${rules.itl.minSamples} spanning ${rules.itl.sustainMinutes} min`,
    });
  else {
    const lowest = Math.min(...itl.map((s) => s.itl_p99_ms!));
    result({
      rule: 'itl',
      outcome: lowest > rules.itl.thresholdMs ? 'fired' : 'ok',
      n: itl.length,
      value: lowest,
      threshold: rules.itl.thresholdMs,
      baseline: null,
      note: `lowest ITL p99 of ${itl.length} probes over ${span} min is ${fmt(lowest)} ms (limit ${rules.itl.thresholdMs} ms)`,
    });
  }

  // decode: the upper bound of the window's p50 interval against (1 − drop) × baseline p50.
  const tps = within(rules.decode.windowMinutes)
    .filter((s) => s.error === null && s.decode_tps !== null)
    .map((s) => s.decode_tps!)
    .sort((a, b) => a - b);
  const highRank = ciHighRank(tps.length, 0.5);
  if (tps.length < rules.decode.minSamples || highRank === null)
    result({
      rule: 'decode',
      outcome: 'insufficient',
      n: tps.length,
      value: null,
      threshold: null,
      baseline: null,
      note: `${tps.length} probe(s) with a decode speed in ${rules.decode.windowMinutes} min; needs ${rules.decode.minSamples}`,
    });
  else if (!usable || usable.decode_p50 === null)
    result({ rule: 'decode', outcome: 'insufficient', n: tps.length, value: null, threshold: null, baseline: null, note: baselineNote });
  else {
    const high = tps[highRank - 1];
    const threshold = (1 - rules.decode.dropRatio) * usable.decode_p50;
    result({
      rule: 'decode',
      outcome: high < threshold ? 'fired' : 'ok',
      n: tps.length,
      value: high,
      estimate: median(tps),
      threshold,
      baseline: usable.decode_p50,
      note: `decode speed p50 ≤ ${fmt(high)} tokens/s (95 % upper bound, n=${tps.length}) against ${fmt(threshold)}, ${pct(rules.decode.dropRatio)} below the baseline p50 of ${fmt(usable.decode_p50)}`,
    });
  }

  const fired = results.filter((r) => r.outcome === 'fired');
  const level: Level | null = fired.some((r) => r.rule === 'down')
    ? 'down'
    : fired.length > 0
      ? 'degraded'
      : results.some((r) => r.outcome === 'ok')
        ? 'operational'
        : null;
  const own = series.at(-1)?.tick_id === tickId ? series.at(-1)! : null;
  return {
    tick_id: tickId,
    level,
    rules: results,
    baseline,
    shift: splitShift(within(rules.ttft.windowMinutes), usable),
    sample: own ? { ttft_ms: own.ttft_ms, error: own.error } : null,
  };
}

/** Medians of the window's network and server time against the baseline's: which part moved. */
export function splitShift(window: readonly WindowSample[], baseline: Baseline | null): SplitShift | null {
  if (!baseline || baseline.network_p50 === null || baseline.server_p50 === null) return null;
  const split = window.filter((s) => s.error === null && s.network_ms !== null && s.server_ms !== null);
  if (split.length === 0) return null;
  const network = median(split.map((s) => s.network_ms!))! - baseline.network_p50;
  const server = median(split.map((s) => s.server_ms!))! - baseline.server_p50;
  const [big, small] = network >= server ? [network, server] : [server, network];
  const moved = big <= 0 ? 'neither' : small >= big / 2 ? 'both' : network >= server ? 'network' : 'server';
  return { network_delta_ms: network, server_delta_ms: server, moved };
}
