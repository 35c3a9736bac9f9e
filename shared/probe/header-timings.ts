import { keptMetrics, parseServerTiming, serverTimingClaims, SERVER_TIMING_PREFIX, type TimingClaim } from './server-timing.ts';
import { SECOND_MS } from '../time.ts';

/** Vendor headers that report server time (ms) spent before the headers were sent. */
const MS_HEADERS = [
  'openai-processing-ms',
  'x-envoy-upstream-service-time',
  'x-kong-upstream-latency',
  'cmp-upstream-response-duration',
] as const;

/** Fireworks reports its server time to first token in a header, in seconds. */
export const FIREWORKS_TTFT_HEADER = 'fireworks-server-time-to-first-token';

export interface HeaderTimings {
  /**
   * Every server timing found, by source name: the raw claims (`server-timing.<metric>`, vendor headers);
   * of Server-Timing, the metrics a sample keeps (server-timing.ts keptMetrics: bounded in name and number).
   */
  timings: Record<string, number>;
  /** The claims that may stand for the server's time before its headers (MEASUREMENT.md (1)). */
  claims: TimingClaim[];
  /** A server TTFT reported in headers (Fireworks), ms. */
  serverTtftMs: number | null;
}

export function readHeaderTimings(headers: Headers, serverTimingMetrics?: readonly string[]): HeaderTimings {
  const timings: Record<string, number> = {};
  const metrics = parseServerTiming(headers.get('server-timing'));
  for (const m of keptMetrics(metrics, serverTimingMetrics)) {
    const key = SERVER_TIMING_PREFIX + m.name;
    if (m.dur !== null && !(key in timings)) timings[key] = m.dur;
  }
  const claims = serverTimingClaims(metrics, serverTimingMetrics);
  for (const name of MS_HEADERS) {
    const value = parseNonNegative(headers.get(name));
    if (value === null) continue;
    timings[name] = value;
    claims.push({ source: name, ms: value });
  }
  const fireworks = parseNonNegative(headers.get(FIREWORKS_TTFT_HEADER));
  return { timings, claims, serverTtftMs: fireworks === null ? null : fireworks * SECOND_MS };
}

function parseNonNegative(value: string | null): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (trimmed === '') return null;
  const n = Number(trimmed);
  return Number.isFinite(n) && n >= 0 ? n : null;
}

/** The Cloudflare colo that served the response, from the `cf-ray` suffix (`…-MXP`). */
export function upstreamColo(headers: Headers): string | null {
  const ray = headers.get('cf-ray');
  const match = ray ? /^[0-9a-f]{8,}-([A-Z]{3})$/.exec(ray.trim()) : null;
  return match ? match[1] : null;
}
