/** Splitting TTFT into network and server time (MEASUREMENT.md, "Splitting TTFT" and "Plausibility"). */
import { CLOCK_RESOLUTION_MS } from '../constants.ts';
import type { TimingClaim } from './server-timing.ts';

export interface SplitInput {
  ttftMs: number | null;
  headersMs: number | null;
  /** (1) claims of server time until headers, from headers. */
  headerClaims: readonly TimingClaim[];
  /** (2) server-reported time to first token, from the body (or Fireworks' header). */
  serverTtftMs: number | null;
  serverTtftSource: string | null;
  /** (3) round trip to the same origin, and why any of its own claims were set aside. */
  rttMs: number | null;
  rttNote?: string | null;
}

export interface Split {
  /** The header claim used: the largest plausible one. */
  server_headers_ms: number | null;
  network_ms: number | null;
  server_ms: number | null;
  residual_ms: number | null;
  split_source: string | null;
  /** Which claims were set aside and why; null when every claim was usable. */
  split_note: string | null;
}

/**
 * A negative residual this large (a share of TTFT, and beyond two clock readings' rounding) means the
 * body's server time and the other source disagree: the sample notes it. Smaller ones are jitter.
 */
export const LARGE_RESIDUAL_SHARE = 0.1;

const fmt = (ms: number): string => String(Math.round(ms * 10) / 10);

/**
 * The largest claim that does not exceed what the client observed (beyond the clock's resolution);
 * a claim within the resolution above it counts as exactly the observed time. Notes each claim set aside.
 */
export function largestPlausible(
  claims: readonly TimingClaim[],
  observedMs: number,
  observedName: string,
  notes: string[],
): TimingClaim | null {
  let best: TimingClaim | null = null;
  for (const c of claims) {
    if (c.ms > observedMs + CLOCK_RESOLUTION_MS) {
      notes.push(`${c.source} ${fmt(c.ms)} ms > ${observedName} ${fmt(observedMs)} ms, set aside`);
      continue;
    }
    if (best === null || c.ms > best.ms) best = c;
  }
  return best === null ? null : { source: best.source, ms: Math.min(best.ms, observedMs) };
}

export function splitTtft(i: SplitInput): Split {
  const notes: string[] = [];
  const header = i.headersMs === null ? null : largestPlausible(i.headerClaims, i.headersMs, 'headers_ms', notes);
  /** `serverTtft`: the body's claim to compare with, for the residual (null when the split is the body's own). */
  const result = (network: number | null, source: string | null, serverTtft: number | null): Split => {
    const ttft = i.ttftMs;
    const split: Split = {
      server_headers_ms: header?.ms ?? null,
      network_ms: null,
      server_ms: null,
      residual_ms: null,
      split_source: null,
      split_note: null,
    };
    if (ttft !== null && network !== null) {
      split.network_ms = Math.min(Math.max(network, 0), ttft);
      split.server_ms = ttft - split.network_ms;
      split.split_source = source;
      if (serverTtft !== null) {
        split.residual_ms = ttft - split.network_ms - serverTtft;
        if (split.residual_ms < -Math.max(2 * CLOCK_RESOLUTION_MS, LARGE_RESIDUAL_SHARE * ttft)) {
          notes.push(`residual ${fmt(split.residual_ms)} ms: ${source} and ${i.serverTtftSource} disagree`);
        }
      }
    }
    split.split_note = notes.length > 0 ? notes.join('; ') : null;
    return split;
  };

  const ttft = i.ttftMs;
  let serverTtft: number | null = null;
  if (i.serverTtftMs !== null && ttft !== null) {
    const body = largestPlausible([{ source: i.serverTtftSource ?? 'body', ms: i.serverTtftMs }], ttft, 'ttft_ms', notes);
    serverTtft = body?.ms ?? null;
  }
  if (ttft === null) return result(null, null, null);
  if (header !== null && i.headersMs !== null) return result(i.headersMs - header.ms, header.source, serverTtft);
  if (i.rttMs !== null) {
    if (i.rttNote) notes.push(i.rttNote);
    if (i.rttMs < -CLOCK_RESOLUTION_MS) notes.push(`rtt ${fmt(i.rttMs)} ms is negative, set aside`);
    else if (i.rttMs > ttft + CLOCK_RESOLUTION_MS) notes.push(`rtt ${fmt(i.rttMs)} ms > ttft_ms ${fmt(ttft)} ms, set aside`);
    else return result(i.rttMs, 'rtt', serverTtft);
  }
  // Only the body's own report: everything it does not account for lies outside the server.
  if (serverTtft !== null) return result(ttft - serverTtft, i.serverTtftSource ?? 'body', null);
  return result(null, null, null);
}
