import type { ChannelBase, ChannelSpec, UrlSource } from './base.ts';

/** ntfy topic URL (https://ntfy.sh/<topic> or your server), with an optional access token. */
export interface NtfyChannel extends ChannelBase, UrlSource {
  type: 'ntfy';
  tokenSecret?: string;
}

export const ntfy: ChannelSpec<NtfyChannel> = {
  kind: 'ntfy',
  secrets: (c) => [c.urlSecret, c.tokenSecret],
  varText: (c) => c.url ?? '',
  validate: (c, check) => [...check.url(c), ...check.secret('tokenSecret', c.tokenSecret, false)],
};
