/**
 * A delivery trusts no receiver: a redirect is not followed (the request carries a signature or a
 * token), a reply is read to 4 KiB at most, and what is published of a failure is its kind and status.
 * PagerDuty, Teams Workflows and Google Chat each get their documented payload, over real HTTP to the
 * loopback receiver (tests/helpers/notify-receiver.ts).
 */
import { describe, expect, it } from 'vitest';
import { env } from 'cloudflare:workers';
import { deliver, DeliveryError, inactiveReason } from '../../workers/observatory/notify/deliver.ts';
import { buildMessage, type NotificationMessage } from '../../shared/status/messages.ts';
import { CHANNEL_TYPES, type ChannelConfig, type NotifyEvent } from '../../shared/status/channels.ts';
import { SENDERS } from '../../workers/observatory/notify/channels/index.ts';
import { ERRORS_FIRED, escalated, opened, resolved, type Step } from '../helpers/incident-fixture.ts';

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
  it('have a sender for every kind of channel, each under its own kind', () => {
    expect(Object.keys(SENDERS).sort()).toEqual([...CHANNEL_TYPES].sort());
    for (const [kind, sender] of Object.entries(SENDERS)) {
      expect(sender.kind).toBe(kind);
      expect(sender.request === undefined, kind).not.toBe(sender.send === undefined);
    }
  });

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

interface Received {
  path: string;
  query: string;
  headers: Record<string, string>;
  body: string;
  answered: number;
}
const secrets = {
  NOTIFY_URL: env.NOTIFY_URL,
  PD_ROUTING_KEY: 'R0123456789abcdef0123456789abcdef',
  TEAMS_URL: `${env.NOTIFY_URL}/teams/workflows/abc/triggers/manual/paths/invoke?api-version=1&sig=s3cr3t`,
  CHAT_URL: `${env.NOTIFY_URL}/google-chat/v1/spaces/AAA/messages?key=k3y&token=t0k%3D`,
};
/**
 * This file's requests only: other test files share the receiver (and status.test.ts reads every request naming
 * ref-chat, and every 503), so these name a target of their own, and their delivery ids begin with `dv-`.
 */
const receivedFor = async (id: string) =>
  ((await (await fetch(`${env.NOTIFY_URL}/_control/received`)).json()) as Received[]).filter(
    (r) => r.headers['x-observatory-delivery'] === id,
  );
const SITE = 'https://status.example.com';
const messageOf = (kind: NotifyEvent, s: Step, id: string): NotificationMessage =>
  buildMessage(kind, s.incident, s.event, { targetLabel: 'Reference chat', variantLabel: 'Tiny', siteUrl: SITE }, id);

async function sent(c: ChannelConfig, m: NotificationMessage): Promise<{ status: number | null; request: Received }> {
  const status = await deliver(c, m, secrets, Date.now());
  const [request] = await receivedFor(m.delivery_id);
  return { status, request };
}

describe('PagerDuty Events API v2', () => {
  const pd: ChannelConfig = { name: 'pd', type: 'pagerduty', routingKeySecret: 'PD_ROUTING_KEY', url: '{NOTIFY_URL}/pagerduty/v2/enqueue' };
  const open = opened('dv-target', 'tiny', ['apac'], [ERRORS_FIRED]);
  const worse = escalated(open);
  const done = resolved(worse);

  it('triggers, triggers again with the new severity, and resolves: one alert, paired by dedup_key = the incident id', async () => {
    const trigger = await sent(pd, messageOf('opened', open, 'dv-pd-1'));
    const again = await sent(pd, messageOf('escalated', worse, 'dv-pd-2'));
    const resolve = await sent(pd, messageOf('resolved', done, 'dv-pd-3'));
    expect([trigger.status, again.status, resolve.status]).toEqual([202, 202, 202]);
    expect(trigger.request.path).toBe('/pagerduty/v2/enqueue');
    expect(trigger.request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(trigger.request.body)).toEqual({
      routing_key: secrets.PD_ROUTING_KEY,
      event_action: 'trigger',
      dedup_key: open.incident.id,
      payload: {
        summary: 'Reference chat, tiny prompt — degraded in apac: error rate 60 % of 15 probes (limit 40 %)',
        source: 'dv-target',
        severity: 'warning',
        timestamp: '2026-01-05T10:00:00.000Z',
        component: 'tiny',
        group: 'apac',
        class: 'errors',
        custom_details: {
          target: 'Reference chat',
          variant: 'Tiny',
          regions: 'apac',
          rule: 'error rate 60 % of 15 probes (limit 40 %)',
          level: 'degraded',
          since: '2026-01-05 10:00 UTC',
          incident: open.incident.id,
        },
      },
      links: [{ href: `${SITE}/incidents/#${open.incident.id}`, text: 'The incident on the status page' }],
      client_url: `${SITE}/incidents/#${open.incident.id}`,
      client: 'LLM latency observatory',
    });
    const escalation = JSON.parse(again.request.body);
    expect(escalation).toMatchObject({
      event_action: 'trigger',
      dedup_key: open.incident.id,
      payload: { severity: 'critical', class: 'down,errors' },
    });
    // acknowledge/resolve need only these three.
    expect(JSON.parse(resolve.request.body)).toEqual({
      routing_key: secrets.PD_ROUTING_KEY,
      event_action: 'resolve',
      dedup_key: open.incident.id,
    });
  });

  it('gets no request for a reminder (PagerDuty re-alerts by itself), and that is not a failure', async () => {
    let requests = 0;
    const fetcher = (async () => {
      requests++;
      return new Response(null, { status: 202 });
    }) as unknown as typeof fetch;
    expect(await deliver(pd, messageOf('reminder', worse, 'dv-pd-4'), secrets, Date.now(), fetcher)).toBeNull();
    expect(requests).toBe(0);
  });

  it('a 400 is refused for good (not retried); 429 and 5xx are retried', async () => {
    const at = (status: number): ChannelConfig => ({ ...pd, url: `{NOTIFY_URL}/pagerduty/status-${status}/v2/enqueue` });
    const error = (status: number, id: string) =>
      deliver(at(status), messageOf('opened', open, id), secrets, Date.now()).then(
        () => null,
        (e: unknown) => e as DeliveryError,
      );
    const bad = await error(400, 'dv-pd-5');
    expect({ kind: bad?.kind, status: bad?.status, permanent: bad?.permanent }).toEqual({ kind: 'rejected', status: 400, permanent: true });
    expect(bad?.message).toMatch(/^PagerDuty refused the event \(HTTP 400\), not retried: .*invalid event/);
    for (const [status, id] of [
      [429, 'dv-pd-6'],
      [502, 'dv-pd-7'],
    ] as const) {
      const e = await error(status, id);
      expect({ kind: e?.kind, status: e?.status, permanent: e?.permanent }).toEqual({ kind: 'http', status, permanent: false });
    }
  });

  it('needs its routing key', async () => {
    const e = await deliver(pd, messageOf('opened', open, 'dv-pd-8'), { NOTIFY_URL: env.NOTIFY_URL }, Date.now()).catch(
      (err: unknown) => err,
    );
    expect(e).toMatchObject({ kind: 'not_configured', message: 'secret PD_ROUTING_KEY is not set (wrangler secret put PD_ROUTING_KEY)' });
  });
});

describe('Microsoft Teams Workflows', () => {
  it('posts one Adaptive Card: the title, the facts, a link to the incident', async () => {
    const s = opened('dv-target', 'tiny', ['apac'], [ERRORS_FIRED]);
    const m = messageOf('opened', s, 'dv-teams-1');
    const { status, request } = await sent({ name: 't', type: 'teams', urlSecret: 'TEAMS_URL' }, m);
    expect(status).toBe(202);
    expect(request.path + request.query).toBe('/teams/workflows/abc/triggers/manual/paths/invoke?api-version=1&sig=s3cr3t');
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request.body)).toEqual({
      type: 'message',
      attachments: [
        {
          contentType: 'application/vnd.microsoft.card.adaptive',
          contentUrl: null,
          content: {
            $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
            type: 'AdaptiveCard',
            version: '1.4',
            body: [
              { type: 'TextBlock', text: m.title, weight: 'Bolder', size: 'Medium', wrap: true },
              {
                type: 'FactSet',
                facts: [
                  { title: 'Target', value: 'Reference chat' },
                  { title: 'Prompt variant', value: 'Tiny' },
                  { title: 'Regions', value: 'apac' },
                  { title: 'Rule', value: 'error rate 60 % of 15 probes (limit 40 %)' },
                  { title: 'Level', value: 'degraded' },
                  { title: 'Since', value: '2026-01-05 10:00 UTC' },
                ],
              },
              { type: 'TextBlock', text: `Incident ${s.incident.id}`, isSubtle: true, size: 'Small', wrap: true },
            ],
            actions: [{ type: 'Action.OpenUrl', title: 'Open the incident', url: `${SITE}/incidents/#${s.incident.id}` }],
          },
        },
      ],
    });
  });

  it('has no action when no public site is configured', async () => {
    const s = opened('dv-target', 'tiny', ['apac'], [ERRORS_FIRED]);
    const m = buildMessage('opened', s.incident, s.event, { targetLabel: 'Reference chat', variantLabel: 'Tiny' }, 'dv-teams-2');
    const { request } = await sent({ name: 't', type: 'teams', urlSecret: 'TEAMS_URL' }, m);
    expect(JSON.parse(request.body).attachments[0].content.actions).toBeUndefined();
  });
});

describe('Google Chat', () => {
  it("posts the text, in the incident's own thread: every message of one incident replies to it", async () => {
    const chat: ChannelConfig = { name: 'g', type: 'google-chat', urlSecret: 'CHAT_URL' };
    const open = opened('dv-target', 'tiny', ['apac'], [ERRORS_FIRED]);
    const first = await sent(chat, messageOf('opened', open, 'dv-chat-1'));
    const last = await sent(chat, messageOf('resolved', resolved(open), 'dv-chat-2'));
    expect([first.status, last.status]).toEqual([200, 200]);
    for (const { request } of [first, last]) {
      // The webhook's own key and token kept as they were, the reply option added (Google Chat's threading).
      expect(request.path + request.query).toBe(
        '/google-chat/v1/spaces/AAA/messages?key=k3y&token=t0k%3D&messageReplyOption=REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD',
      );
      expect(request.headers['content-type']).toBe('application/json');
    }
    const bodies = [first, last].map((r) => JSON.parse(r.request.body));
    expect(bodies.map((b) => b.thread)).toEqual([{ threadKey: open.incident.id }, { threadKey: open.incident.id }]);
    expect(bodies[0].text).toBe(messageOf('opened', open, 'dv-chat-1').text);
    expect(bodies[0].text).toMatch(
      /^🔴 Incident opened: Reference chat, tiny prompt — degraded in apac\nReference chat · prompt variant Tiny\napac degraded: error rate 60 %/,
    );
  });
});

describe('a channel is active', () => {
  it('only with every variable of its URL and every secret it needs set, and says which is missing', () => {
    const slack: ChannelConfig = { name: 'slack', type: 'slack', urlSecret: 'SLACK_URL' };
    const hook: ChannelConfig = { name: 'hook', type: 'webhook', url: '{HOOK_BASE}/in', signingSecret: 'HOOK_KEY' };
    expect(inactiveReason(slack, {})).toBe('secret SLACK_URL is not set');
    expect(inactiveReason(slack, { SLACK_URL: '' })).toBe('secret SLACK_URL is not set');
    expect(inactiveReason(slack, { SLACK_URL: 'https://hooks.example/T/B/X' })).toBeNull();
    expect(inactiveReason(hook, { HOOK_KEY: 'whsec_x' })).toBe('variable HOOK_BASE is not set');
    expect(inactiveReason(hook, { HOOK_BASE: 'https://in.example' })).toBe('secret HOOK_KEY is not set');
    expect(inactiveReason(hook, { HOOK_BASE: 'https://in.example', HOOK_KEY: 'whsec_x' })).toBeNull();
  });
});
