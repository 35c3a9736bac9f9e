/**
 * Serves a built site from a folder on 127.0.0.1 (directory URLs → index.html); the folder can be
 * swapped after a rebuild. Whatever path or bytes a client sends, it answers (400, 404 with the built
 * 404 page, 405, or the file) and never throws.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
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

export async function serveStatic(root: string, port = 0): Promise<StaticServer> {
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return void res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed');
    const path = requestPath(req.url);
    if (path === null) return void res.writeHead(400, { 'content-type': 'text/plain' }).end('bad request path');
    const file = await fileIn(root, path);
    if (file) return send(res, 200, file, req.method === 'HEAD');
    const notFound = await fileIn(root, NOT_FOUND_PAGE);
    if (notFound) return send(res, 404, notFound, req.method === 'HEAD');
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
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
