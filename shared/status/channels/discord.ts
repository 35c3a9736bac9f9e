import type { ChannelBase, ChannelSpec, UrlSource } from './base.ts';

/** Discord webhook (its URL is the credential: urlSecret). */
export interface DiscordChannel extends ChannelBase, UrlSource {
  type: 'discord';
}

export const discord: ChannelSpec<DiscordChannel> = {
  kind: 'discord',
  secrets: (c) => [c.urlSecret],
  varText: (c) => c.url ?? '',
  validate: (c, check) => check.url(c),
};
