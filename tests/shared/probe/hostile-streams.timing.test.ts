/**
 * What a hostile or broken server sends, over real loopback HTTP to the CLI's fetch: each probe ends
 * within its timeouts with exactly one sample of the right class, and its CPU time and memory stay
 * bounded. A timing test (the `timing` project): the bounds are loose (seconds, hundreds of MiB), far
 * above what the linear, capped reader needs and far below what a quadratic decoder (about 12 s for a
 * 12 MiB line here) or a body held whole in memory (256 MiB inflated) would take.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { runProbe } from '../../../shared/probe/probe.ts';
import { arrivalOf, nodeFetch } from '../../../cli/node-fetch.ts';
import type { ErrorClass } from '../../../shared/types.ts';

const CPU_BOUND_MS = 5_000;
const MEMORY_BOUND_BYTES = 150 * 1024 * 1024;
const MiB = 1024 * 1024;
const TIMEOUTS = { headersMs: 1_000, firstTokenMs: 2_000, idleMs: 1_000, totalMs: 4_000 };

const token = (content: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`;
const DONE = `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`;

/** Writes `count` pieces as fast as the client reads them (back-pressure), then ends unless told to hang. */
function pump(res: ServerResponse, piece: Buffer | string, count: number, end = true): void {
  let sent = 0;
  const more = (): void => {
    while (sent < count) {
      sent++;
      if (!res.write(piece)) return void res.once('drain', more);
    }
    if (end) res.end();
  };
  res.on('close', () => (sent = count));
  more();
}

const timers = new Set<NodeJS.Timeout>();
const ROUTES: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  '/long-line': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`${token('a')}data: {"choices":"`);
    pump(res, 'x'.repeat(64 * 1024), 192); // 12 MiB, no newline
  },
  '/gzip-bomb': (_req, res) => {
    // 256 concatenated gzip members of 1 MiB of comment lines each: about 256 MiB once inflated.
    res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
    res.write(gzipSync(token('a')));
    pump(res, gzipSync(': keep-alive\n'.repeat(MiB / 13)), 256);
  },
  '/deep-error': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`${token('a')}data: {"error":{"message":${'['.repeat(200_000)}${']'.repeat(200_000)}}}\n\n`);
  },
  '/never-ends': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(token('a'));
    const keepAlive = setInterval(() => res.write(': still here\n\n'), 100);
    timers.add(keepAlive);
    res.on('close', () => clearInterval(keepAlive));
  },
  '/no-headers': () => {},
  '/comment-flood': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(token('a'));
    const flood = ': x\n'.repeat((64 * 1024) / 4);
    let sent = 0;
    const more = (): void => {
      while (sent < 128) {
        // 8 MiB of comment lines between two tokens
        sent++;
        if (!res.write(flood)) return void res.once('drain', more);
      }
      res.end(token('b') + DONE);
    };
    more();
  },
  '/big-token': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(token('a') + token('y'.repeat(6 * MiB)) + DONE);
  },
};

let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => ROUTES[new URL(req.url!, 'http://x').pathname]?.(req, res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const t of timers) clearInterval(t);
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

async function probe(path: string) {
  const cpu = process.cpuUsage();
  const memory = process.memoryUsage();
  const { sample } = await runProbe({
    target: { id: 't', api: 'openai-chat', url: `${base}${path}`, model: 'm' },
    prompt: { id: 'p', promptTokens: 16, maxTokens: 8 },
    fetch: nodeFetch,
    arrivalOf,
    timeouts: TIMEOUTS,
  });
  const used = process.cpuUsage(cpu);
  const after = process.memoryUsage();
  return {
    sample,
    cpuMs: (used.user + used.system) / 1000,
    grewBytes: Math.max(0, after.heapUsed + after.arrayBuffers - memory.heapUsed - memory.arrayBuffers),
  };
}

const CASES: Array<[string, string, ErrorClass | null, string | null]> = [
  ['a 12 MiB line without a newline', '/long-line', 'protocol', 'a line over the 1024 KiB cap'],
  ['a 256 MiB gzip bomb', '/gzip-bomb', 'protocol', 'response larger than 16777216 bytes'],
  ['an error event nested 200,000 deep', '/deep-error', 'stream_error', 'too deeply nested'],
  ['a stream that never ends', '/never-ends', 'stall', null],
  ['no headers', '/no-headers', 'timeout_headers', null],
  ['a comment flood (8 MiB of comment lines between two tokens)', '/comment-flood', null, null],
  ['a single 6 MiB token', '/big-token', 'protocol', 'a line over the 1024 KiB cap'],
];

describe('hostile streams end as one sample, within bounded CPU and memory', () => {
  for (const [name, path, error, detail] of CASES) {
    it(name, async () => {
      const { sample, cpuMs, grewBytes } = await probe(path);
      expect(sample.error, sample.error_detail ?? '').toBe(error);
      if (detail !== null) expect(sample.error_detail).toContain(detail);
      expect(sample.total_ms === null || sample.total_ms <= TIMEOUTS.totalMs + 1_000).toBe(true);
      expect(cpuMs, `${cpuMs.toFixed(0)} ms of CPU`).toBeLessThan(CPU_BOUND_MS);
      expect(grewBytes, `${(grewBytes / MiB).toFixed(0)} MiB more memory`).toBeLessThan(MEMORY_BOUND_BYTES);
    });
  }
});
