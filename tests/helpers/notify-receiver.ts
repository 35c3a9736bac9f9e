/**
 * A stand-in for every notification receiver (webhook, Slack, Discord, Telegram, ntfy, PagerDuty,
 * Teams, Google Chat) on loopback: it records each request (path, query, headers, body, the status it
 * answered) and can be told to fail the next n requests with 503, as a receiver that is down: all of
 * them, or only those whose delivery id contains `match` (test files share this receiver). A path with
 * a segment `/status-NNN/` is answered NNN, always (a receiver that refuses, without shared state); one
 * with a segment `/delay-NNNN/` is answered NNNN ms after it arrived (a slow receiver; recorded on arrival).
 * Under /pagerduty/, /teams/ and /google-chat/ it answers as those services do. Control routes live
 * under /_control/.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedNotification {
  path: string;
  /** The query string, with its "?" (or empty). */
  query: string;
  headers: Record<string, string>;
  body: string;
  answered: number;
  at: number;
}

export interface NotifyReceiver {
  url: string;
  close(): Promise<void>;
}

const parsed = (body: string): unknown => {
  try {
    return JSON.parse(body);
  } catch {
    return {};
  }
};

export async function startNotifyReceiver(): Promise<NotifyReceiver> {
  const received: ReceivedNotification[] = [];
  let failNext = 0;
  let failMatch = '';
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const body = Buffer.concat(chunks).toString('utf8');
      const delayMs = Number(/\/delay-(\d+)\//.exec(url.pathname)?.[1] ?? 0);
      const send = (status: number, json: unknown) => {
        if (res.destroyed) return;
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      const reply = (status: number, json: unknown) => {
        if (delayMs === 0) return send(status, json);
        const t = setTimeout(() => {
          timers.delete(t);
          send(status, json);
        }, delayMs);
        timers.add(t);
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
      const fixed = /\/status-(\d{3})\//.exec(url.pathname);
      const service = /^\/(pagerduty|teams|google-chat)\//.exec(url.pathname)?.[1];
      // PagerDuty and Teams Workflows accept with 202.
      const accepted = service === 'pagerduty' || service === 'teams' ? 202 : 200;
      const answered = refuse ? 503 : fixed ? Number(fixed[1]) : accepted;
      if (refuse) failNext--;
      received.push({
        path: url.pathname,
        query: url.search,
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        body,
        answered,
        at: Date.now(),
      });
      if (answered >= 300)
        return reply(answered, { ok: false, description: 'receiver down', status: 'invalid event', errors: ['refused'] });
      if (service === 'pagerduty') {
        const event = parsed(body) as { dedup_key?: string };
        return reply(answered, { status: 'success', message: 'Event processed', dedup_key: event.dedup_key });
      }
      if (service === 'teams') return reply(answered, {});
      if (service === 'google-chat') {
        const m = parsed(body) as { thread?: { threadKey?: string } };
        return reply(answered, {
          name: `spaces/AAA/messages/${received.length}`,
          thread: { name: 'spaces/AAA/threads/T', threadKey: m.thread?.threadKey },
        });
      }
      // Telegram answers {"ok": true, …}; the others only need a 2xx.
      reply(answered, { ok: true, result: { message_id: received.length } });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((r) => {
        for (const t of timers) clearTimeout(t);
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
