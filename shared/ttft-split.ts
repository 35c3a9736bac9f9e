/** Splitting TTFT into network and server time (MEASUREMENT.md, "Splitting TTFT"). */
export interface SplitInput {
  ttftMs: number | null;
  headersMs: number | null;
  /** (1) server time until headers, from headers, and which header it came from. */
  serverHeadersMs: number | null;
  serverHeadersSource: string | null;
  /** (2) server-reported time to first token, from the body (or Fireworks' header). */
  serverTtftMs: number | null;
  serverTtftSource: string | null;
  /** (3) round trip to the same origin. */
  rttMs: number | null;
}

export interface Split {
  network_ms: number | null;
  server_ms: number | null;
  residual_ms: number | null;
  split_source: string | null;
}

const NO_SPLIT: Split = { network_ms: null, server_ms: null, residual_ms: null, split_source: null };

export function splitTtft(i: SplitInput): Split {
  if (i.ttftMs === null) return NO_SPLIT;
  let network: number;
  let source: string;
  let residual: number | null = null;
  if (i.serverHeadersMs !== null && i.headersMs !== null) {
    network = i.headersMs - i.serverHeadersMs;
    source = i.serverHeadersSource ?? 'headers';
  } else if (i.rttMs !== null) {
    network = i.rttMs;
    source = 'rtt';
  } else if (i.serverTtftMs !== null) {
    // Only the body's own report: everything it does not account for is outside the server.
    network = i.ttftMs - i.serverTtftMs;
    return { network_ms: network, server_ms: i.serverTtftMs, residual_ms: null, split_source: i.serverTtftSource ?? 'body' };
  } else {
    return NO_SPLIT;
  }
  if (i.serverTtftMs !== null) residual = i.ttftMs - network - i.serverTtftMs;
  return { network_ms: network, server_ms: i.ttftMs - network, residual_ms: residual, split_source: source };
}
