import { percentileSorted } from './stats/percentile.ts';
import { splitTtft } from './ttft-split.ts';
import type { HeaderTimings } from './header-timings.ts';
import type { StreamMeter } from './stream-meter.ts';
import type { Sample } from './types.ts';

export interface Measured {
  t0: number;
  headersAt: number | null;
  meter: StreamMeter | null;
  headerTimings: HeaderTimings | null;
  rttMs: number | null;
  /** The stream failed: figures past the point of failure stay null. */
  failed: boolean;
}

const round = (x: number): number => Math.round(x * 100) / 100;
const since = (t0: number, t: number | null): number | null => (t === null ? null : round(t - t0));

/** Fills every latency figure of MEASUREMENT.md into the sample from the probe's stamps. */
export function fillFigures(sample: Sample, m: Measured): void {
  const { t0, meter } = m;
  sample.headers_ms = since(t0, m.headersAt);
  const ht = m.headerTimings;
  if (ht) {
    sample.server_timings = ht.timings;
    sample.server_headers_ms = ht.serverHeadersMs;
  }
  sample.rtt_ms = m.rttMs === null ? null : round(m.rttMs);
  if (!meter) return;

  const s = meter.state;
  sample.first_byte_ms = since(t0, meter.firstByteAt);
  sample.ttft_ms = since(t0, meter.firstTokenAt);
  sample.ttfa_ms = since(t0, meter.firstAnswerAt);
  sample.total_ms = m.failed ? null : since(t0, meter.endAt);
  sample.finish_reason = s.finishReason;
  sample.input_tokens = s.inputTokens;
  sample.tokens_exact = s.outputTokens !== null;
  sample.output_tokens = s.outputTokens ?? s.tokenEvents;

  const times = meter.tokenReadTimes;
  sample.chunks = times.length;
  sample.timeline = times.map((t) => round(t - t0));
  if (times.length >= 2) {
    const gaps = new Float64Array(times.length - 1);
    for (let i = 1; i < times.length; i++) gaps[i - 1] = times[i] - times[i - 1];
    gaps.sort();
    sample.itl_p50_ms = round(percentileSorted(gaps, 0.5)!);
    sample.itl_p90_ms = round(percentileSorted(gaps, 0.9)!);
    sample.itl_p99_ms = round(percentileSorted(gaps, 0.99)!);
    sample.itl_max_ms = round(gaps[gaps.length - 1]);
  }
  const out = sample.output_tokens;
  // With every token in one read, decode time is not observable: TPOT stays null rather than 0.
  if (!m.failed && out >= 2 && times.length >= 2 && meter.firstTokenAt !== null && meter.lastTokenAt !== null) {
    const tpot = (meter.lastTokenAt - meter.firstTokenAt) / (out - 1);
    sample.tpot_ms = round(tpot);
    sample.decode_tps = tpot > 0 ? round(1000 / tpot) : null;
  }

  const serverTtftMs = s.serverTtftMs ?? ht?.serverTtftMs ?? null;
  const serverTtftSource = s.serverTtftMs !== null ? s.serverTtftSource : ht?.serverTtftMs != null ? 'fireworks-server-time-to-first-token' : null;
  sample.server_ttft_ms = serverTtftMs === null ? null : round(serverTtftMs);
  sample.server_ttft_source = serverTtftSource;
  const split = splitTtft({
    ttftMs: sample.ttft_ms,
    headersMs: sample.headers_ms,
    serverHeadersMs: ht?.serverHeadersMs ?? null,
    serverHeadersSource: ht?.serverHeadersSource ?? null,
    serverTtftMs,
    serverTtftSource,
    rttMs: m.rttMs,
  });
  sample.network_ms = split.network_ms === null ? null : round(split.network_ms);
  sample.server_ms = split.server_ms === null ? null : round(split.server_ms);
  sample.residual_ms = split.residual_ms === null ? null : round(split.residual_ms);
  sample.split_source = split.split_source;
}
