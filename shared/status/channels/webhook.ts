import type { ChannelBase, ChannelSpec, UrlSource } from './base.ts';

/** JSON body with Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, and `webhook-signature` when signingSecret names a secret holding `whsec_` keys). */
export interface WebhookChannel extends ChannelBase, UrlSource {
  type: 'webhook';
  signingSecret?: string;
}

export const webhook: ChannelSpec<WebhookChannel> = {
  kind: 'webhook',
  secrets: (c) => [c.urlSecret, c.signingSecret],
  varText: (c) => c.url ?? '',
  validate: (c, check) => [...check.url(c), ...check.secret('signingSecret', c.signingSecret, false)],
};
