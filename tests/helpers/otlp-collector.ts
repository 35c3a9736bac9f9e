/**
 * A stand-in OTLP/HTTP collector on loopback for the Workers tests: it records every export it is
 * sent and checks each body against the OTLP protobuf definitions (the generated protobufjs root of
 * @opentelemetry/otlp-transformer): `verify` must pass, and the body must survive a protobuf round
 * trip unchanged (a misspelt field would be dropped by it). `POST /fail-next` makes the next export fail.
 * (protobufjs's own `verify` wants 64-bit integers as numbers, where the protobuf JSON mapping that
 * OTLP/HTTP JSON follows writes them as decimal strings: the round trip, asked for strings, checks them.)
 */
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';

const require = createRequire(import.meta.url);
const root = require('@opentelemetry/otlp-transformer/build/src/generated/root.js');
const Request = root.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;

export interface ReceivedExport {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  verifyError: string | null;
  roundTrip: boolean;
}

/** Drops what a proto3 round trip drops (zero numbers, empty strings, empty lists and objects), keys in name order. */
function strip(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(strip);
  if (x !== null && typeof x === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(x).sort((a, b) => a[0].localeCompare(b[0]))) {
      const s = strip(v);
      if (
        s === 0 ||
        s === '0' ||
        s === '' ||
        s === false ||
        (Array.isArray(s) && s.length === 0) ||
        (s !== null && typeof s === 'object' && !Array.isArray(s) && Object.keys(s).length === 0)
      )
        continue;
      out[k] = s;
    }
    return out;
  }
  return x;
}

/** null when the body maps onto ExportMetricsServiceRequest field for field (fromObject throws on a wrong type). */
export function checkOtlpJson(body: unknown): { verifyError: string | null; roundTrip: boolean } {
  let decoded: unknown;
  try {
    decoded = Request.toObject(Request.decode(Request.encode(Request.fromObject(body)).finish()), { longs: String, enums: Number });
  } catch (e) {
    return { verifyError: (e as Error).message, roundTrip: false };
  }
  return { verifyError: null, roundTrip: JSON.stringify(strip(decoded)) === JSON.stringify(strip(body)) };
}

export async function startOtlpCollector(): Promise<{ url: string; close: () => Promise<void> }> {
  const received: ReceivedExport[] = [];
  let failNext = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'GET' && req.url === '/received') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(received));
        return;
      }
      if (req.method === 'POST' && req.url === '/fail-next') {
        failNext++;
        res.writeHead(204).end();
        return;
      }
      if (failNext > 0) {
        failNext--;
        res.writeHead(503, { 'content-type': 'text/plain' }).end('collector unavailable');
        return;
      }
      let body: unknown = null;
      let check = { verifyError: 'not JSON' as string | null, roundTrip: false };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        check = checkOtlpJson(body);
      } catch (e) {
        check = { verifyError: (e as Error).message, roundTrip: false };
      }
      received.push({ path: req.url ?? '', headers: req.headers, body, ...check });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
