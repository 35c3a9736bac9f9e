/**
 * Incidents, one per target × prompt variant at a time: opened when any of its regions turns
 * degraded or down, updated as regions join or leave, escalated when it gets worse (down, or the
 * target as a whole instead of some regions), resolved when every region is back. Pure: the status
 * keeper feeds it each evaluation in tick order, so a repeated evaluation (already refused by
 * pair-state.ts) can never open a second incident.
 */
import type { Level, RuleName, RuleResult, SplitShift } from './evaluate.ts';
import { worse, worst, type PairState, type TargetStatus } from './pair-state.ts';

export type IncidentEventKind = 'opened' | 'escalated' | 'updated' | 'resolved';
export type IncidentScope = 'target' | 'regional';

export interface IncidentRegion {
  region: string;
  state: Level;
  /** The rules that fired at this evaluation (empty while a recovery is being confirmed). */
  fired: RuleResult[];
  shift: SplitShift | null;
}

export interface IncidentEvent {
  seq: number;
  /** The tick evaluated. */
  at: number;
  kind: IncidentEventKind;
  severity: Level;
  scope: IncidentScope;
  regions: IncidentRegion[];
  summary: string;
}

/** One probe of an affected region during the incident, for its chart. */
export interface IncidentPoint {
  t: number;
  region: string;
  ttft_ms: number | null;
  error: boolean;
  /** Baseline TTFT p99 and the rule's threshold, when the TTFT rule could be evaluated. */
  baseline: number | null;
  threshold: number | null;
}

export interface Incident {
  id: string;
  target: string;
  variant: string;
  status: 'open' | 'resolved';
  severity: Level;
  scope: IncidentScope;
  /** Every region affected at any point. */
  regions: string[];
  /** Every rule that fired at any point. */
  rules: RuleName[];
  opened_at: number;
  updated_at: number;
  resolved_at: number | null;
  timeline: IncidentEvent[];
  points: IncidentPoint[];
  /** The maintenance windows it was annotated with (status-keeper.ts): each once. */
  maintenance?: string[];
}

/** Points kept per incident (a long incident keeps its newest). */
export const MAX_INCIDENT_POINTS = 600;
/** Probes of each affected region before the opening that the incident keeps for its chart. */
export const POINTS_BEFORE = 6;

const byTime = (a: IncidentPoint, b: IncidentPoint) => a.t - b.t || a.region.localeCompare(b.region);
const isBad = (p: PairState) => p.state === 'degraded' || p.state === 'down';
const fmt = (v: number) => Math.round(v).toLocaleString('en-US');

function shiftWords(s: SplitShift | null): string {
  if (!s) return '';
  const sign = (v: number) => `${v >= 0 ? '+' : '−'}${fmt(Math.abs(v))} ms`;
  return ` (server ${sign(s.server_delta_ms)}, network ${sign(s.network_delta_ms)}: ${s.moved === 'neither' ? 'neither part slower' : s.moved === 'both' ? 'both parts slower' : `the ${s.moved} got slower`})`;
}

/** What a region's evidence says in words: the rules that fired (TTFT's with the split's shift), or that it is recovering. */
export function firedWords(fired: readonly RuleResult[], shift: SplitShift | null): string {
  return fired.length > 0
    ? fired.map((f) => f.note + (f.rule === 'ttft' ? shiftWords(shift) : '')).join('; ')
    : 'recovering, waiting for its confirmation';
}

export function describeRegion(r: IncidentRegion): string {
  const why = firedWords(r.fired, r.shift);
  return `${r.region} ${r.state}: ${why}`;
}

export interface IncidentStep {
  incident: Incident | null;
  event: IncidentEvent | null;
}

/**
 * The target's incident once every region has been evaluated at `tick` (the keeper waits for the
 * slowest region until the tick's deadline, so one tick's reports make one step; a late report makes
 * a step of its own, status-judge.ts): `pairs` are the target's pair states,
 * `status` its aggregate. Returns the incident (null when none is open; a just-resolved one is
 * returned once) and the event to record, if any.
 */
export function stepIncident(
  open: Incident | null,
  status: TargetStatus,
  pairs: readonly PairState[],
  tick: number,
  label: string,
): IncidentStep {
  const affected = pairs.filter(isBad).sort((a, b) => a.region.localeCompare(b.region));
  const regions: IncidentRegion[] = affected.map((p) => ({
    region: p.region,
    state: p.state as Level,
    fired: p.finding.rules.filter((r) => r.outcome === 'fired'),
    shift: p.finding.shift,
  }));
  const pointOf = (f: PairState['finding'], region: string): IncidentPoint => ({
    t: f.tick_id,
    region,
    ttft_ms: f.sample?.ttft_ms ?? null,
    error: f.sample?.error != null,
    baseline: f.baseline?.ttft_p99 ?? null,
    threshold: f.rules.find((r) => r.rule === 'ttft')?.threshold ?? null,
  });
  const withPoints = (i: Incident): Incident => {
    // Each probe once (a late report's step sees the others' probes of that tick again), in time order whatever
    // order the regions' steps came in (a late report adds its point behind newer ones).
    const had = new Set(i.points.map((p) => `${p.t}|${p.region}`));
    const points = pairs
      .filter((p) => p.finding.tick_id === tick && i.regions.includes(p.region) && !had.has(`${tick}|${p.region}`))
      .map((p) => pointOf(p.finding, p.region));
    return points.length === 0 ? i : { ...i, points: [...i.points, ...points].sort(byTime).slice(-MAX_INCIDENT_POINTS) };
  };
  /** At the opening, the affected regions' probes of the ticks before it: the chart shows what "normal" was. */
  const before = (regionsHit: string[]): IncidentPoint[] =>
    pairs
      .filter((p) => regionsHit.includes(p.region))
      .flatMap((p) =>
        (p.history ?? [])
          .filter((h) => h.tick < tick)
          .slice(-POINTS_BEFORE)
          .map((h) => pointOf(h.finding, p.region)),
      )
      .sort(byTime);
  if (affected.length === 0) {
    if (!open) return { incident: null, event: null };
    const event: IncidentEvent = {
      seq: open.timeline.length,
      at: tick,
      kind: 'resolved',
      severity: open.severity,
      scope: open.scope,
      regions: [],
      summary: `${label}: resolved, every region operational again`,
    };
    return {
      incident: withPoints({
        ...open,
        status: 'resolved',
        // Its last update is its resolution, even one a late report made at an older tick than the last step's.
        updated_at: tick,
        resolved_at: tick,
        timeline: [...open.timeline, event],
      }),
      event,
    };
  }
  const scope: IncidentScope = status.state === 'degraded' || status.state === 'down' ? 'target' : 'regional';
  const severity = (scope === 'target' ? status.state : worst(affected.map((p) => p.state))) as Level;
  const fired = [...new Set(regions.flatMap((r) => r.fired.map((f) => f.rule)))];
  const where =
    scope === 'target'
      ? `${affected.length} of ${status.regions.length} regions`
      : `regional problem in ${affected.map((p) => p.region).join(', ')}`;
  const summary = `${label}: ${severity} (${where}) — ${regions.map(describeRegion).join('; ')}`;
  if (!open) {
    const event: IncidentEvent = { seq: 0, at: tick, kind: 'opened', severity, scope, regions, summary };
    const incident: Incident = {
      id: `${tick}-${status.target}-${status.variant}`,
      target: status.target,
      variant: status.variant,
      status: 'open',
      severity,
      scope,
      regions: affected.map((p) => p.region),
      rules: fired,
      opened_at: tick,
      updated_at: tick,
      resolved_at: null,
      timeline: [event],
      points: before(affected.map((p) => p.region)),
    };
    return { incident: withPoints(incident), event };
  }
  const previous = open.timeline.at(-1)!;
  const escalated = worse(severity, open.severity) || (scope === 'target' && open.scope === 'regional');
  const changed =
    severity !== previous.severity ||
    scope !== previous.scope ||
    regions.map((r) => `${r.region}:${r.state}`).join() !== previous.regions.map((r) => `${r.region}:${r.state}`).join();
  const merged: Incident = {
    ...open,
    severity: escalated ? severity : open.severity,
    scope: scope === 'target' ? 'target' : open.scope,
    regions: [...new Set([...open.regions, ...affected.map((p) => p.region)])].sort(),
    rules: [...new Set([...open.rules, ...fired])],
    // A late report's step (status-judge.ts) may be of a tick older than the last one: the newest stays.
    updated_at: Math.max(open.updated_at, tick),
  };
  if (!escalated && !changed) return { incident: withPoints(merged), event: null };
  const event: IncidentEvent = {
    seq: open.timeline.length,
    at: tick,
    kind: escalated ? 'escalated' : 'updated',
    severity,
    scope,
    regions,
    summary,
  };
  return { incident: withPoints({ ...merged, timeline: [...merged.timeline, event] }), event };
}
