/**
 * A loopback server that misbehaves the ways a vendor, a token endpoint or a collector may:
 *
 * - `/vendor/…`: an OpenAI-compatible chat stream (POST) and a round-trip answer (GET) whose Server-Timing
 *   names a fresh random metric on every response (`q<hex>;dur=1.5`, its largest claim), beside a name too
 *   long, a name of odd characters, and more metrics than a sample keeps.
 * - `/token/stall`: accepts the request and never answers.
 * - `/reject/<n>/<echo>`: answers 401 with what it was sent (`authorization`: that header; `url`: the
 *   request's URL), then `n` dots, then the same again: a receiver that echoes a credential in its error.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomBytes } from 'node:crypto';

export interface HostileServer {
  url: string;
  /** Responses the vendor routes sent, and the random metric names they carried. */
  names: string[];
  close(): Promise<void>;
}

/** The server's time before its headers: every claim it makes (at most 1.5 ms) stays below it, so each is plausible. */
const HEADERS_AFTER_MS = 3;
/** Metrics beyond the random one: more than a sample keeps (MAX_SERVER_TIMING_METRICS). */
const EXTRA_METRICS = 24;

const chunk = (delta: object, extra: object = {}) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;

/** A fresh random metric, the largest plausible claim among those kept, beside what a sample must not keep. */
function serverTiming(names: string[]): string {
  const name = `q${randomBytes(6).toString('hex')}`;
  names.push(name);
  const extras = Array.from({ length: EXTRA_METRICS }, (_, i) => `m${i};dur=0.${String(i).padStart(2, '0')}`);
  return [`${name};dur=1.5`, `${'x'.repeat(80)};dur=1.2`, `odd!name;dur=1.2`, ...extras].join(', ');
}

export async function startHostileServer(): Promise<HostileServer> {
  const names: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname === '/token/stall') return; // never answers
      const reject = /^\/reject\/(\d+)\/(authorization|url)(\/|$)/.exec(url.pathname);
      if (reject) {
        const echoed = reject[2] === 'url' ? `http://${req.headers.host}${req.url}` : String(req.headers.authorization ?? '');
        res.writeHead(401, { 'content-type': 'text/plain' }).end(`${echoed}${'.'.repeat(Number(reject[1]))}${echoed}`);
        return;
      }
      if (!url.pathname.startsWith('/vendor/')) {
        res.writeHead(404).end();
        return;
      }
      setTimeout(() => {
        if (req.method === 'GET') {
          res.writeHead(200, { 'content-type': 'application/json', 'server-timing': serverTiming(names) }).end('{"data":[]}');
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream', 'server-timing': serverTiming(names) });
        res.write(chunk({ role: 'assistant', content: 'Hi' }));
        res.write(chunk({ content: ' there' }));
        res.write(
          chunk({}, { usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } }).replace(
            '"finish_reason":null',
            '"finish_reason":"stop"',
          ),
        );
        res.end('data: [DONE]\n\n');
      }, HEADERS_AFTER_MS);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    names,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
