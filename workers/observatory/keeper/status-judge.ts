/**
 * The status keeper's judgement of ticks (shared/status/judgement.ts): each target × prompt variant's incident is
 * stepped once per tick, in tick order, once every region due at that tick has reported it or once its deadline has
 * passed (the keeper's alarm fires then). A tick waits in `waiting` from its first report until it is judged; the
 * newest judged tick is the target's frontier (`stepped`). A report of a tick at or behind the frontier is late: it
 * is applied on top of the judgement it missed (lateView), and may open, escalate or resolve an incident.
 */
import { firstPassId } from '../../../shared/config/work-list.ts';
import { stepIncident, type Incident, type IncidentStep } from '../../../shared/status/incidents.ts';
import {
  lateView,
  MAX_TICKS_AHEAD,
  missingAt,
  reportDeadlineMs,
  silentAfterMs,
  ticksAhead,
  viewAt,
} from '../../../shared/status/judgement.ts';
import { coveringWindow, type MaintenanceWindow } from '../../../shared/status/maintenance.ts';
import { targetStatus, type PairState } from '../../../shared/status/pair-state.ts';
import { getCapacity, getConfig, storedList, targetLabel, tickJobs } from '../config.ts';
import type { NotificationOutbox } from '../notify/outbox.ts';

type Row = Record<string, SqlStorageValue>;

/** The regions the configuration has probe (and store) the target × variant. */
export const regionsOf = (target: string, variant: string): string[] =>
  getConfig()
    .regions.map((r) => r.code)
    .filter((code) => storedList(code).some((w) => w.target.id === target && w.variant.id === variant));

export const JUDGE_TABLES = [
  // The newest tick each target's incident was stepped at: its frontier.
  'CREATE TABLE IF NOT EXISTS stepped (target TEXT NOT NULL, variant TEXT NOT NULL, tick INTEGER NOT NULL, PRIMARY KEY (target, variant)) WITHOUT ROWID',
  // Ticks reported by some region and not judged yet, each with its deadline (wall time).
  'CREATE TABLE IF NOT EXISTS waiting (target TEXT NOT NULL, variant TEXT NOT NULL, tick INTEGER NOT NULL, deadline_at INTEGER NOT NULL, PRIMARY KEY (target, variant, tick)) WITHOUT ROWID',
];

/** The regions whose share of the tick holds the target × variant (all of regionsOf unless the schedule is spread). */
export function dueRegions(target: string, variant: string, tick: number): string[] {
  const job = firstPassId(variant);
  return regionsOf(target, variant).filter((r) => tickJobs(r, tick).some((j) => j.target === target && j.variant === job));
}

export class TickJudge {
  private readonly storage: DurableObjectStorage;
  private readonly outbox: NotificationOutbox;

  constructor(storage: DurableObjectStorage, outbox: NotificationOutbox) {
    this.storage = storage;
    this.outbox = outbox;
  }

  migrate(): void {
    for (const statement of JUDGE_TABLES) this.storage.sql.exec(statement);
  }

  /** The newest judged tick of the target × variant (-Infinity before the first). */
  frontier(target: string, variant: string): number {
    const row = this.storage.sql.exec<Row>('SELECT tick FROM stepped WHERE target = ? AND variant = ?', target, variant).toArray()[0];
    return row ? Number(row.tick) : -Infinity;
  }

  /** A region's report of a tick ahead of the frontier: the tick waits (its deadline counted from its first report). */
  noted(target: string, variant: string, tick: number, now: number): void {
    this.storage.sql.exec(
      'INSERT INTO waiting (target, variant, tick, deadline_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
      target,
      variant,
      tick,
      now + reportDeadlineMs(getCapacity().tickMinutes),
    );
  }

  /** When the earliest waiting tick's deadline passes, or null with none waiting. */
  nextDeadline(): number | null {
    const t = this.storage.sql.exec<Row>('SELECT MIN(deadline_at) AS t FROM waiting').one().t;
    return t === null ? null : Number(t);
  }

  /** Judges every target with a waiting tick whose deadline has passed (the keeper's alarm). */
  judgeDue(now: number, windows: readonly MaintenanceWindow[]): void {
    for (const r of this.storage.sql.exec<Row>('SELECT DISTINCT target, variant FROM waiting WHERE deadline_at <= ?', now).toArray())
      this.judge(String(r.target), String(r.variant), now, windows);
  }

  /**
   * Steps the target's incident through its waiting ticks in tick order, each once it is complete (every region due
   * at it has reported it or a later tick), its deadline has passed, or a region has run MAX_TICKS_AHEAD ticks past
   * it; the first tick that is none of these holds back the later ones.
   */
  judge(target: string, variant: string, now: number, windows: readonly MaintenanceWindow[]): void {
    const sql = this.storage.sql;
    const regions = regionsOf(target, variant);
    const pairs = this.pairsOf(target, variant).filter((p) => regions.includes(p.region));
    const silentMs = this.silentMs();
    const waiting = sql
      .exec<Row>('SELECT tick, deadline_at FROM waiting WHERE target = ? AND variant = ? ORDER BY tick', target, variant)
      .toArray();
    let frontier = this.frontier(target, variant);
    for (const w of waiting) {
      const tick = Number(w.tick);
      const complete = missingAt(tick, dueRegions(target, variant, tick), pairs).length === 0;
      if (!complete && Number(w.deadline_at) > now && ticksAhead(tick, pairs) < MAX_TICKS_AHEAD) break;
      // A tick behind the frontier (a backfill reported after newer ticks were judged) is not stepped: states only move forward.
      if (tick > frontier) {
        this.step(target, variant, tick, regions, viewAt(pairs, tick, now, silentMs), now, windows);
        frontier = tick;
      }
      sql.exec('DELETE FROM waiting WHERE target = ? AND variant = ? AND tick = ?', target, variant, tick);
    }
    if (frontier !== this.frontier(target, variant))
      sql.exec(
        'INSERT INTO stepped (target, variant, tick) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET tick = excluded.tick',
        target,
        variant,
        frontier,
      );
  }

  /** A region's report of a tick the keeper had already judged without it: applied on top, at its own tick. */
  judgeLate(target: string, variant: string, region: string, tick: number, now: number, windows: readonly MaintenanceWindow[]): void {
    const regions = regionsOf(target, variant);
    if (!regions.includes(region)) return;
    const pairs = this.pairsOf(target, variant).filter((p) => regions.includes(p.region));
    this.step(target, variant, tick, regions, lateView(pairs, region, this.frontier(target, variant), now, this.silentMs()), now, windows);
  }

  private silentMs(): number {
    const { tickMinutes, spread } = getCapacity();
    return silentAfterMs(tickMinutes, spread);
  }

  /** One step of the target's incident at `tick` from `view` (each region's state), written and its messages queued. */
  private step(
    target: string,
    variant: string,
    tick: number,
    regions: readonly string[],
    view: readonly PairState[],
    now: number,
    windows: readonly MaintenanceWindow[],
  ): void {
    const sql = this.storage.sql;
    // A region inside a maintenance window is left out: it can neither open, escalate nor resolve an incident.
    const covered = new Map(regions.map((r) => [r, coveringWindow(windows, target, r, tick)]));
    const judged = regions.filter((r) => !covered.get(r));
    const inView = view.filter((p) => judged.includes(p.region));
    const open = this.openIncident(target, variant);
    let step: IncidentStep =
      judged.length > 0
        ? stepIncident(open, targetStatus(target, variant, judged, inView), inView, tick, targetLabel(target))
        : { incident: open, event: null };
    // An open incident whose regions are in maintenance stays open (left out is not recovered), annotated once a window.
    if (open && step.event?.kind === 'resolved' && open.regions.some((r) => covered.get(r))) step = { incident: open, event: null };
    if (step.incident?.status === 'open') step = { ...step, incident: annotated(step.incident, covered, tick, targetLabel(target)) };
    if (!step.incident) return;
    sql.exec(
      `INSERT INTO incidents (id, target, variant, status, body, unwritten, reminded_at) VALUES (?, ?, ?, ?, ?, 1, ?)
        ON CONFLICT DO UPDATE SET status = excluded.status, body = excluded.body, unwritten = 1`,
      step.incident.id,
      target,
      variant,
      step.incident.status,
      JSON.stringify(step.incident),
      now,
    );
    if (step.event && step.event.kind !== 'updated') {
      this.outbox.queue(step.incident, step.event, step.event.kind, now);
      if (step.incident.status === 'open') sql.exec('UPDATE incidents SET reminded_at = ? WHERE id = ?', now, step.incident.id);
    }
  }

  private pairsOf(target: string, variant: string): PairState[] {
    return this.storage.sql
      .exec<Row>('SELECT state FROM pairs WHERE target = ? AND variant = ?', target, variant)
      .toArray()
      .map((r) => JSON.parse(String(r.state)) as PairState);
  }

  private openIncident(target: string, variant: string): Incident | null {
    const row = this.storage.sql
      .exec<Row>("SELECT body FROM incidents WHERE target = ? AND variant = ? AND status = 'open'", target, variant)
      .toArray()[0];
    return row ? (JSON.parse(String(row.body)) as Incident) : null;
  }
}

/**
 * The incident with a note of each maintenance window that now covers one of its regions, once a window: it is
 * not escalated while the window lasts, and the note sends no message (an `updated` event).
 */
function annotated(incident: Incident, covered: ReadonlyMap<string, MaintenanceWindow | null>, tick: number, label: string): Incident {
  const seen = new Set(incident.maintenance ?? []);
  const fresh = [
    ...new Map([...covered.values()].filter((w): w is MaintenanceWindow => w !== null && !seen.has(w.id)).map((w) => [w.id, w])).values(),
  ];
  if (fresh.length === 0) return incident;
  let out = { ...incident, maintenance: [...seen, ...fresh.map((w) => w.id)] };
  for (const w of fresh) {
    const where = [...covered.entries()]
      .filter(([, c]) => c?.id === w.id)
      .map(([r]) => r)
      .join(', ');
    const last = out.timeline.at(-1)!;
    out = {
      ...out,
      updated_at: Math.max(out.updated_at, tick),
      timeline: [
        ...out.timeline,
        {
          seq: out.timeline.length,
          at: tick,
          kind: 'updated',
          severity: out.severity,
          scope: out.scope,
          regions: last.regions,
          summary: `${label}: maintenance in ${where} until ${new Date(w.ends_at).toISOString()} (${w.note}); not escalated while it lasts`,
        },
      ],
    };
  }
  return out;
}
