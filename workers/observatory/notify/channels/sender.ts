/**
 * The shape of a channel's sending (one file per kind beside this, listed in index.ts), and what they
 * share: a Worker secret or variable read at send time, so a secret is never stored with the queue.
 */
import type { ChannelConfig } from '../../../../shared/status/channels.ts';
import type { NotificationMessage } from '../../../../shared/status/messages.ts';
import { DELIVERY_HEADER, DeliveryError } from '../delivery-error.ts';

export type Secrets = Record<string, unknown>;

export interface Sender<C extends ChannelConfig> {
  readonly kind: C['type'];
  /** One message as an HTTP request; null when the channel gets no such message (sent nothing, counted delivered). */
  request?(c: C, m: NotificationMessage, env: Secrets, now: number): Request | null;
  /** Sends without HTTP (email's binding); the status recorded. */
  send?(c: C, m: NotificationMessage, env: Secrets, now: number): Promise<number>;
  /** The receiver's answer judged beyond its HTTP status (after a redirect is refused, before a non-2xx is): throws DeliveryError. */
  check?(status: number, text: string, reply: (max: number) => string): void;
}

export function secret(env: Secrets, name: string): string {
  const v = env[name];
  if (typeof v !== 'string' || v === '')
    throw new DeliveryError('not_configured', `secret ${name} is not set (wrangler secret put ${name})`);
  return v;
}

/** `{VAR}` replaced by the Worker variable VAR. */
export function expand(text: string, env: Secrets): string {
  return text.replace(/\{([A-Z][A-Z0-9_]*)\}/g, (_, name: string) => {
    const v = env[name];
    if (typeof v !== 'string' || v === '') throw new DeliveryError('not_configured', `variable ${name} in the channel's url is not set`);
    return v;
  });
}

export function urlOf(c: { url?: string; urlSecret?: string }, env: Secrets): string {
  return c.urlSecret ? secret(env, c.urlSecret) : expand(c.url!, env);
}

/** A JSON POST carrying the delivery's id. */
export function jsonRequest(m: NotificationMessage, url: string, body: unknown, headers: Record<string, string> = {}): Request {
  return new Request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [DELIVERY_HEADER]: m.delivery_id, ...headers },
    body: JSON.stringify(body),
  });
}
