/**
 * The local demo's notification sink: a webhook receiver on loopback that verifies each message as
 * any Standard Webhooks receiver would (the `standardwebhooks` library: its signature, and a timestamp
 * within 5 minutes, so a replayed or stale message is refused) and prints it, as an incident channel
 * would show it. Any path or body gets an answer; nothing it receives can stop it.
 */
import { Webhook } from 'standardwebhooks';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface NotifySink {
  url: string;
  /** Messages received and verified so far. */
  received: number;
  close(): Promise<void>;
}

/** The message, when `body` and its headers verify with `key` (signature and a fresh timestamp); null otherwise. */
export function verified(key: string, body: string, headers: IncomingHttpHeaders): unknown {
  try {
    return new Webhook(key).verify(body, {
      'webhook-id': String(headers['webhook-id'] ?? ''),
      'webhook-timestamp': String(headers['webhook-timestamp'] ?? ''),
      'webhook-signature': String(headers['webhook-signature'] ?? ''),
    });
  } catch {
    return null;
  }
}

export async function startNotifySink(signingKey: string, print: (line: string) => void, port = 0): Promise<NotifySink> {
  const sink: NotifySink = { url: '', received: 0, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', () => res.destroy());
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const m =
        req.method === 'POST'
          ? (verified(signingKey, body, req.headers) as { type: string; title: string; event: { summary: string } } | null)
          : null;
      if (m === null) {
        res.writeHead(req.method !== 'POST' ? 405 : 401).end();
        if (req.method === 'POST') print(`notification refused: bad or missing signature, or a stale timestamp`);
        return;
      }
      try {
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
  sink.close = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return sink;
}
