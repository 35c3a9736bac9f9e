/**
 * A FetchLike on node:http/https for the CLI. The probe's timestamps are taken where Node hands over
 * the headers and each body chunk (the `response` and `data` events, see `arrivalOf`), not when an
 * `await` on the web stream resumes later; undici's fetch adds about half a millisecond of its own
 * machinery on loopback (measured side by side). Keep-alive connections, no redirects (a redirect is
 * a finding, reported as an `http` sample), abort through the signal.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { FetchLike } from '../shared/types.ts';

/**
 * Chunks queued before the socket is paused: a probe busy with one chunk must not delay the next
 * one's arrival stamp (a paused socket is only read, and stamped, when the probe asks again).
 */
const STAMPED_CHUNKS_QUEUED = 64;

/** performance.now() at which Node handed over a response's headers or a body chunk. */
const arrivals = new WeakMap<object, number>();

/** When Node handed over this response (its headers) or body chunk; for ProbeOptions.arrivalOf. */
export const arrivalOf = (received: Response | Uint8Array): number | undefined => arrivals.get(received);

/**
 * The body as a web stream whose chunks are the very buffers Node emitted, each stamped on arrival.
 * A server that compresses although asked not to is decoded as fetch in a Worker decodes it (gzip,
 * deflate, br), chunk by chunk with back-pressure, so the probe counts, caps and parses the bytes it
 * decodes: a small gzip that inflates without end stops at the body cap, never in memory.
 */
function stampedBody(res: IncomingMessage): ReadableStream<Uint8Array> {
  let settled = false;
  const source = decoded(res);
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        source.on('data', (chunk: Buffer) => {
          arrivals.set(chunk, performance.now());
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 1) <= 0) source.pause();
        });
        source.on('end', () => {
          if (settled) return;
          settled = true;
          controller.close();
        });
        const fail = (e: Error) => {
          if (settled) return;
          settled = true;
          controller.error(e);
        };
        source.on('error', fail);
        res.on('error', fail);
        res.on('close', () => {
          if (source === res || !res.complete) fail(new TypeError('terminated: other side closed'));
        });
      },
      pull() {
        source.resume();
      },
      cancel() {
        settled = true;
        if (source !== res) source.destroy();
        // A response already read to its end keeps its keep-alive connection for the next request.
        if (res.complete) res.resume();
        else res.destroy();
      },
    },
    { highWaterMark: STAMPED_CHUNKS_QUEUED },
  );
}

function decoded(res: IncomingMessage): Readable {
  const encoding = String(res.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip()
      : encoding === 'deflate'
        ? zlib.createInflate()
        : encoding === 'br'
          ? zlib.createBrotliDecompress()
          : null;
  return decoder === null ? res : res.pipe(decoder);
}

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
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const request = transport.request(
      url,
      { method: init.method ?? 'GET', headers, agent: agents[url.protocol as 'http:' | 'https:'] },
      (res) => {
        const headersAt = performance.now();
        const responseHeaders = new Headers();
        for (let i = 0; i < res.rawHeaders.length; i += 2) responseHeaders.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
        const status = res.statusCode ?? 0;
        if (status < 200 || status > 599) {
          res.destroy();
          return reject(new TypeError(`the server answered with HTTP status ${status}, which fetch cannot represent`));
        }
        const nullBody = status === 204 || status === 304 || init.method === 'HEAD';
        if (nullBody) res.resume();
        const response = new Response(nullBody ? null : stampedBody(res), { status, headers: responseHeaders });
        arrivals.set(response, headersAt);
        resolve(response);
      },
    );
    const onAbort = () =>
      request.destroy(signal?.reason instanceof Error ? signal.reason : new DOMException('The operation was aborted.', 'AbortError'));
    signal?.addEventListener('abort', onAbort, { once: true });
    request.on('close', () => signal?.removeEventListener('abort', onAbort));
    request.on('error', (e) => reject(new TypeError('fetch failed', { cause: e })));
    request.end(typeof init.body === 'string' ? init.body : undefined);
  });
