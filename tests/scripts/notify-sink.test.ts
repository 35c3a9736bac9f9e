/** The demo's webhook sink verifies as any Standard Webhooks receiver: signature, and a fresh timestamp. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startNotifySink, type NotifySink } from '../../scripts/notify-sink.ts';

const KEY = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
let sink: NotifySink;
const printed: string[] = [];

beforeAll(async () => {
  sink = await startNotifySink(KEY, (line) => printed.push(line));
});
afterAll(() => sink.close());

const body = JSON.stringify({ type: 'incident.opened', title: 'Down', event: { summary: 'ref-chat is down' } });
function send(at: Date, key = KEY) {
  return fetch(sink.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(key).sign('msg_1', at, body),
    },
    body,
  });
}

describe('the demo notification sink', () => {
  it('accepts a message signed now', async () => {
    expect((await send(new Date())).status).toBe(200);
    expect(printed.at(-2)).toBe('notification incident.opened (signature ok): Down');
  });

  it('refuses a stale timestamp, even correctly signed, and a wrong key', async () => {
    expect((await send(new Date(Date.now() - 10 * 60_000))).status).toBe(401);
    expect(await send(new Date(), 'whsec_b3RoZXIta2V5LW5vdC10aGUtc2lua3M=')).toMatchObject({ status: 401 });
    expect(sink.received).toBe(1);
  });
});
