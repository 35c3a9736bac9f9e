/**
 * The local site server answers whatever a client sends (raw bytes on a socket, not a browser's tidy
 * URLs): a malformed path is a 400, a missing one the built 404 page, nothing escapes the folder, and
 * it keeps answering afterwards. One request used to take the whole demo down.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveStatic, type StaticServer } from '../../scripts/static-server.ts';

const root = mkdtempSync(join(tmpdir(), 'static-'));
let server: StaticServer;

/** Sends one raw HTTP request line and returns the status code. */
function raw(requestLine: string): Promise<number> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(`${requestLine}\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n`));
    let data = '';
    socket.on('data', (d) => (data += d));
    socket.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0)));
    socket.on('error', reject);
  });
}

beforeAll(async () => {
  mkdirSync(join(root, 'site', 'data'), { recursive: true });
  writeFileSync(join(root, 'site', 'index.html'), '<h1>home</h1>');
  writeFileSync(join(root, 'site', '404.html'), '<h1>no such page</h1>');
  writeFileSync(join(root, 'site', 'data', 'index.html'), '<h1>data</h1>');
  writeFileSync(join(root, 'secret.txt'), 'outside the site');
  server = await serveStatic(join(root, 'site'));
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

describe('the local site server', () => {
  const cases: Array<[string, number]> = [
    ['GET / HTTP/1.1', 200],
    ['GET /data/ HTTP/1.1', 200],
    ['GET /data HTTP/1.1', 200],
    ['GET // HTTP/1.1', 200],
    ['GET /%zz HTTP/1.1', 400],
    ['GET /%00 HTTP/1.1', 400],
    ['GET /../secret.txt HTTP/1.1', 404],
    ['GET /..%2f..%2fsecret.txt HTTP/1.1', 404],
    ['GET /%2e%2e/secret.txt HTTP/1.1', 404],
    ['GET http://evil.example/ HTTP/1.1', 400],
    ['GET * HTTP/1.1', 400],
    ['GET /nope/ HTTP/1.1', 404],
    ['POST / HTTP/1.1', 405],
    ['GARBAGE', 400],
  ];
  for (const [line, status] of cases) {
    it(`answers ${JSON.stringify(line)} with ${status}, and keeps answering`, async () => {
      expect(await raw(line)).toBe(status);
      expect(await raw('GET / HTTP/1.1')).toBe(200);
    });
  }

  it('serves the built 404 page for an unknown path', async () => {
    const r = await fetch(`${server.url}/no/such/page/`);
    expect(r.status).toBe(404);
    expect(await r.text()).toContain('no such page');
  });
});

describe('the local site server, passing /archive/ on to the API', () => {
  it('passes the method, byte range and the answer through, keeps other paths its own, and says when the API is gone', async () => {
    const seen: Array<{ method: string; url: string; range: string | undefined; encoding: string | undefined }> = [];
    const api = createServer((req, res) => {
      seen.push({ method: req.method!, url: req.url!, range: req.headers.range, encoding: req.headers['accept-encoding'] });
      const body = 'PAR1-body-PAR1';
      if (req.headers.range === 'bytes=-4') {
        res.writeHead(206, {
          'content-type': 'application/vnd.apache.parquet',
          'content-range': `bytes 10-13/${body.length}`,
          'accept-ranges': 'bytes',
          'x-internal': 'no',
        });
        return void res.end(body.slice(-4));
      }
      res.writeHead(200, { 'content-type': 'application/vnd.apache.parquet', 'content-length': body.length, etag: '"e1"' });
      res.end(req.method === 'HEAD' ? undefined : body);
    });
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
    const to = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    const site = await serveStatic(join(root, 'site'), 0, { prefix: '/archive/', to });
    try {
      const key = 'samples/day=2026-11-30/region=weur.parquet';
      const whole = await fetch(`${site.url}/archive/${key}?x=1`);
      expect([whole.status, whole.headers.get('etag'), await whole.text()]).toEqual([200, '"e1"', 'PAR1-body-PAR1']);
      const tail = await fetch(`${site.url}/archive/${key}`, { headers: { range: 'bytes=-4' } });
      expect([tail.status, tail.headers.get('content-range'), tail.headers.get('x-internal'), await tail.text()]).toEqual([
        206,
        'bytes 10-13/14',
        null,
        'PAR1',
      ]);
      const head = await fetch(`${site.url}/archive/${key}`, { method: 'HEAD' });
      expect([head.status, head.headers.get('content-length')]).toEqual([200, '14']);
      expect(seen.map((s) => [s.method, s.url, s.range])).toEqual([
        ['GET', `/archive/${key}`, undefined],
        ['GET', `/archive/${key}`, 'bytes=-4'],
        ['HEAD', `/archive/${key}`, undefined],
      ]);
      // The stored bytes, uncompressed: the content-length passed back is theirs.
      for (const s of seen) expect(s.encoding).toMatch(/^identity(, identity)*$/);
      // A path that normalises out of the prefix is the site's own (its 404), never passed on.
      expect((await fetch(`${site.url}/archive/..%2fsecret.txt`)).status).toBe(404);
      expect(seen).toHaveLength(3);
      expect(await (await fetch(`${site.url}/data/`)).text()).toBe('<h1>data</h1>');
      await new Promise((r) => api.close(r));
      const gone = await fetch(`${site.url}/archive/${key}`);
      expect(gone.status).toBe(502);
      expect(await gone.text()).toMatch(/\/archive\/ is not reachable/);
    } finally {
      await site.close();
      api.close();
    }
  });
});
