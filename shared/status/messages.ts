/**
 * What a notification says, for every channel: the webhook's JSON document (documented in the
 * docs/STATUS.md) and the short text chat channels show. Built once when the message is queued, so a retry
 * sends the same bytes.
 */
import type { Incident, IncidentEvent } from './incidents.ts';
import type { NotifyEvent } from './channels.ts';

export interface NotificationMessage {
  /** Unique per incident, event and channel: receivers can drop a repeat by it. */
  delivery_id: string;
  type: `incident.${NotifyEvent}`;
  sent_for: NotifyEvent;
  incident: {
    id: string;
    target: string;
    target_label: string;
    prompt_variant: string;
    status: Incident['status'];
    severity: Incident['severity'];
    scope: Incident['scope'];
    regions: string[];
    rules: string[];
    opened_at: string;
    resolved_at: string | null;
  };
  event: Omit<IncidentEvent, 'at'> & { at: string };
  title: string;
  text: string;
}

const iso = (t: number) => new Date(t).toISOString();
const clock = (t: number) => `${iso(t).slice(0, 16).replace('T', ' ')} UTC`;
const ICON: Record<NotifyEvent, string> = { opened: '🔴', escalated: '🟠', resolved: '✅', reminder: '🔔' };
const WORD: Record<NotifyEvent, string> = {
  opened: 'Incident opened',
  escalated: 'Incident escalated',
  resolved: 'Incident resolved',
  reminder: 'Incident still open',
};

export function buildMessage(
  kind: NotifyEvent,
  incident: Incident,
  event: IncidentEvent,
  label: string,
  deliveryId: string,
): NotificationMessage {
  const where = incident.scope === 'target' ? 'all regions' : incident.regions.join(', ');
  const title = `${ICON[kind]} ${WORD[kind]}: ${label} — ${kind === 'resolved' ? 'operational' : event.severity} (${where})`;
  const lines = [
    title,
    event.summary,
    kind === 'resolved'
      ? `Open from ${clock(incident.opened_at)} to ${clock(event.at)}.`
      : `Since ${clock(incident.opened_at)}; last evaluated ${clock(event.at)}.`,
    `Incident ${incident.id}`,
  ];
  return {
    delivery_id: deliveryId,
    type: `incident.${kind}`,
    sent_for: kind,
    incident: {
      id: incident.id,
      target: incident.target,
      target_label: label,
      prompt_variant: incident.variant,
      status: incident.status,
      severity: incident.severity,
      scope: incident.scope,
      regions: incident.regions,
      rules: incident.rules,
      opened_at: iso(incident.opened_at),
      resolved_at: incident.resolved_at === null ? null : iso(incident.resolved_at),
    },
    event: { ...event, at: iso(event.at) },
    title,
    text: lines.join('\n'),
  };
}
