/** Signing a webhook delivery (no runtime bindings here: the CPU benchmark runs it in Node too). */
import { Webhook } from 'standardwebhooks';

/** A signing secret that holds no Standard Webhooks key. */
export class WebhookKeyError extends Error {}

/**
 * The Standard Webhooks signature (standardwebhooks.com, signed with its reference library): `v1,<base64
 * HMAC-SHA256 of "<id>.<timestamp>.<body>">`, once per key. The secret holds one `whsec_` key, or several
 * separated by spaces while keys are rotated: a receiver that knows any one of them verifies the message.
 */
export function webhookSignature(keys: string, id: string, now: number, body: string): string {
  const list = keys.trim().split(/\s+/);
  if (list.some((k) => !/^whsec_[A-Za-z0-9+/]+=*$/.test(k))) {
    throw new WebhookKeyError(
      'a webhook signing secret must hold Standard Webhooks keys: whsec_ and base64 (openssl rand -base64 32), several separated by spaces while rotating',
    );
  }
  return list.map((key) => new Webhook(key).sign(id, new Date(now), body)).join(' ');
}
