/**
 * A stand-in for every notification receiver (webhook, Slack, Discord, Telegram, ntfy) on loopback:
 * it records each request (path, headers, body, the status it answered) and can be told to fail the
 * next n requests with 503, as a receiver that is down: all of them, or only those whose delivery id
 * contains `match` (test files share this receiver). Control routes live under /_control/.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedNotification {
  path: string;
  headers: Record<string, string>;
  body: string;
  answered: number;
  at: number;
}

export interface NotifyReceiver {
  url: string;
  close(): Promise<void>;
}

export async function startNotifyReceiver(): Promise<NotifyReceiver> {
  const received: ReceivedNotification[] = [];
  let failNext = 0;
  let failMatch = '';
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const body = Buffer.concat(chunks).toString('utf8');
      const reply = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      if (url.pathname === '/_control/received') return reply(200, received);
      if (url.pathname === '/_control/reset') {
        failNext = 0;
        return reply(200, { ok: true });
      }
      if (url.pathname === '/_control/fail') {
        failNext = Number(url.searchParams.get('n') ?? 1);
        failMatch = url.searchParams.get('match') ?? '';
        return reply(200, { failNext, failMatch });
      }
      const refuse = failNext > 0 && String(req.headers['x-observatory-delivery'] ?? '').includes(failMatch);
      const answered = refuse ? 503 : 200;
      if (refuse) failNext--;
      received.push({
        path: url.pathname,
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        body,
        answered,
        at: Date.now(),
      });
      // Telegram answers {"ok": true, …}; the others only need a 2xx.
      reply(
        answered,
        answered === 200 ? { ok: true, result: { message_id: received.length } } : { ok: false, description: 'receiver down' },
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
