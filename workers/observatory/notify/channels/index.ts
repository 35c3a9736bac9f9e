/**
 * How each kind of channel sends (one file each, the same exports: a Sender with kind, request or send,
 * and check); their configuration and checks are shared/status/channels/. Every kind there must have its
 * sender here: this record does not compile without it.
 */
import type { ChannelConfig, ChannelType } from '../../../../shared/status/channels.ts';
import { discord } from './discord.ts';
import { email } from './email.ts';
import { googleChat } from './google-chat.ts';
import { ntfy } from './ntfy.ts';
import { pagerduty } from './pagerduty.ts';
import type { Sender } from './sender.ts';
import { slack } from './slack.ts';
import { teams } from './teams.ts';
import { telegram } from './telegram.ts';
import { webhook } from './webhook.ts';

export const SENDERS: { [K in ChannelType]: Sender<Extract<ChannelConfig, { type: K }>> } = {
  webhook,
  slack,
  discord,
  telegram,
  ntfy,
  email,
  pagerduty,
  teams,
  'google-chat': googleChat,
};

export const senderOf = (c: ChannelConfig): Sender<ChannelConfig> => SENDERS[c.type] as Sender<ChannelConfig>;
