import { NOTIFY_EVENTS, type ChannelBase, type ChannelSpec } from './base.ts';

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

export const pagerduty: ChannelSpec<PagerDutyChannel> = {
  kind: 'pagerduty',
  secrets: (c) => [c.routingKeySecret],
  varText: (c) => c.url ?? '',
  defaultEvents: NOTIFY_EVENTS.filter((e) => e !== 'reminder'),
  validate(c, check) {
    const p = check.secret('routingKeySecret', c.routingKeySecret, true);
    if (c.url !== undefined) p.push(...check.url({ url: c.url }));
    if (c.events?.includes('reminder'))
      p.push(
        `${check.where}: PagerDuty re-alerts by itself while an alert is open; it takes no "reminder" (events: opened, escalated, resolved)`,
      );
    return p;
  },
};
