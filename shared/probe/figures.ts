import { percentileSorted } from '../stats/percentile.ts';
import { splitTtft } from './ttft-split.ts';
import type { HeaderTimings } from './header-timings.ts';
import type { StreamMeter } from './stream-meter.ts';
import type { Sample } from '../types.ts';

export interface Measured {
  t0: number;
  headersAt: number | null;
  meter: StreamMeter | null;
  headerTimings: HeaderTimings | null;
  rttMs: number | null;
  /** Why the round trip set any of its own claims aside (it is noted when the split uses it). */
  rttNote?: string | null;
  /** The stream failed before its end: figures past the point of failure stay null. */
  failed: boolean;
}

const round = (x: number): number => Math.round(x * 100) / 100;
const since = (t0: number, t: number | null): number | null => (t === null ? null : round(t - t0));
const rounded = (x: number | null): number | null => (x === null ? null : round(x));

/** Fills every figure of MEASUREMENT.md into the sample from the probe's stamps. */
export function fillFigures(sample: Sample, m: Measured): void {
  const { t0, meter } = m;
  sample.headers_ms = since(t0, m.headersAt);
  const ht = m.headerTimings;
  if (ht) sample.server_timings = ht.timings;
  // Body timings that are no time to first token (Bedrock's latencyMs) are raw claims too, never used for the split.
  const bodyTimings = meter?.state.bodyTimings;
  if (bodyTimings) sample.server_timings = { ...sample.server_timings, ...bodyTimings };
  sample.rtt_ms = rounded(m.rttMs);
  // Known for every probe of this method version: no stream, no reasoning streamed.
  sample.reasoning_streamed = false;
  if (meter) fillStreamFigures(sample, meter, t0, m.failed);

  const s = meter?.state;
  const serverTtftMs = s?.serverTtftMs ?? ht?.serverTtftMs ?? null;
  const serverTtftSource =
    s && s.serverTtftMs !== null ? s.serverTtftSource : ht?.serverTtftMs != null ? 'fireworks-server-time-to-first-token' : null;
  sample.server_ttft_ms = rounded(serverTtftMs);
  sample.server_ttft_source = serverTtftSource;
  const split = splitTtft({
    ttftMs: sample.ttft_ms,
    headersMs: sample.headers_ms,
    headerClaims: ht?.claims ?? [],
    serverTtftMs,
    serverTtftSource,
    rttMs: m.rttMs,
    rttNote: m.rttNote ?? null,
  });
  sample.server_headers_ms = rounded(split.server_headers_ms);
  sample.network_ms = rounded(split.network_ms);
  sample.server_ms = rounded(split.server_ms);
  sample.residual_ms = rounded(split.residual_ms);
  sample.split_source = split.split_source;
  sample.split_note = split.split_note;
}

function fillStreamFigures(sample: Sample, meter: StreamMeter, t0: number, failed: boolean): void {
  const s = meter.state;
  sample.first_byte_ms = since(t0, meter.firstByteAt);
  sample.ttft_ms = since(t0, meter.firstTokenAt);
  sample.ttfa_ms = since(t0, meter.firstAnswerAt);
  sample.total_ms = failed ? null : since(t0, meter.endAt);
  sample.finish_reason = s.finishReason;
  sample.input_tokens = s.inputTokens;
  sample.cached_tokens = s.cachedTokens;
  sample.tokens_exact = s.outputTokens !== null;
  sample.output_tokens = s.outputTokens ?? s.tokenEvents;
  sample.reasoning_tokens = s.reasoningTokens;
  sample.reasoning_streamed = s.reasoningStreamed;
  sample.answer_tokens = s.reasoningTokens === null ? sample.output_tokens : Math.max(sample.output_tokens - s.reasoningTokens, 0);

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
  if (failed || meter.firstAnswerAt === null || meter.lastTokenAt === null) return;
  const tpot = decodeTpot(meter, sample.output_tokens, s.reasoningTokens === null ? null : sample.answer_tokens);
  if (tpot === null) return;
  sample.tpot_ms = round(tpot);
  sample.decode_tps = tpot > 0 ? round(1000 / tpot) : null;
}

/**
 * TPOT (MEASUREMENT.md): with reasoning tokens reported, the decode of the answer itself, from the
 * first answer read over the answer tokens, so tokens never streamed are never divided into a
 * streamed span; otherwise from the first token over every output token. Null when the divisor is
 * below 1 or every counted token arrived in one read (decode time is not observable; 0 would be an
 * artefact of buffering).
 */
function decodeTpot(meter: StreamMeter, outputTokens: number, answerTokens: number | null): number | null {
  const from = answerTokens === null ? meter.firstTokenAt! : meter.firstAnswerAt!;
  const tokens = answerTokens ?? outputTokens;
  // Reads counted by position, not by time: on a 1 ms clock a reasoning read can share the first answer read's time.
  const reads = meter.tokenReadTimes.length - (answerTokens === null ? 0 : meter.firstAnswerRead!);
  // A zero span across reads is not observable decode time either (reads within one clock tick).
  if (tokens < 2 || reads < 2 || meter.lastTokenAt! === from) return null;
  return (meter.lastTokenAt! - from) / (tokens - 1);
}
