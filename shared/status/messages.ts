/**
 * What a notification says, for every channel: the webhook's JSON document (documented in the
 * docs/STATUS.md), the short text chat channels show and the facts cards list. Each names the
 * workload (target, prompt variant, regions) and the rule that fired with its numbers, in words. Built
 * once when the message is queued, so a retry sends the same bytes.
 */
import type { Incident, IncidentEvent, IncidentRegion } from './incidents.ts';
import type { RuleName, RuleResult } from './evaluate.ts';
import type { NotifyEvent } from './channels.ts';

/** The names a message shows, from the configuration (or the ids when it no longer has them). */
export interface MessageContext {
  targetLabel: string;
  variantLabel: string;
  /** The public report site, for the link to the incident. */
  siteUrl?: string;
}

/** What a person reads first, as card facts (titles in FACT_TITLES). */
export interface MessageFacts {
  target: string;
  variant: string;
  regions: string;
  rule: string;
  level: string;
  since: string;
}

export const FACT_TITLES: Record<keyof MessageFacts, string> = {
  target: 'Target',
  variant: 'Prompt variant',
  regions: 'Regions',
  rule: 'Rule',
  level: 'Level',
  since: 'Since',
};

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
    prompt_variant_label: string;
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
  facts: MessageFacts;
  /** The incident on the public report site, when notifications.siteUrl is set. */
  link: string | null;
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
const RULE_WORD: Record<RuleName, string> = {
  down: 'failing probes',
  errors: 'error rate',
  ttft: 'TTFT p99',
  itl: 'ITL p99',
  decode: 'decode speed',
};

const duration = (ms: number) => (ms >= 1_000 ? `${(ms / 1_000).toFixed(1)} s` : `${Math.round(ms)} ms`);
const percent = (v: number) => `${Math.round(v * 100)} %`;
const probes = (n: number) => `${n} probe${n === 1 ? '' : 's'}`;
const speed = (v: number) => `${v.toFixed(v >= 100 ? 0 : 1)} tokens/s`;

/** A fired rule with its numbers, for a person: "error rate 40 % of 15 probes (limit 40 %)". */
export function ruleWords(r: RuleResult): string {
  const { value, estimate, threshold, baseline } = r;
  switch (r.rule) {
    case 'errors':
      if (value !== null && threshold !== null) return `error rate ${percent(value)} of ${probes(r.n)} (limit ${percent(threshold)})`;
      break;
    case 'ttft':
      if ((estimate ?? value) !== null && baseline !== null)
        return `p99 TTFT ${duration((estimate ?? value)!)} against a baseline of ${duration(baseline)} (${probes(r.n)})`;
      break;
    case 'itl':
      if (value !== null && threshold !== null)
        return `ITL p99 above ${duration(threshold)} in all of ${probes(r.n)} (the lowest ${duration(value)})`;
      break;
    case 'decode':
      if ((estimate ?? value) !== null && baseline !== null)
        return `decode speed p50 ${speed((estimate ?? value)!)} against a baseline of ${speed(baseline)} (${probes(r.n)})`;
      break;
  }
  // down ("the last 3 probes failed (HTTP 503 …)") is worded so already; so is a result without its figures.
  return r.note;
}

/** Why one region is where it is: its fired rules, and which part of TTFT moved. */
function regionWhy(r: IncidentRegion): string {
  if (r.fired.length === 0) return 'recovering, waiting for its confirmation';
  const moved = r.shift && r.fired.some((f) => f.rule === 'ttft') && r.shift.moved !== 'neither' ? r.shift.moved : null;
  const shift = moved === null ? '' : moved === 'both' ? '; server and network both slower' : `; the ${moved} got slower`;
  return r.fired.map(ruleWords).join('; ') + shift;
}

export function buildMessage(
  kind: NotifyEvent,
  incident: Incident,
  event: IncidentEvent,
  names: MessageContext,
  deliveryId: string,
): NotificationMessage {
  const resolved = kind === 'resolved';
  const regions = resolved || event.regions.length === 0 ? incident.regions : event.regions.map((r) => r.region);
  const where = `${regions.join(', ')}${!resolved && event.scope === 'target' ? ' (the target as a whole)' : ''}`;
  const level = resolved ? 'operational again' : event.severity;
  const title = `${ICON[kind]} ${WORD[kind]}: ${names.targetLabel}, ${incident.variant} prompt — ${level} in ${where}`;
  const firedBefore = incident.rules.map((r) => RULE_WORD[r] ?? r).join(', ');
  const rule = resolved
    ? `none firing now (it fired: ${firedBefore})`
    : event.regions.length === 1
      ? regionWhy(event.regions[0])
      : event.regions.map((r) => `${r.region}: ${regionWhy(r)}`).join(' · ');
  const link = names.siteUrl ? `${names.siteUrl.replace(/\/$/, '')}/incidents/#${encodeURIComponent(incident.id)}` : null;
  const lines = [
    title,
    `${names.targetLabel} · prompt variant ${names.variantLabel}`,
    ...(resolved
      ? [`Every region operational again; it was ${incident.severity} in ${incident.regions.join(', ')} (${firedBefore}).`]
      : event.regions.map((r) => `${r.region} ${r.state}: ${regionWhy(r)}`)),
    resolved
      ? `Open from ${clock(incident.opened_at)} to ${clock(event.at)}.`
      : `Since ${clock(incident.opened_at)}; last evaluated ${clock(event.at)}.`,
    `Incident ${incident.id}${link ? `: ${link}` : ''}`,
  ];
  return {
    delivery_id: deliveryId,
    type: `incident.${kind}`,
    sent_for: kind,
    incident: {
      id: incident.id,
      target: incident.target,
      target_label: names.targetLabel,
      prompt_variant: incident.variant,
      prompt_variant_label: names.variantLabel,
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
    facts: {
      target: names.targetLabel,
      variant: names.variantLabel,
      regions: where,
      rule,
      level: resolved ? `operational (was ${incident.severity})` : event.severity,
      since: resolved ? `${clock(incident.opened_at)}, resolved ${clock(event.at)}` : clock(incident.opened_at),
    },
    link,
  };
}
