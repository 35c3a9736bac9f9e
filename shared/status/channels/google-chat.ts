import type { ChannelBase, ChannelSpec, UrlSource } from './base.ts';

/** Google Chat space webhook; an incident's messages reply in one thread. Its URL is the credential: urlSecret. */
export interface GoogleChatChannel extends ChannelBase, UrlSource {
  type: 'google-chat';
}

export const googleChat: ChannelSpec<GoogleChatChannel> = {
  kind: 'google-chat',
  secrets: (c) => [c.urlSecret],
  varText: (c) => c.url ?? '',
  validate: (c, check) => check.url(c),
};
