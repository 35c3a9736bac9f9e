/**
 * Every kind of notification channel, one file each with the same exports (a config type and a
 * ChannelSpec: kind, secrets, varText, defaultEvents, validate); their sending is
 * workers/observatory/notify/channels/, one file each, listed in its SENDERS. A kind added is a file
 * here and a line below, and a sender there (the Worker does not compile without it).
 */
import type { ChannelSpec } from './base.ts';
import { discord } from './discord.ts';
import { email } from './email.ts';
import { googleChat } from './google-chat.ts';
import { ntfy } from './ntfy.ts';
import { pagerduty } from './pagerduty.ts';
import { slack } from './slack.ts';
import { teams } from './teams.ts';
import { telegram } from './telegram.ts';
import { webhook } from './webhook.ts';

export const CHANNEL_SPECS = [webhook, slack, discord, telegram, ntfy, email, pagerduty, teams, googleChat] as const;

type ConfigOf<S> = S extends ChannelSpec<infer C> ? C : never;

/** A channel as configured: one of the kinds above. */
export type ChannelConfig = ConfigOf<(typeof CHANNEL_SPECS)[number]>;
export type ChannelType = ChannelConfig['type'];

export const CHANNEL_TYPES: readonly ChannelType[] = CHANNEL_SPECS.map((s) => s.kind);

/** The definition of a channel's kind (undefined for a kind no file defines: the config check says so). */
export function specOf(type: string): ChannelSpec<ChannelConfig> | undefined {
  return CHANNEL_SPECS.find((s) => s.kind === type) as ChannelSpec<ChannelConfig> | undefined;
}
