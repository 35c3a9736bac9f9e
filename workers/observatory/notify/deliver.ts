/**
 * One delivery attempt of a queued message to one channel: a real HTTP call (or the send_email
 * binding), built from the channel's config and the Worker's secrets at send time, so a secret is
 * never stored with the queue. Throws DeliveryError with what went wrong; the keeper retries.
 */
import { bytesToBase64 } from '../../../shared/base64.ts';
import { channelSecrets, type ChannelConfig, type NotifyEvent } from '../../../shared/status/channels.ts';
import { FACT_TITLES, type MessageFacts, type NotificationMessage } from '../../../shared/status/messages.ts';
import { webhookSignature, WebhookKeyError } from './webhook-signature.ts';
import { readErrorBody, redact } from '../../../shared/probe/error-detail.ts';
import { secretValues } from '../prober/secret-values.ts';

/**
 * What kind of failure a delivery met: all that is published (with the HTTP status). The message,
 * which can hold a receiver's reply or a URL that is itself the credential, goes only to the log,
 * redacted. `rejected`: the receiver refused the message itself (PagerDuty's 400), so it is not retried.
 */
export type DeliveryFailure = 'not_configured' | 'no_response' | 'http' | 'not_confirmed' | 'redirect' | 'send_email' | 'rejected';

export class DeliveryError extends Error {
  readonly status: number | null;
  readonly kind: DeliveryFailure;
  /** Sending the same message again cannot succeed: the outbox gives it up at once. */
  readonly permanent: boolean;
  constructor(kind: DeliveryFailure, message: string, status: number | null = null) {
    super(message);
    this.kind = kind;
    this.status = status;
    this.permanent = kind === 'rejected';
  }
}

export const DELIVERY_HEADER = 'x-observatory-delivery';
/** A send (its answer's headers and the part of its reply that is read, or the email binding) that takes longer has failed, as `no_response`. */
export const DELIVERY_TIMEOUT_MS = 10_000;
const TELEGRAM_API = 'https://api.telegram.org';
const DISCORD_MAX = 2_000;
const GOOGLE_CHAT_MAX = 4_096;
const PAGERDUTY_EVENTS = 'https://events.pagerduty.com/v2/enqueue';
const PAGERDUTY_SUMMARY_MAX = 1_024;
const PAGERDUTY_DEDUP_MAX = 255;
/** PagerDuty re-alerts by itself while an alert is open: a reminder has no event (and our incidents no acknowledgement). */
const PAGERDUTY_ACTION: Record<NotifyEvent, 'trigger' | 'resolve' | null> = {
  opened: 'trigger',
  escalated: 'trigger',
  resolved: 'resolve',
  reminder: null,
};

type Secrets = Record<string, unknown>;

function secret(env: Secrets, name: string): string {
  const v = env[name];
  if (typeof v !== 'string' || v === '')
    throw new DeliveryError('not_configured', `secret ${name} is not set (wrangler secret put ${name})`);
  return v;
}

/** `{VAR}` replaced by the Worker variable VAR. */
function expand(text: string, env: Secrets): string {
  return text.replace(/\{([A-Z][A-Z0-9_]*)\}/g, (_, name: string) => {
    const v = env[name];
    if (typeof v !== 'string' || v === '') throw new DeliveryError('not_configured', `variable ${name} in the channel's url is not set`);
    return v;
  });
}

function urlOf(c: { url?: string; urlSecret?: string }, env: Secrets): string {
  return c.urlSecret ? secret(env, c.urlSecret) : expand(c.url!, env);
}

/**
 * A PagerDuty Events API v2 event: dedup_key is the incident's id, so "opened" and "escalated" trigger
 * one alert (the second with its new severity) and "resolved" resolves it.
 */
function pagerDutyEvent(m: NotificationMessage, routingKey: string, action: 'trigger' | 'resolve'): unknown {
  const dedup_key = m.incident.id.slice(0, PAGERDUTY_DEDUP_MAX);
  if (action === 'resolve') return { routing_key: routingKey, event_action: action, dedup_key };
  const f = m.facts;
  const rules = [...new Set(m.event.regions.flatMap((r) => r.fired.map((x) => x.rule)))];
  return {
    routing_key: routingKey,
    event_action: action,
    dedup_key,
    payload: {
      summary: `${f.target}, ${m.incident.prompt_variant} prompt — ${f.level} in ${f.regions}: ${f.rule}`.slice(0, PAGERDUTY_SUMMARY_MAX),
      source: m.incident.target,
      severity: m.event.severity === 'down' ? 'critical' : 'warning',
      timestamp: m.event.at,
      component: m.incident.prompt_variant,
      group: m.event.regions.map((r) => r.region).join(',') || m.incident.regions.join(','),
      class: (rules.length > 0 ? rules : m.incident.rules).join(','),
      custom_details: { ...f, incident: m.incident.id },
    },
    ...(m.link ? { links: [{ href: m.link, text: 'The incident on the status page' }], client_url: m.link } : {}),
    client: 'LLM latency observatory',
  };
}

/** A Teams Workflows message: one Adaptive Card with the title, the facts and a link to the incident. */
function teamsCard(m: NotificationMessage): unknown {
  return {
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
              facts: Object.entries(m.facts).map(([k, value]) => ({ title: FACT_TITLES[k as keyof MessageFacts], value })),
            },
            { type: 'TextBlock', text: `Incident ${m.incident.id}`, isSubtle: true, size: 'Small', wrap: true },
          ],
          ...(m.link ? { actions: [{ type: 'Action.OpenUrl', title: 'Open the incident', url: m.link }] } : {}),
        },
      },
    ],
  };
}

function request(c: ChannelConfig, m: NotificationMessage, env: Secrets, now: number): Request | null {
  const json = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    new Request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [DELIVERY_HEADER]: m.delivery_id, ...headers },
      body: JSON.stringify(body),
    });
  switch (c.type) {
    case 'webhook': {
      const body = JSON.stringify(m);
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        [DELIVERY_HEADER]: m.delivery_id,
        'webhook-id': m.delivery_id,
        'webhook-timestamp': String(Math.floor(now / 1000)),
      };
      if (c.signingSecret) {
        try {
          headers['webhook-signature'] = webhookSignature(secret(env, c.signingSecret), m.delivery_id, now, body);
        } catch (e) {
          if (e instanceof WebhookKeyError) throw new DeliveryError('not_configured', e.message);
          throw e;
        }
      }
      return new Request(urlOf(c, env), { method: 'POST', headers, body });
    }
    case 'slack':
      return json(urlOf(c, env), { text: m.text });
    case 'discord':
      return json(urlOf(c, env), { content: m.text.slice(0, DISCORD_MAX), allowed_mentions: { parse: [] } });
    case 'telegram':
      return json(`${expand(c.apiBase ?? TELEGRAM_API, env).replace(/\/$/, '')}/bot${secret(env, c.botTokenSecret)}/sendMessage`, {
        chat_id: c.chatId,
        text: m.text,
        disable_web_page_preview: true,
      });
    case 'ntfy': {
      const headers: Record<string, string> = {
        title:
          encodeURIComponent(m.title).length === m.title.length
            ? m.title
            : `=?UTF-8?B?${bytesToBase64(new TextEncoder().encode(m.title))}?=`,
        priority: m.sent_for === 'resolved' ? '3' : m.event.severity === 'down' ? '5' : '4',
        tags: m.sent_for === 'resolved' ? 'white_check_mark' : 'rotating_light',
        [DELIVERY_HEADER]: m.delivery_id,
      };
      if (c.tokenSecret) headers.authorization = `Bearer ${secret(env, c.tokenSecret)}`;
      return new Request(urlOf(c, env), { method: 'POST', headers, body: m.text.split('\n').slice(1).join('\n') });
    }
    case 'pagerduty': {
      const action = PAGERDUTY_ACTION[m.sent_for];
      return action === null
        ? null
        : json(expand(c.url ?? PAGERDUTY_EVENTS, env), pagerDutyEvent(m, secret(env, c.routingKeySecret), action));
    }
    case 'teams':
      return json(urlOf(c, env), teamsCard(m));
    case 'google-chat': {
      // The webhook URL carries its key and token; the thread is named in the body (Google Chat's threadKey).
      const url = urlOf(c, env);
      return json(`${url}${url.includes('?') ? '&' : '?'}messageReplyOption=REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD`, {
        text: m.text.slice(0, GOOGLE_CHAT_MAX),
        thread: { threadKey: m.incident.id },
      });
    }
    case 'email':
      throw new DeliveryError('not_configured', 'email is sent through its binding, not HTTP');
  }
}

/**
 * Why a channel cannot be used in this deployment (a {VAR} in its URL is empty: the local demo's sink when
 * deployed; a secret it needs is not set: its URL, its signing key, its token), or null. Such a channel is skipped,
 * not retried, and listed as inactive with the reason, so health says what to set.
 */
export function inactiveReason(c: ChannelConfig, env: Secrets): string | null {
  const needs = channelSecrets(c);
  const isUnset = (name: string) => typeof env[name] !== 'string' || env[name] === '';
  const variable = needs.vars.find(isUnset);
  if (variable !== undefined) return `variable ${variable} is not set`;
  const secret = needs.secrets.find(isUnset);
  return secret === undefined ? null : `secret ${secret} is not set`;
}

/** The raw RFC 5322 message for the send_email binding. */
export function emailSource(from: string, to: string, m: NotificationMessage, now: number): string {
  const subject = `=?UTF-8?B?${bytesToBase64(new TextEncoder().encode(m.title))}?=`;
  return [
    `From: ${from}`,
    `To: ${to}`,
    `Subject: ${subject}`,
    `Date: ${new Date(now).toUTCString()}`,
    `Message-ID: <${m.delivery_id.replace(/[^A-Za-z0-9.-]/g, '.')}@llm-observatory>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
    '',
    m.text,
    '',
  ].join('\r\n');
}

interface EmailBinding {
  send(message: unknown): Promise<void>;
}

/**
 * Sends; returns the HTTP status (0 for email; null when the channel has no such message: a reminder
 * to PagerDuty, sent nothing and counted as delivered). Throws DeliveryError unless the receiver accepted it.
 */
export async function deliver(
  c: ChannelConfig,
  m: NotificationMessage,
  env: Secrets,
  now: number,
  fetcher: typeof fetch = fetch,
  timeoutMs: number = DELIVERY_TIMEOUT_MS,
): Promise<number | null> {
  if (c.type === 'email') {
    const binding = env[c.binding] as EmailBinding | undefined;
    if (!binding || typeof binding.send !== 'function')
      throw new DeliveryError('not_configured', `send_email binding ${c.binding} is not configured in wrangler.toml`);
    const { EmailMessage } = await import('cloudflare:email');
    try {
      await binding.send(new EmailMessage(c.from, c.to, emailSource(c.from, c.to, m, now)));
    } catch (e) {
      throw new DeliveryError('send_email', `send_email: ${e instanceof Error ? e.message : String(e)}`);
    }
    return 0;
  }
  const req = request(c, m, env, now);
  if (req === null) return null;
  let response: Response;
  try {
    // A receiver that redirects is not followed: the request carries a signature or a token, and the
    // URL it names was not configured.
    response = await fetcher(req, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
  } catch (e) {
    throw new DeliveryError('no_response', `no response: ${e instanceof Error ? e.message : String(e)}`);
  }
  // At most ERROR_BODY_LIMIT_BYTES of a reply: enough for Telegram's confirmation, never a whole hostile body.
  const text = await readErrorBody(response);
  // Redacted before it is cut: a secret the receiver echoes across the cut would otherwise leave its start behind.
  const reply = (max: number): string => redact(text, secretValues(env)).slice(0, max);
  if (response.status >= 300 && response.status < 400)
    throw new DeliveryError('redirect', `HTTP ${response.status} redirect, not followed`, response.status);
  if (c.type === 'pagerduty' && response.status === 400)
    throw new DeliveryError('rejected', `PagerDuty refused the event (HTTP 400), not retried${text ? `: ${reply(200)}` : ''}`, 400);
  if (!response.ok) throw new DeliveryError('http', `HTTP ${response.status}${text ? `: ${reply(120)}` : ''}`, response.status);
  if (c.type === 'telegram' && !/"ok"\s*:\s*true/.test(text))
    throw new DeliveryError('not_confirmed', `Telegram did not confirm: ${reply(120)}`, response.status);
  return response.status;
}
