/** A Discord webhook: the message's text, within Discord's length, mentioning no one. */
import type { DiscordChannel } from '../../../../shared/status/channels/discord.ts';
import { jsonRequest, urlOf, type Sender } from './sender.ts';

const DISCORD_MAX = 2_000;

export const discord: Sender<DiscordChannel> = {
  kind: 'discord',
  request: (c, m, env) => jsonRequest(m, urlOf(c, env), { content: m.text.slice(0, DISCORD_MAX), allowed_mentions: { parse: [] } }),
};
