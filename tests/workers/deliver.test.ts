/**
 * A delivery trusts no receiver: a redirect is not followed (the request carries a signature or a
 * token), a reply is read to 4 KiB at most, and what is published of a failure is its kind and status.
 */
import { describe, expect, it } from 'vitest';
import { deliver, DeliveryError } from '../../workers/observatory/notify/deliver.ts';
import type { NotificationMessage } from '../../shared/status/messages.ts';

const message = {
  delivery_id: 'd-1',
  type: 'incident.opened',
  sent_for: 'opened',
  title: 'Down',
  text: 'Down\nref-chat is down',
  event: { severity: 'down' },
} as unknown as NotificationMessage;
const channel = { name: 'hook', type: 'webhook' as const, url: 'https://hooks.example.com/in' };

async function failure(response: () => Response, seen: RequestInit[] = []): Promise<DeliveryError> {
  const fetcher = (async (_req: Request, init?: RequestInit) => {
    seen.push(init ?? {});
    return response();
  }) as unknown as typeof fetch;
  const e = await deliver(channel, message, {}, Date.now(), fetcher).then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(DeliveryError);
  return e as DeliveryError;
}

describe('notification deliveries', () => {
  it('do not follow a redirect', async () => {
    const seen: RequestInit[] = [];
    const e = await failure(() => new Response(null, { status: 302, headers: { location: 'https://elsewhere.example.com/' } }), seen);
    expect(seen[0].redirect).toBe('manual');
    expect({ kind: e.kind, status: e.status }).toEqual({ kind: 'redirect', status: 302 });
  });

  it('read at most 4 KiB of a reply', async () => {
    let pulled = 0;
    const huge = () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            pulled += 1024;
            if (pulled > 16 * 1024 * 1024) return controller.close();
            controller.enqueue(new Uint8Array(1024).fill(65));
          },
        }),
        { status: 500 },
      );
    const e = await failure(huge);
    expect({ kind: e.kind, status: e.status }).toEqual({ kind: 'http', status: 500 });
    expect(pulled).toBeLessThan(64 * 1024);
    expect(e.message.length).toBeLessThan(200);
  });
});
