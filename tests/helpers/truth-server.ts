/**
 * A streaming server on loopback whose true send times are known: it records, for every completion,
 * the epoch time (performance.timeOrigin + performance.now()) at which its write of the first token
 * returned, and reports in Server-Timing exactly the time it spent before sending its headers.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TruthServer {
  url: string;
  /** Epoch ms of each completion's first-token write (when it returned), in arrival order. */
  firstTokenAt: number[];
  /** Epoch ms just before each first-token write began: the bound that holds from below on a busy machine. */
  firstTokenWriteStartAt: number[];
  close(): Promise<void>;
}

const epochNow = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `x-mode: hold` holds the headers until the first token; otherwise headers go out at once. */
export async function startTruthServer(opts: { prefillMs: number; tokens: number; tokenGapMs: number }): Promise<TruthServer> {
  const firstTokenAt: number[] = [];
  const firstTokenWriteStartAt: number[] = [];
  const server: Server = createServer(async (req, res) => {
    const arrived = performance.now();
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json', 'server-timing': `app;dur=${(performance.now() - arrived).toFixed(3)}` });
      res.end('{"data":[]}');
      return;
    }
    for await (const _ of req) {
      /* drain the request body */
    }
    const hold = req.headers['x-mode'] === 'hold';
    const chunk = (content: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
    const sse = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
    if (!hold) {
      res.writeHead(200, { ...sse, 'server-timing': `prefill;dur=${(performance.now() - arrived).toFixed(3)}` });
      res.flushHeaders();
      await sleep(opts.prefillMs);
    } else {
      await sleep(opts.prefillMs);
      res.writeHead(200, { ...sse, 'server-timing': `queue;dur=0, prefill;dur=${(performance.now() - arrived).toFixed(3)}` });
    }
    firstTokenWriteStartAt.push(epochNow());
    res.write(chunk('t0'));
    firstTokenAt.push(epochNow()); // after write(): the bytes are with the kernel
    for (let i = 1; i < opts.tokens; i++) {
      await sleep(opts.tokenGapMs);
      res.write(chunk(` t${i}`));
    }
    res.write(
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'length' }], usage: { prompt_tokens: 64, completion_tokens: opts.tokens } })}\n\n`,
    );
    res.end('data: [DONE]\n\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    firstTokenAt,
    firstTokenWriteStartAt,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
