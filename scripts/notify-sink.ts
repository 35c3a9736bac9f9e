/**
 * The local demo's notification sink: a webhook receiver on loopback that checks each message's
 * signature (x-observatory-signature, HMAC-SHA256 over "<t>.<body>") and prints it, as an incident
 * channel would show it. Any path or body gets an answer; nothing it receives can stop it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface NotifySink {
  url: string;
  /** Messages received and verified so far. */
  received: number;
  close(): Promise<void>;
}

/** True when `header` is a valid signature of `body` with `key`. */
export function verifySignature(key: string, body: string, header: string | undefined): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? '');
  if (!m) return false;
  const expected = createHmac('sha256', key).update(`${m[1]}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(m[2], 'hex'));
}

export async function startNotifySink(signingKey: string, print: (line: string) => void, port = 0): Promise<NotifySink> {
  const sink: NotifySink = { url: '', received: 0, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', () => res.destroy());
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const signed = verifySignature(signingKey, body, req.headers['x-observatory-signature'] as string | undefined);
      if (req.method !== 'POST' || !signed) {
        res.writeHead(req.method !== 'POST' ? 405 : 401).end();
        if (req.method === 'POST') print(`notification refused: bad or missing signature`);
        return;
      }
      try {
        const m = JSON.parse(body) as { type: string; title: string; event: { summary: string } };
        sink.received++;
        print(`notification ${m.type} (signature ok): ${m.title}`);
        print(`    ${m.event.summary}`);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  sink.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  sink.close = () => new Promise((r) => {
    server.closeAllConnections();
    server.close(() => r());
  });
  return sink;
}
