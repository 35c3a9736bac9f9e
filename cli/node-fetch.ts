/**
 * A FetchLike on node:http/https for the CLI: the probe's timestamps are taken when the runtime hands
 * over headers and body bytes, and undici's fetch adds about half a millisecond of its own machinery
 * on loopback (measured side by side). Keep-alive connections, no redirects (a redirect is a finding,
 * reported as an `http` sample), abort through the signal.
 */
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import type { FetchLike } from '../shared/types.ts';

const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };

export const nodeFetch: FetchLike = (input, init = {}) =>
  new Promise<Response>((resolve, reject) => {
    const url = new URL(input);
    const transport = url.protocol === 'https:' ? https : url.protocol === 'http:' ? http : null;
    if (!transport) return reject(new TypeError(`unsupported protocol ${url.protocol}`));
    const signal = init.signal ?? undefined;
    if (signal?.aborted) return reject(signal.reason ?? new DOMException('aborted', 'AbortError'));
    // No compression: the probe times bytes as the server sends them, and decodes none.
    const headers: Record<string, string> = { 'accept-encoding': 'identity' };
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    const request = transport.request(url, { method: init.method ?? 'GET', headers, agent: agents[url.protocol as 'http:' | 'https:'] }, (res) => {
      const responseHeaders = new Headers();
      for (let i = 0; i < res.rawHeaders.length; i += 2) responseHeaders.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
      const status = res.statusCode ?? 0;
      if (status < 200 || status > 599) {
        res.destroy();
        return reject(new TypeError(`the server answered with HTTP status ${status}, which fetch cannot represent`));
      }
      const nullBody = status === 204 || status === 304 || init.method === 'HEAD';
      if (nullBody) res.resume();
      resolve(new Response(nullBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), { status, headers: responseHeaders }));
    });
    const onAbort = () => request.destroy(signal?.reason instanceof Error ? signal.reason : new DOMException('The operation was aborted.', 'AbortError'));
    signal?.addEventListener('abort', onAbort, { once: true });
    request.on('close', () => signal?.removeEventListener('abort', onAbort));
    request.on('error', (e) => reject(new TypeError('fetch failed', { cause: e })));
    request.end(typeof init.body === 'string' ? init.body : undefined);
  });
