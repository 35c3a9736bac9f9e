import { urlOnlySpec, type ChannelBase, type ChannelSpec, type UrlSource } from './base.ts';

/** Google Chat space webhook; an incident's messages reply in one thread. Its URL is the credential: urlSecret. */
export interface GoogleChatChannel extends ChannelBase, UrlSource {
  type: 'google-chat';
}

export const googleChat: ChannelSpec<GoogleChatChannel> = urlOnlySpec<GoogleChatChannel>('google-chat');
