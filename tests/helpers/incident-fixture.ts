/** Incidents and their events as the status keeper records them (shared/status/incidents.ts), for the notification tests. */
import type { RuleResult } from '../../shared/status/evaluate.ts';
import type { Incident, IncidentEvent } from '../../shared/status/incidents.ts';

/** 2026-01-05 10:00 UTC. */
export const T0 = Date.UTC(2026, 0, 5, 10, 0);
const MINUTE = 60_000;

export const ERRORS_FIRED: RuleResult = {
  rule: 'errors',
  outcome: 'fired',
  n: 15,
  value: 0.6,
  estimate: null,
  threshold: 0.4,
  baseline: null,
  note: '9 of 15 probes failed in 15 min (60 %; limit 40 %)',
};
export const TTFT_FIRED: RuleResult = {
  rule: 'ttft',
  outcome: 'fired',
  n: 15,
  value: 2_400,
  estimate: 2_900,
  threshold: 1_650,
  baseline: 1_100,
  note: 'TTFT p99 ≥ 2,400 ms (95 % lower bound, n=15) against 1,650 ms, 1.5× the baseline p99 of 1,100 ms',
};
export const DOWN_FIRED: RuleResult = {
  rule: 'down',
  outcome: 'fired',
  n: 3,
  value: 3,
  estimate: null,
  threshold: 3,
  baseline: null,
  note: 'the last 3 probes failed (HTTP 503)',
};

export interface Step {
  incident: Incident;
  event: IncidentEvent;
}

/** A regional incident of target × variant opened at `at` in `regions`, by the rules `fired`. */
export function opened(target: string, variant: string, regions: string[], fired: RuleResult[], at = T0): Step {
  const severity = fired.some((f) => f.rule === 'down') ? 'down' : 'degraded';
  const event: IncidentEvent = {
    seq: 0,
    at,
    kind: 'opened',
    severity,
    scope: 'regional',
    regions: regions.map((region) => ({ region, state: severity, fired, shift: null })),
    summary: `${target}: ${severity} (regional problem in ${regions.join(', ')})`,
  };
  const incident: Incident = {
    id: `${at}-${target}-${variant}`,
    target,
    variant,
    status: 'open',
    severity,
    scope: 'regional',
    regions,
    rules: fired.map((f) => f.rule),
    opened_at: at,
    updated_at: at,
    resolved_at: null,
    timeline: [event],
    points: [],
  };
  return { incident, event };
}

/** The incident escalated to down (its regions' last probes all failed), 10 minutes on. */
export function escalated({ incident }: Step): Step {
  const at = incident.updated_at + 10 * MINUTE;
  const event: IncidentEvent = {
    seq: incident.timeline.length,
    at,
    kind: 'escalated',
    severity: 'down',
    scope: incident.scope,
    regions: incident.regions.map((region) => ({ region, state: 'down', fired: [DOWN_FIRED, ERRORS_FIRED], shift: null })),
    summary: `${incident.target}: down`,
  };
  const rules = [...new Set([...incident.rules, 'down' as const, 'errors' as const])];
  return { incident: { ...incident, severity: 'down', rules, updated_at: at, timeline: [...incident.timeline, event] }, event };
}

/** The incident resolved, 30 minutes on. */
export function resolved({ incident }: Step): Step {
  const at = incident.updated_at + 30 * MINUTE;
  const event: IncidentEvent = {
    seq: incident.timeline.length,
    at,
    kind: 'resolved',
    severity: incident.severity,
    scope: incident.scope,
    regions: [],
    summary: `${incident.target}: resolved, every region operational again`,
  };
  return {
    incident: { ...incident, status: 'resolved', updated_at: at, resolved_at: at, timeline: [...incident.timeline, event] },
    event,
  };
}
