/**
 * A loopback server that replays real recorded provider streams (tests/fixtures/provider-streams)
 * and knows when it really sent each first token: it sends the headers and every event before the
 * first token at once, waits `prefillMs`, writes the event that carries the first token and records
 * the epoch time (performance.timeOrigin + performance.now()) its write returned, then the rest
 * `gapMs` apart. GET requests (the round-trip probe) get a small JSON answer at once.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { protocolFor } from '../../shared/probe/protocols/index.ts';
import { StreamMeter } from '../../shared/probe/stream-meter.ts';
import { apiIdOf, type Fixture } from './fixtures.ts';

export interface ReplayRecord {
  /** The route key the request was served under (e.g. a fixture name, or region/api). */
  key: string;
  /** The request body's `model`, where it names one (several targets may share a path). */
  model: string | null;
  arrivedAt: number;
  /** Epoch ms when the write of the first token's event returned; null for a stream without one. */
  firstTokenAt: number | null;
  /** Epoch ms just before that write began: no client can have the token earlier (on a busy machine the
   * server may be descheduled after the write, so only this bound holds from below). */
  firstTokenWriteStartAt: number | null;
}

export interface ReplayTruthServer {
  url: string;
  records: ReplayRecord[];
  close(): Promise<void>;
}

/**
 * What a request path replays: the fixture and the key its records carry; null is a 404.
 * `holdHeaders`: the headers wait for the first token and leave with everything before it in one
 * write (as servers that answer only once the first token exists, e.g. the reference's slow model).
 */
export type ReplayRoute = (pathname: string) => { key: string; fixture: Fixture; holdHeaders?: boolean } | null;

const epochNow = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const encoder = new TextEncoder();
/** Headers that described the recorded transfer, not this one. */
const HOP_BY_HOP = new Set(['content-length', 'transfer-encoding', 'content-encoding', 'connection', 'keep-alive']);
/** Events after the first token sent `gapMs` apart; the rest go out at once, so long recordings stay quick. */
const PACED_EVENTS = 12;

/** The recording's body cut at event boundaries (SSE blank lines, or NDJSON lines). */
export function recordedEvents(f: Fixture): string[] {
  const framing = protocolFor(apiIdOf(f)).framing;
  return f.response.body.split(framing === 'sse' ? /(?<=\r\n\r\n|\n\n)/ : /(?<=\n)/).filter((e) => e !== '');
}

/** Index of the first event that carries generated output, by the probe's own reader; -1 when none does. */
export function firstTokenEvent(f: Fixture, events: string[]): number {
  const meter = new StreamMeter(protocolFor(apiIdOf(f)));
  for (let i = 0; i < events.length; i++) {
    meter.onRead(encoder.encode(events[i]), i);
    if (meter.state.readHasToken) return i;
  }
  return -1;
}

export async function startReplayTruthServer(route: ReplayRoute, opts: { prefillMs: number; gapMs: number }): Promise<ReplayTruthServer> {
  const records: ReplayRecord[] = [];
  const prepared = new Map<string, { events: string[]; first: number; headers: Record<string, string> }>();
  const prepare = (f: Fixture) => {
    let p = prepared.get(f.name);
    if (!p) {
      const events = recordedEvents(f);
      const headers = Object.fromEntries(Object.entries(f.response.headers).filter(([k]) => !HOP_BY_HOP.has(k)));
      prepared.set(f.name, (p = { events, first: firstTokenEvent(f, events), headers }));
    }
    return p;
  };
  const server: Server = createServer(async (req, res) => {
    const arrivedAt = epochNow();
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}');
      return;
    }
    let body = '';
    for await (const chunk of req) body += chunk;
    let model: string | null = null;
    try {
      const m = (JSON.parse(body) as { model?: unknown }).model;
      if (typeof m === 'string') model = m;
    } catch {
      // not JSON: no model to key on
    }
    const found = route(url.pathname);
    if (!found) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"no recording here"}');
      return;
    }
    const { events, first, headers } = prepare(found.fixture);
    const record: ReplayRecord = { key: found.key, model, arrivedAt, firstTokenAt: null, firstTokenWriteStartAt: null };
    records.push(record);
    const opening = events.slice(0, Math.max(first, 0)).join('');
    if (found.holdHeaders && first !== -1) {
      await sleep(opts.prefillMs);
      res.writeHead(found.fixture.response.status, headers);
      record.firstTokenWriteStartAt = epochNow();
      res.write(opening + events[first]);
    } else {
      res.writeHead(found.fixture.response.status, headers);
      res.flushHeaders();
      if (opening) res.write(opening);
      if (first === -1) {
        res.end(events.join(''));
        return;
      }
      await sleep(opts.prefillMs);
      record.firstTokenWriteStartAt = epochNow();
      res.write(events[first]);
    }
    record.firstTokenAt = epochNow(); // after write(): the bytes are with the kernel
    for (let i = first + 1; i < events.length; i++) {
      if (i - first <= PACED_EVENTS) await sleep(opts.gapMs);
      if (res.destroyed) return;
      res.write(i - first < PACED_EVENTS ? events[i] : events.slice(i).join(''));
      if (i - first >= PACED_EVENTS) break;
    }
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    records,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
