/**
 * The round-trip probe keeps its connection, so its minimum excludes connection setup and the probe
 * reuses it. A timing test: it runs alone (the `timing` project). Its bounds are what a definition
 * error breaks (a new connection through the proxy costs a whole extra round trip), not what load does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { measureRtt } from '../../../shared/probe/rtt.ts';
import { runProbe } from '../../../shared/probe/probe.ts';
import { nodeFetch } from '../../../cli/node-fetch.ts';
import { startDelayProxy, type DelayProxy } from '../../../scripts/delay-proxy.ts';

let server: Server;
let proxy: DelayProxy;
const requests: Array<{ method: string; port: number }> = [];
const ADDED_RTT_MS = 60;
const SERVER_MS = 20;
/** Below one more round trip: a handshake inside the measurement would exceed it. */
const WITHOUT_HANDSHAKE_MS = ADDED_RTT_MS * 1.8;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push({ method: req.method!, port: req.socket.remotePort! });
    if (req.method === 'GET')
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ data: Array.from({ length: 200 }, (_, i) => ({ id: `m${i}` })) }));
    // Some server time before the answer, so the round trip is plainly shorter than TTFT (a round trip
    // longer than TTFT is set aside as implausible).
    req.resume().on('end', () =>
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(
          `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`,
        );
      }, SERVER_MS),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  proxy = await startDelayProxy(new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`), ADDED_RTT_MS);
});
afterAll(async () => {
  await proxy.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('round-trip probe', () => {
  for (const [name, fetchFn] of [
    ['node:http', nodeFetch],
    ['fetch (undici)', undefined],
  ] as const) {
    it(`keeps one connection and measures the round trip without the handshake (${name})`, async () => {
      requests.length = 0;
      const target = {
        id: 't',
        api: 'openai-chat' as const,
        url: `${proxy.url}/v1/chat/completions`,
        model: 'm',
        serverTimingMetrics: ['none'],
      };
      const rtt = await measureRtt({ target, fetch: fetchFn, count: 3 });
      expect(rtt.samples).toHaveLength(3);
      expect(rtt.rttMs!).toBeGreaterThanOrEqual(ADDED_RTT_MS);
      expect(rtt.rttMs!).toBeLessThan(WITHOUT_HANDSHAKE_MS);
      const { sample } = await runProbe({
        target,
        prompt: { id: 'p', promptTokens: 8, maxTokens: 4 },
        fetch: fetchFn,
        rttMs: rtt.rttMs,
        warm: true,
      });
      expect(sample).toMatchObject({ error: null, split_source: 'rtt' });
      expect(sample.headers_ms!).toBeLessThan(WITHOUT_HANDSHAKE_MS + SERVER_MS);
      expect(sample.server_ms!).toBeGreaterThanOrEqual(0);
      // The probe's POST went over a connection a round-trip GET had opened (undici may open a second
      // one while the first is being released; node:http keeps to one).
      const getPorts = requests.filter((r) => r.method === 'GET').map((r) => r.port);
      const post = requests.find((r) => r.method === 'POST')!;
      expect(getPorts).toContain(post.port);
      expect(new Set(requests.map((r) => r.port)).size).toBeLessThanOrEqual(name === 'node:http' ? 1 : 2);
    });
  }
});
