import { setServerTtft, num, type StreamState } from '../stream-state.ts';
import { SECOND_MS } from '../../time.ts';

/**
 * Server-reported time to first token carried in OpenAI-compatible chunks (MEASUREMENT.md (2)):
 * vLLM `metrics` (ms), Groq `x_groq.usage` and Cerebras `time_info` (s), Fireworks `perf_metrics`
 * (s), Novita `sla_metrics.ttft_ms`, llama.cpp `timings.prompt_ms`.
 */
export function readChunkTimings(chunk: any, s: StreamState): void {
  if (s.serverTtftMs !== null) return;
  const metrics = chunk.metrics;
  if (metrics && typeof metrics === 'object') {
    const ttft = num(metrics.time_to_first_token_ms);
    if (ttft !== null) setServerTtft(s, ttft + (num(metrics.queue_time_ms) ?? 0), 'metrics');
  }
  const groq = chunk.x_groq?.usage;
  if (groq && typeof groq === 'object') {
    const prompt = num(groq.prompt_time);
    if (prompt !== null) setServerTtft(s, (prompt + (num(groq.queue_time) ?? 0)) * SECOND_MS, 'x_groq.usage');
  }
  const timeInfo = chunk.time_info;
  if (timeInfo && typeof timeInfo === 'object') {
    const prompt = num(timeInfo.prompt_time);
    if (prompt !== null) setServerTtft(s, (prompt + (num(timeInfo.queue_time) ?? 0)) * SECOND_MS, 'time_info');
  }
  const perf = chunk.perf_metrics;
  if (perf && typeof perf === 'object') {
    const ttft = num(perf['server-time-to-first-token']);
    if (ttft !== null) setServerTtft(s, ttft * SECOND_MS, 'perf_metrics');
  }
  const sla = num(chunk.sla_metrics?.ttft_ms);
  if (sla !== null) setServerTtft(s, sla, 'sla_metrics');
  const prompt = num(chunk.timings?.prompt_ms);
  if (prompt !== null) setServerTtft(s, prompt, 'timings');
}
