import { RTT_PROBE_COUNT, DEFAULT_TIMEOUTS } from './constants.ts';
import { readHeaderTimings } from './header-timings.ts';
import { protocolFor } from './protocols/index.ts';
import type { Clock, FetchLike, ProbeTarget } from './types.ts';

export interface RttResult {
  /** Minimum over the requests of headers_ms − server_headers_ms; null when none answered. */
  rttMs: number | null;
  url: string;
  samples: number[];
}

export interface RttOptions {
  target: ProbeTarget;
  fetch?: FetchLike;
  now?: Clock;
  count?: number;
  timeoutMs?: number;
}

/**
 * Round-trip probe (MEASUREMENT.md (3)): a few tiny GETs to a cheap URL on the target's origin,
 * each taken as headers_ms minus any server time the response reports. Also warms the connection.
 */
export async function measureRtt(o: RttOptions): Promise<RttResult> {
  const fetchFn: FetchLike = o.fetch ?? ((input, init) => fetch(input, init));
  const now = o.now ?? (() => performance.now());
  const protocol = protocolFor(o.target.api);
  const built = protocol.buildRequest({ target: o.target, prompt: '', maxTokens: 1 });
  const url = protocol.rttUrl(built.url);
  const headers = new Headers(built.init.headers);
  headers.delete('content-type');
  const samples: number[] = [];
  for (let i = 0; i < (o.count ?? RTT_PROBE_COUNT); i++) {
    try {
      const signal = AbortSignal.timeout(o.timeoutMs ?? DEFAULT_TIMEOUTS.headersMs);
      const t0 = now();
      const response = await fetchFn(url, { method: 'GET', headers, signal });
      const elapsed = now() - t0;
      response.body?.cancel().catch(() => {});
      const server = readHeaderTimings(response.headers, o.target.serverTimingMetrics).serverHeadersMs ?? 0;
      samples.push(elapsed - server);
    } catch {
      // an origin that does not answer leaves the split to the other sources
    }
  }
  return { rttMs: samples.length > 0 ? Math.min(...samples) : null, url, samples };
}
