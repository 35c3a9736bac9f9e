/**
 * What every notification channel shares (the kinds are one file each beside this, listed in index.ts):
 * the messages it can get, its routing, and the shape of a channel's pure definition (ChannelSpec).
 */
export const NOTIFY_EVENTS = ['opened', 'escalated', 'resolved', 'reminder'] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

export interface ChannelBase {
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

/** A URL given directly (or as {VAR}), or the name of a Worker secret holding it. */
export interface UrlSource {
  url?: string;
  urlSecret?: string;
}

const SECRET = /^[A-Z][A-Z0-9_]{0,63}$/;
const VAR_URL = /^\{[A-Z][A-Z0-9_]*\}/;

/** The checks a channel's `validate` uses, each returning its problems in words a user can act on. */
export interface ChannelChecks {
  /** `notifications channel "<name>"`, the start of each problem. */
  readonly where: string;
  /** A URL source: url (http(s) or {VAR}) or urlSecret, exactly one. */
  url(c: UrlSource): string[];
  /** A field naming a Worker secret (UPPER_SNAKE_CASE). */
  secret(field: string, value: string | undefined, required: boolean): string[];
}

export function channelChecks(where: string): ChannelChecks {
  return {
    where,
    url(c) {
      if ((c.url === undefined) === (c.urlSecret === undefined)) return [`${where}: give url (or {VAR}) or urlSecret, exactly one`];
      if (c.urlSecret !== undefined)
        return SECRET.test(c.urlSecret) ? [] : [`${where}: urlSecret must name a Worker secret in UPPER_SNAKE_CASE, got "${c.urlSecret}"`];
      if (VAR_URL.test(c.url!)) return [];
      try {
        const u = new URL(c.url!);
        if (u.protocol !== 'https:' && u.protocol !== 'http:') return [`${where}: url must be http or https`];
      } catch {
        return [`${where}: url "${c.url}" is not a URL (or {VAR})`];
      }
      return [];
    },
    secret(field, value, required) {
      if (value === undefined) return required ? [`${where}: ${field} is required (the name of a Worker secret)`] : [];
      return SECRET.test(value) ? [] : [`${where}: ${field} must name a Worker secret in UPPER_SNAKE_CASE, got "${value}"`];
    },
  };
}

/** A kind of channel, as configured and checked (its sending is workers/observatory/notify/channels/<kind>.ts). */
export interface ChannelSpec<C extends ChannelBase & { type: string }> {
  readonly kind: C['type'];
  /** The Worker secrets it names (unset ones left out). */
  secrets(c: C): Array<string | undefined>;
  /** Its configured text that may hold `{VAR}`s (its URLs). */
  varText(c: C): string;
  /** The messages it gets when it names none (default: all). */
  readonly defaultEvents?: readonly NotifyEvent[];
  /** Its own fields' problems. */
  validate(c: C, check: ChannelChecks): string[];
}

/** The spec of a channel whose only field is its URL (or the secret holding it): Slack, Discord, Teams, Google Chat. */
export const urlOnlySpec = <C extends ChannelBase & UrlSource & { type: string }>(kind: C['type']): ChannelSpec<C> => ({
  kind,
  secrets: (c) => [c.urlSecret],
  varText: (c) => c.url ?? '',
  validate: (c, check) => check.url(c),
});
