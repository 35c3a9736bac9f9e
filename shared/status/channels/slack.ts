import { urlOnlySpec, type ChannelBase, type ChannelSpec, type UrlSource } from './base.ts';

/** Slack incoming webhook (its URL is the credential: urlSecret). */
export interface SlackChannel extends ChannelBase, UrlSource {
  type: 'slack';
}

export const slack: ChannelSpec<SlackChannel> = urlOnlySpec<SlackChannel>('slack');
