import { urlOnlySpec, type ChannelBase, type ChannelSpec, type UrlSource } from './base.ts';

/** Discord webhook (its URL is the credential: urlSecret). */
export interface DiscordChannel extends ChannelBase, UrlSource {
  type: 'discord';
}

export const discord: ChannelSpec<DiscordChannel> = urlOnlySpec<DiscordChannel>('discord');
