/**
 * One delivery attempt of a queued message to one channel: a real HTTP call (or the send_email
 * binding), built by the channel's sender (channels/<kind>.ts) from its config and the Worker's secrets
 * at send time, so a secret is never stored with the queue. Throws DeliveryError with what went wrong;
 * the keeper retries.
 */
import { channelSecrets, type ChannelConfig } from '../../../shared/status/channels.ts';
import type { NotificationMessage } from '../../../shared/status/messages.ts';
import { readErrorBody, redact } from '../../../shared/probe/error-detail.ts';
import { secretValues } from '../secret-values.ts';
import { DeliveryError } from './delivery-error.ts';
import { senderOf } from './channels/index.ts';
import type { Secrets } from './channels/sender.ts';

export { DELIVERY_HEADER, DeliveryError, type DeliveryFailure } from './delivery-error.ts';
export { emailSource } from './channels/email.ts';

/** A send (its answer's headers and the part of its reply that is read, or the email binding) that takes longer has failed, as `no_response`. */
export const DELIVERY_TIMEOUT_MS = 10_000;

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
  const sender = senderOf(c);
  if (sender.send) return sender.send(c, m, env, now);
  if (!sender.request) throw new DeliveryError('not_configured', `channel type ${c.type} has no way to send`);
  const req = sender.request(c, m, env, now);
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
  sender.check?.(response.status, text, reply);
  if (!response.ok) throw new DeliveryError('http', `HTTP ${response.status}${text ? `: ${reply(120)}` : ''}`, response.status);
  return response.status;
}
