import { parseServerTiming, serverTimingTotal } from './server-timing.ts';

/** Vendor headers that report server time (ms) spent before the headers were sent. */
const MS_HEADERS = [
  'openai-processing-ms',
  'x-envoy-upstream-service-time',
  'x-kong-upstream-latency',
  'cmp-upstream-response-duration',
] as const;

/** Fireworks reports its server time to first token in a header, in seconds. */
const FIREWORKS_TTFT_HEADER = 'fireworks-server-time-to-first-token';
const MS_PER_S = 1_000;

export interface HeaderTimings {
  /** Every server timing found, by source name. */
  timings: Record<string, number>;
  /** The largest, measured closest to the client; null when there is none. */
  serverHeadersMs: number | null;
  serverHeadersSource: string | null;
  /** A server TTFT reported in headers (Fireworks), ms. */
  serverTtftMs: number | null;
}

export function readHeaderTimings(headers: Headers, serverTimingMetrics?: readonly string[]): HeaderTimings {
  const timings: Record<string, number> = {};
  const st = serverTimingTotal(parseServerTiming(headers.get('server-timing')), serverTimingMetrics);
  if (st !== null) timings['server-timing'] = st;
  for (const name of MS_HEADERS) {
    const value = parseNonNegative(headers.get(name));
    if (value !== null) timings[name] = value;
  }
  let serverHeadersMs: number | null = null;
  let serverHeadersSource: string | null = null;
  for (const [source, ms] of Object.entries(timings)) {
    if (serverHeadersMs === null || ms > serverHeadersMs) {
      serverHeadersMs = ms;
      serverHeadersSource = source;
    }
  }
  const fireworks = parseNonNegative(headers.get(FIREWORKS_TTFT_HEADER));
  return {
    timings,
    serverHeadersMs,
    serverHeadersSource,
    serverTtftMs: fireworks === null ? null : fireworks * MS_PER_S,
  };
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
