/**
 * Serves a built site from a folder on 127.0.0.1 (directory URLs → index.html); the folder can be
 * swapped after a rebuild. With `proxy`, the paths under a prefix are passed to another server on
 * loopback (the demo's /archive/, from the observatory's local R2), byte ranges and all. Whatever path or bytes a client sends, it answers (400, 404 with the built
 * 404 page, 405, or the file) and never throws.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import type { AddressInfo } from 'node:net';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.json': 'application/json',
  '.csv': 'text/csv',
  '.svg': 'image/svg+xml',
};
const NOT_FOUND_PAGE = '404.html';

export interface StaticServer {
  url: string;
  setRoot(root: string): void;
  close(): Promise<void>;
}

/** The request's path, decoded, or null when it is not a path this server can look up. */
export function requestPath(rawUrl: string | undefined): string | null {
  const raw = (rawUrl ?? '/').split(/[?#]/)[0];
  if (!raw.startsWith('/')) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return null;
  }
  return decoded.includes('\0') ? null : normalize(decoded);
}

async function fileIn(root: string, path: string): Promise<string | null> {
  let file = join(root, path);
  if (file !== root && !file.startsWith(root.endsWith(sep) ? root : root + sep)) return null;
  try {
    if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
    await stat(file);
    return file;
  } catch {
    return null;
  }
}

async function send(res: ServerResponse, status: number, file: string, head: boolean): Promise<void> {
  const body = await readFile(file);
  res.writeHead(status, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'content-length': body.length });
  res.end(head ? undefined : body);
}

/** Request headers passed on to the proxied server, and its response headers passed back. */
const PROXIED_REQUEST = ['range', 'if-range', 'if-none-match', 'if-match', 'if-modified-since'];
const PROXIED_RESPONSE = [
  'content-type',
  'content-length',
  'content-range',
  'accept-ranges',
  'etag',
  'last-modified',
  'cache-control',
  'access-control-allow-origin',
  'access-control-expose-headers',
  'retry-after',
];

export interface Proxy {
  /** A path prefix, such as "/archive/". */
  prefix: string;
  /** The origin it is passed to (loopback), such as localUrl('api') of shared/net/local-ports.ts. */
  to: string;
}

/** How long the proxied server may take to answer (its headers); the body then streams as fast as the client reads. */
const PROXY_ANSWER_MS = 30_000;

async function pass(req: IncomingMessage, res: ServerResponse, proxy: Proxy, path: string): Promise<void> {
  // The bytes as stored: fetch would otherwise ask for a compressed answer and decode it, beside its content-length.
  const headers: Record<string, string> = { 'accept-encoding': 'identity' };
  for (const name of PROXIED_REQUEST) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error(`no answer within ${PROXY_ANSWER_MS / 1000} s`)), PROXY_ANSWER_MS);
  let answer: Response;
  try {
    answer = await fetch(new URL(path, proxy.to), { method: req.method, headers, signal: abort.signal });
  } catch (e) {
    return void res.writeHead(502, { 'content-type': 'text/plain' }).end(`${proxy.prefix} is not reachable: ${(e as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
  const out: Record<string, string> = {};
  for (const name of PROXIED_RESPONSE) {
    const value = answer.headers.get(name);
    if (value !== null) out[name] = value;
  }
  res.writeHead(answer.status, out);
  if (req.method === 'HEAD' || !answer.body) return void res.end();
  // Backpressure from the client; a client that goes away cancels the upstream body (and a failure mid-body
  // destroys the response, never ends it as if it were whole).
  await pipeline(Readable.fromWeb(answer.body as import('node:stream/web').ReadableStream), res);
}

export async function serveStatic(root: string, port = 0, proxy?: Proxy): Promise<StaticServer> {
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return void res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed');
    const path = requestPath(req.url);
    if (path === null) return void res.writeHead(400, { 'content-type': 'text/plain' }).end('bad request path');
    // The path as normalised above (no way out of the prefix); the query is not passed on.
    if (proxy && path.startsWith(proxy.prefix)) return pass(req, res, proxy, encodeURI(path));
    const file = await fileIn(root, path);
    if (file) return send(res, 200, file, req.method === 'HEAD');
    const notFound = await fileIn(root, NOT_FOUND_PAGE);
    if (notFound) return send(res, 404, notFound, req.method === 'HEAD');
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      // Past the headers a body cut short must not look whole: the connection is dropped.
      if (res.headersSent) return void res.destroy();
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end();
    });
  });
  server.on('clientError', (_e, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setRoot: (next) => (root = next),
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
