import { RTT_PROBE_COUNT, DEFAULT_TIMEOUTS } from '../constants.ts';
import { readHeaderTimings } from './header-timings.ts';
import { largestPlausible } from './ttft-split.ts';
import { protocolFor } from './protocols/index.ts';
import type { Clock, FetchLike, ProbeTarget } from '../types.ts';

/** A round-trip answer larger than this is cut off (its connection then is not reused). */
const RTT_BODY_LIMIT_BYTES = 1024 * 1024;

async function drain(response: Response, limit: number): Promise<void> {
  if (!response.body) return;
  const reader = response.body.getReader();
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      bytes += value.byteLength;
      if (bytes > limit) {
        await reader.cancel();
        return;
      }
    }
  } catch {
    // a broken body still gave its timing
  }
}

export interface RttResult {
  /** Minimum over the requests of headers_ms − server_headers_ms; null when none answered. */
  rttMs: number | null;
  url: string;
  samples: number[];
  /** Server claims of the round-trip requests that exceeded their own round trip and were set aside. */
  note: string | null;
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
 * each taken as headers_ms minus any server time the response reports; the minimum is kept, so the
 * first request's connection setup drops out. It also warms the connection the probe then reuses.
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
  const notes: string[] = [];
  for (let i = 0; i < (o.count ?? RTT_PROBE_COUNT); i++) {
    try {
      const signal = AbortSignal.timeout(o.timeoutMs ?? DEFAULT_TIMEOUTS.headersMs);
      const t0 = now();
      const response = await fetchFn(url, { method: 'GET', headers, signal, redirect: 'manual' });
      const elapsed = now() - t0;
      // Read the (small) body to its end: cancelling it would close the connection, and the next
      // request, the probe's included, would pay a new handshake inside its round trip.
      await drain(response, RTT_BODY_LIMIT_BYTES);
      // An impossible claim (more server time than the whole round trip) is set aside, as in the split.
      const claim = largestPlausible(
        readHeaderTimings(response.headers, o.target.serverTimingMetrics).claims,
        elapsed,
        'its round trip',
        notes,
      );
      samples.push(elapsed - (claim?.ms ?? 0));
    } catch {
      // an origin that does not answer leaves the split to the other sources
    }
  }
  const note = notes.length > 0 ? `round trip: ${[...new Set(notes)].join('; ')}` : null;
  return { rttMs: samples.length > 0 ? Math.min(...samples) : null, url, samples, note };
}
