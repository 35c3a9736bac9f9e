/**
 * PagerDuty's Events API v2: an incident's messages share its id as dedup_key, so "opened" and
 * "escalated" trigger one alert (the second with its new severity) and "resolved" resolves it.
 */
import type { NotifyEvent } from '../../../../shared/status/channels.ts';
import type { PagerDutyChannel } from '../../../../shared/status/channels/pagerduty.ts';
import type { NotificationMessage } from '../../../../shared/status/messages.ts';
import { DeliveryError } from '../delivery-error.ts';
import { expand, jsonRequest, secret, type Sender } from './sender.ts';

const PAGERDUTY_EVENTS = 'https://events.pagerduty.com/v2/enqueue';
const PAGERDUTY_SUMMARY_MAX = 1_024;
const PAGERDUTY_DEDUP_MAX = 255;
/** PagerDuty re-alerts by itself while an alert is open: a reminder has no event (and our incidents no acknowledgement). */
const PAGERDUTY_ACTION: Record<NotifyEvent, 'trigger' | 'resolve' | null> = {
  opened: 'trigger',
  escalated: 'trigger',
  resolved: 'resolve',
  reminder: null,
};

function pagerDutyEvent(m: NotificationMessage, routingKey: string, action: 'trigger' | 'resolve'): unknown {
  const dedup_key = m.incident.id.slice(0, PAGERDUTY_DEDUP_MAX);
  if (action === 'resolve') return { routing_key: routingKey, event_action: action, dedup_key };
  const f = m.facts;
  const rules = [...new Set(m.event.regions.flatMap((r) => r.fired.map((x) => x.rule)))];
  return {
    routing_key: routingKey,
    event_action: action,
    dedup_key,
    payload: {
      summary: `${f.target}, ${m.incident.prompt_variant} prompt — ${f.level} in ${f.regions}: ${f.rule}`.slice(0, PAGERDUTY_SUMMARY_MAX),
      source: m.incident.target,
      severity: m.event.severity === 'down' ? 'critical' : 'warning',
      timestamp: m.event.at,
      component: m.incident.prompt_variant,
      group: m.event.regions.map((r) => r.region).join(',') || m.incident.regions.join(','),
      class: (rules.length > 0 ? rules : m.incident.rules).join(','),
      custom_details: { ...f, incident: m.incident.id },
    },
    ...(m.link ? { links: [{ href: m.link, text: 'The incident on the status page' }], client_url: m.link } : {}),
    client: 'LLM latency observatory',
  };
}

export const pagerduty: Sender<PagerDutyChannel> = {
  kind: 'pagerduty',
  request(c, m, env) {
    const action = PAGERDUTY_ACTION[m.sent_for];
    return action === null
      ? null
      : jsonRequest(m, expand(c.url ?? PAGERDUTY_EVENTS, env), pagerDutyEvent(m, secret(env, c.routingKeySecret), action));
  },
  check(status, text, reply) {
    if (status === 400)
      throw new DeliveryError('rejected', `PagerDuty refused the event (HTTP 400), not retried${text ? `: ${reply(200)}` : ''}`, 400);
  },
};
