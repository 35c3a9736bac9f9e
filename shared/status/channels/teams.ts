import { urlOnlySpec, type ChannelBase, type ChannelSpec, type UrlSource } from './base.ts';

/** Microsoft Teams Workflows webhook ("Post to a channel when a webhook request is received"): an Adaptive Card. Its URL is the credential: urlSecret. */
export interface TeamsChannel extends ChannelBase, UrlSource {
  type: 'teams';
}

export const teams: ChannelSpec<TeamsChannel> = urlOnlySpec<TeamsChannel>('teams');
