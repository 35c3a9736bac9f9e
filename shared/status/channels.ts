/**
 * Notification channels as configured: each has a name (the key its deliveries are recorded under)
 * and a type. URLs may be written `{VAR}` to come from a Worker variable; anything secret (a webhook
 * URL that is its own credential, a bot token, a signing key) is named here and held as a Worker
 * secret (`wrangler secret put NAME`), never written in the config.
 */
export const CHANNEL_TYPES = ['webhook', 'slack', 'discord', 'telegram', 'ntfy', 'email', 'pagerduty', 'teams', 'google-chat'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

export const NOTIFY_EVENTS = ['opened', 'escalated', 'resolved', 'reminder'] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

interface ChannelBase {
  name: string;
  /** Which messages it gets (default: all four; PagerDuty has no reminder). */
  events?: NotifyEvent[];
  /** Only the incidents of these targets (ids; default every target). */
  targets?: string[];
  /** Only the incidents that have affected one of these regions (codes; default every region). */
  regions?: string[];
  /**
   * Also one message per published weekly report and correction (docs/REPORTS.md): its leaders, its changes and its
   * link. For the channels whose message is its text or JSON (DIGEST_CHANNEL_TYPES); default false.
   */
  digest?: boolean;
}

/** The channel types a weekly report's digest goes to: those that send a message's title and text, or its JSON. */
export const DIGEST_CHANNEL_TYPES = ['webhook', 'slack', 'discord', 'telegram', 'email'] as const satisfies readonly ChannelType[];

/** A URL given directly (or as {VAR}), or the name of a Worker secret holding it. */
export interface UrlSource {
  url?: string;
  urlSecret?: string;
}

/** JSON body with Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, and `webhook-signature` when signingSecret names a secret holding `whsec_` keys). */
export interface WebhookChannel extends ChannelBase, UrlSource {
  type: 'webhook';
  signingSecret?: string;
}
/** Slack incoming webhook (its URL is the credential: urlSecret). */
export interface SlackChannel extends ChannelBase, UrlSource {
  type: 'slack';
}
/** Discord webhook (its URL is the credential: urlSecret). */
export interface DiscordChannel extends ChannelBase, UrlSource {
  type: 'discord';
}
/** Telegram Bot API sendMessage. */
export interface TelegramChannel extends ChannelBase {
  type: 'telegram';
  botTokenSecret: string;
  chatId: string;
  apiBase?: string;
}
/** ntfy topic URL (https://ntfy.sh/<topic> or your server), with an optional access token. */
export interface NtfyChannel extends ChannelBase, UrlSource {
  type: 'ntfy';
  tokenSecret?: string;
}
/** Email through Cloudflare's send_email binding (Email Routing: `to` must be a verified address). */
export interface EmailChannel extends ChannelBase {
  type: 'email';
  binding: string;
  from: string;
  to: string;
}

/**
 * PagerDuty Events API v2: an incident's messages share its id as `dedup_key`, so "opened" triggers an
 * alert, "escalated" triggers it again (its new severity) and "resolved" resolves it. PagerDuty re-alerts
 * by itself: it gets no reminders. (Our incidents have no acknowledgement, so none is ever sent.)
 */
export interface PagerDutyChannel extends ChannelBase {
  type: 'pagerduty';
  /** The Worker secret holding the integration's routing key. */
  routingKeySecret: string;
  /** Default https://events.pagerduty.com/v2/enqueue (or {VAR}). */
  url?: string;
}
/** Microsoft Teams Workflows webhook ("Post to a channel when a webhook request is received"): an Adaptive Card. Its URL is the credential: urlSecret. */
export interface TeamsChannel extends ChannelBase, UrlSource {
  type: 'teams';
}
/** Google Chat space webhook; an incident's messages reply in one thread. Its URL is the credential: urlSecret. */
export interface GoogleChatChannel extends ChannelBase, UrlSource {
  type: 'google-chat';
}

export type ChannelConfig =
  | WebhookChannel
  | SlackChannel
  | DiscordChannel
  | TelegramChannel
  | NtfyChannel
  | EmailChannel
  | PagerDutyChannel
  | TeamsChannel
  | GoogleChatChannel;

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
  const secrets = [
    'urlSecret' in c ? c.urlSecret : undefined,
    c.type === 'webhook' ? c.signingSecret : undefined,
    c.type === 'ntfy' ? c.tokenSecret : undefined,
    c.type === 'telegram' ? c.botTokenSecret : undefined,
    c.type === 'pagerduty' ? c.routingKeySecret : undefined,
  ].filter((s): s is string => typeof s === 'string');
  const text = ('url' in c && c.url ? c.url : '') + (c.type === 'telegram' ? (c.apiBase ?? '') : '');
  return { secrets, vars: [...text.matchAll(/\{([A-Z][A-Z0-9_]*)\}/g)].map((m) => m[1]) };
}

/** The messages a channel gets when it names none: all, but PagerDuty, which re-alerts by itself, no reminder. */
export const defaultEvents = (c: ChannelConfig): readonly NotifyEvent[] =>
  c.type === 'pagerduty' ? NOTIFY_EVENTS.filter((e) => e !== 'reminder') : NOTIFY_EVENTS;

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
