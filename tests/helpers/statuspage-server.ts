/**
 * A stand-in for vendors' Atlassian Statuspages on loopback. Each page is a path prefix a test names
 * (`/<page>`), so test files share one server without sharing state. Under
 * `/<page>/api/v2/incidents.json` it answers what that page was last told (`PUT /<page>/_fixture`,
 * a StatuspageFixture as JSON):
 * - `incidents`: a Statuspage v2 incidents list, with an ETag (and Last-Modified) it honours: a request
 *   whose If-None-Match names it gets 304;
 * - `malformed`: a 200 whose body is not JSON;
 * - `huge`: a 200 with `bytes` of valid JSON, streamed (no Content-Length unless `declareLength`);
 * - `slow-headers`: the answer after `delayMs`; `slow-body`: headers at once, the rest of the body after `delayMs`;
 * - `status`: that HTTP status, always.
 * `GET /<page>/_hits` lists the requests the page had (the conditional headers each sent).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StatuspageFixture, StatuspageHit } from './statuspage-fixtures.ts';

export interface StatuspageServer {
  url: string;
  /** Sets a page's answer directly (tests in Node; tests in workerd PUT it). */
  set(page: string, fixture: StatuspageFixture): void;
  hits(page: string): StatuspageHit[];
  close(): Promise<void>;
}

const PAGE_INFO = {
  id: 'page0test',
  name: 'Test vendor',
  url: 'https://status.example.com',
  time_zone: 'Etc/UTC',
  updated_at: '2026-01-01T00:00:00Z',
};
const listOf = (incidents: unknown[]) => JSON.stringify({ page: PAGE_INFO, incidents });

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** `bytes` of valid JSON, written a chunk at a time until the client stops reading or it is all sent. */
function streamHuge(res: ServerResponse, bytes: number): void {
  const head = '{"incidents":[';
  const tail = ']}';
  const filler = JSON.stringify({ id: 'x', name: 'y'.repeat(60_000), created_at: '2026-01-01T00:00:00Z' });
  let sent = head.length;
  res.write(head);
  let first = true;
  const more = () => {
    while (!res.destroyed && sent + filler.length + 1 + tail.length <= bytes) {
      const chunk = (first ? '' : ',') + filler;
      first = false;
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', more);
    }
    if (!res.destroyed) res.end(' '.repeat(Math.max(0, bytes - sent - tail.length)) + tail);
  };
  more();
}

export async function startStatuspageServer(): Promise<StatuspageServer> {
  const fixtures = new Map<string, StatuspageFixture>();
  const hits = new Map<string, StatuspageHit[]>();
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, f: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      f();
    }, ms);
    timers.add(t);
  };

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const m = /^\/([A-Za-z0-9_-]+)(\/.*)$/.exec(url.pathname);
    if (!m) return void res.writeHead(404).end();
    const [, page, rest] = m;
    if (rest === '/_fixture' && req.method === 'PUT') {
      fixtures.set(page, JSON.parse(await readBody(req)) as StatuspageFixture);
      return void res.writeHead(204).end();
    }
    if (rest === '/_hits') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify(hits.get(page) ?? []));
    }
    if (rest !== '/api/v2/incidents.json') return void res.writeHead(404).end();
    const f = fixtures.get(page) ?? { mode: 'status', status: 404 };
    const hit: StatuspageHit = {
      at: Date.now(),
      ifNoneMatch: (req.headers['if-none-match'] as string | undefined) ?? null,
      ifModifiedSince: (req.headers['if-modified-since'] as string | undefined) ?? null,
      answered: 200,
    };
    hits.set(page, [...(hits.get(page) ?? []), hit]);
    const json = { 'content-type': 'application/json; charset=utf-8' };
    switch (f.mode) {
      case 'incidents': {
        if (f.etag && hit.ifNoneMatch === f.etag) {
          hit.answered = 304;
          return void res.writeHead(304, { etag: f.etag }).end();
        }
        const validators = { ...(f.etag ? { etag: f.etag } : {}), ...(f.lastModified ? { 'last-modified': f.lastModified } : {}) };
        res.writeHead(200, { ...json, ...validators });
        return void res.end(listOf(f.incidents));
      }
      case 'malformed':
        res.writeHead(200, json);
        return void res.end('{"page": {"id": "page0test"}, "incidents": [{"id": "a1", "name": "cut off');
      case 'huge':
        res.writeHead(200, { ...json, ...(f.declareLength ? { 'content-length': String(f.bytes) } : {}) });
        return streamHuge(res, f.bytes);
      case 'slow-headers':
        return later(f.delayMs, () => {
          if (res.destroyed) return;
          res.writeHead(200, json);
          res.end(listOf(f.incidents ?? []));
        });
      case 'slow-body': {
        res.writeHead(200, json);
        const body = listOf(f.incidents ?? []);
        res.write(body.slice(0, 10));
        return later(f.delayMs, () => {
          if (!res.destroyed) res.end(body.slice(10));
        });
      }
      case 'status':
        hit.answered = f.status;
        res.writeHead(f.status, { 'content-type': 'text/html' });
        return void res.end(`<html><body>${f.status}: the status page is having a bad day</body></html>`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    set: (page, fixture) => void fixtures.set(page, fixture),
    hits: (page) => hits.get(page) ?? [],
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
