/**
 * Notification channels as configured: each has a name (the key its deliveries are recorded under)
 * and a type, one file each under channels/ (their registry: channels/index.ts). URLs may be written
 * `{VAR}` to come from a Worker variable; anything secret (a webhook
 * URL that is its own credential, a bot token, a signing key) is named here and held as a Worker
 * secret (`wrangler secret put NAME`), never written in the config.
 */
import { NOTIFY_EVENTS, type NotifyEvent } from './channels/base.ts';
import { specOf, type ChannelConfig, type ChannelType } from './channels/index.ts';

export { NOTIFY_EVENTS, type ChannelBase, type NotifyEvent, type UrlSource } from './channels/base.ts';
export { CHANNEL_SPECS, CHANNEL_TYPES, specOf, type ChannelConfig, type ChannelType } from './channels/index.ts';

/** The channel types a weekly report's digest goes to: those that send a message's title and text, or its JSON. */
export const DIGEST_CHANNEL_TYPES = ['webhook', 'slack', 'discord', 'telegram', 'email'] as const satisfies readonly ChannelType[];

export interface NotificationsConfig {
  channels: ChannelConfig[];
  /** The public report site (https://…), for each message's link to its incident; none when unset. */
  siteUrl?: string;
  /** Minutes between reminders while an incident stays open; 0 for none (default 60). */
  reminderMinutes?: number;
}

export const DEFAULT_REMINDER_MINUTES = 60;

/** The Worker secrets a channel needs, and the {VAR}s its URL depends on (a channel whose VAR is empty is inactive). */
export function channelSecrets(c: ChannelConfig): { secrets: string[]; vars: string[] } {
  const spec = specOf(c.type);
  const secrets = (spec?.secrets(c) ?? []).filter((s): s is string => typeof s === 'string');
  const text = spec?.varText(c) ?? '';
  return { secrets, vars: [...text.matchAll(/\{([A-Z][A-Z0-9_]*)\}/g)].map((m) => m[1]) };
}

/** The messages a channel gets when it names none: all, but PagerDuty, which re-alerts by itself, no reminder. */
export const defaultEvents = (c: ChannelConfig): readonly NotifyEvent[] => specOf(c.type)?.defaultEvents ?? NOTIFY_EVENTS;

/**
 * Whether a channel gets an incident's message of this kind: its events, its targets, and its regions
 * (the regions the incident has affected so far, so once it gets an incident it also gets its resolution).
 */
export function routesTo(c: ChannelConfig, kind: NotifyEvent, incident: { target: string; regions: readonly string[] }): boolean {
  return (
    (c.events ?? defaultEvents(c)).includes(kind) &&
    (c.targets === undefined || c.targets.includes(incident.target)) &&
    (c.regions === undefined || incident.regions.some((r) => c.regions!.includes(r)))
  );
}
