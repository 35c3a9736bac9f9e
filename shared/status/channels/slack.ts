import type { ChannelBase, ChannelSpec, UrlSource } from './base.ts';

/** Slack incoming webhook (its URL is the credential: urlSecret). */
export interface SlackChannel extends ChannelBase, UrlSource {
  type: 'slack';
}

export const slack: ChannelSpec<SlackChannel> = {
  kind: 'slack',
  secrets: (c) => [c.urlSecret],
  varText: (c) => c.url ?? '',
  validate: (c, check) => check.url(c),
};
