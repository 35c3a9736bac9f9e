/** A webhook: the message as JSON, with Standard Webhooks headers (signed when signingSecret is set). */
import type { WebhookChannel } from '../../../../shared/status/channels/webhook.ts';
import { DELIVERY_HEADER, DeliveryError } from '../delivery-error.ts';
import { webhookSignature, WebhookKeyError } from '../webhook-signature.ts';
import { secret, urlOf, type Sender } from './sender.ts';

export const webhook: Sender<WebhookChannel> = {
  kind: 'webhook',
  request(c, m, env, now) {
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
  },
};
