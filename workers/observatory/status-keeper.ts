/**
 * The status keeper: one Durable Object for the whole observatory. Each region's object sends it
 * the findings of each tick it has evaluated; the keeper applies them to the region × target states
 * (hysteresis), derives each target's status, opens, updates and resolves incidents, and queues one
 * message per incident event and channel. All of that happens in one synchronous storage
 * transaction per report, and a finding not newer than the pair's last one is refused, so a retried
 * tick, a repeated alarm or two overlapping reports can never open a second incident or queue a
 * message twice. Its alarm then writes incidents to D1 and delivers the queue, with backoff.
 */
import { MINUTE_MS } from '../../shared/time.ts';
import { DurableObject } from 'cloudflare:workers';
import { getCapacity, getConfig, targetLabel, storedList } from './config.ts';
import { resolveStatusRules } from '../../shared/status/rules.ts';
import { nextPairState, pairAt, targetStatus, type PairState, type TargetStatus } from '../../shared/status/pair-state.ts';
import { firedWords, stepIncident, type Incident } from '../../shared/status/incidents.ts';
import { DEFAULT_REMINDER_MINUTES } from '../../shared/status/channels.ts';
import { upsertIncidents } from './db/status.ts';
import { deleteMaintenance, insertMaintenance } from './db/status-history.ts';
import { KeeperHistory } from './status-history.ts';
import { configWindows, coveringWindow, MAX_API_WINDOWS, type MaintenanceWindow } from '../../shared/status/maintenance.ts';
import type { PeriodState } from '../../shared/status/levels.ts';
import type { Finding } from '../../shared/status/evaluate.ts';
import { NotificationOutbox, type OutboxSummary } from './notify/outbox.ts';
import { markViews } from './views/mark-views.ts';

export { MAX_ATTEMPTS, RETRY_BASE_MS, type DeliveryAttempt } from './notify/outbox.ts';
import type { PairFinding } from './status-evaluation.ts';

const D1_RETRY_MS = 30_000;
/** A region that has not reported for this many ticks (of wall time, at least MIN_LIVE_MINUTES) is not waited for. */
const LAG_TICKS = 3;
const MIN_LIVE_MINUTES = 10;

type Row = Record<string, SqlStorageValue>;

export interface KeeperStatus {
  pairs: PairState[];
  targets: TargetStatus[];
  open_incidents: Incident[];
  notifications: OutboxSummary;
  incidents_unwritten: number;
}

const regionsOf = (target: string, variant: string) =>
  getConfig()
    .regions.map((r) => r.code)
    .filter((code) => storedList(code).some((w) => w.target.id === target && w.variant.id === variant));

/** The evidence of a judged tick in words: the rules that fired, or the maintenance window's note. */
function tickNote(finding: Finding, state: PeriodState, window: MaintenanceWindow | null): string | null {
  if (window) return `maintenance: ${window.note}`;
  if (state !== 'degraded' && state !== 'down') return null;
  // The incidents' own words for a region's evidence, without the split's shift (the history keeps to the rules' words).
  return firedWords(
    finding.rules.filter((r) => r.outcome === 'fired'),
    null,
  );
}

export class StatusKeeper extends DurableObject<Env> {
  private readonly outbox: NotificationOutbox;
  private readonly history: KeeperHistory;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.outbox = new NotificationOutbox(ctx.storage, env);
    this.history = new KeeperHistory(ctx.storage);
    ctx.blockConcurrencyWhile(async () => {
      const sql = ctx.storage.sql;
      sql.exec(
        'CREATE TABLE IF NOT EXISTS pairs (region TEXT NOT NULL, target TEXT NOT NULL, variant TEXT NOT NULL, state TEXT NOT NULL, PRIMARY KEY (region, target, variant)) WITHOUT ROWID',
      );
      // The last tick each target's incident was stepped at (once all its regions had reported it).
      sql.exec(
        'CREATE TABLE IF NOT EXISTS stepped (target TEXT NOT NULL, variant TEXT NOT NULL, tick INTEGER NOT NULL, PRIMARY KEY (target, variant)) WITHOUT ROWID',
      );
      // Open incidents (and resolved ones until D1 holds them): the source of truth while open.
      sql.exec(
        'CREATE TABLE IF NOT EXISTS incidents (id TEXT PRIMARY KEY, target TEXT NOT NULL, variant TEXT NOT NULL, status TEXT NOT NULL, body TEXT NOT NULL, unwritten INTEGER NOT NULL, reminded_at INTEGER NOT NULL) WITHOUT ROWID',
      );
      // Maintenance windows made through the admin API (those of the configuration are read from it).
      sql.exec('CREATE TABLE IF NOT EXISTS maintenance (id TEXT PRIMARY KEY, body TEXT NOT NULL) WITHOUT ROWID');
      this.outbox.migrate();
      this.history.migrate();
    });
  }

  /** One region's findings for one tick (status-evaluation.ts). Returns how many were applied (0: all stale). */
  async report(region: string, findings: PairFinding[]): Promise<number> {
    const rules = resolveStatusRules(getConfig().status);
    const now = Date.now();
    let applied = 0;
    const windows = this.maintenanceWindows();
    this.ctx.storage.transactionSync(() => {
      const touched = new Set<string>();
      for (const f of findings) {
        const key = { region, target: f.target, variant: f.variant };
        const next = nextPairState(this.pair(key), key, f.finding, rules);
        // The tick in the history: as the state it put the pair in, or, judged after a newer tick (a backfill), as the
        // rules found it; inside a maintenance window, as maintenance.
        const window = coveringWindow(windows, f.target, region, f.finding.tick_id);
        const state: PeriodState = window ? 'maintenance' : next ? next.state : (f.finding.level ?? 'no-data');
        this.history.record(f.finding.tick_id, key, state, tickNote(f.finding, state, window), now);
        if (!next) continue;
        applied++;
        touched.add(`${f.target}\n${f.variant}`);
        this.ctx.storage.sql.exec(
          'INSERT INTO pairs (region, target, variant, state) VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET state = excluded.state',
          region,
          f.target,
          f.variant,
          JSON.stringify({ ...next, reported_at: now }),
        );
      }
      for (const key of touched) {
        const [target, variant] = key.split('\n');
        this.stepTarget(target, variant, now, windows);
      }
    });
    await this.wake(now);
    // The status view is built anew (once for the reports of one tick: the builder waits for them to settle).
    await markViews(this.env, ['status']);
    return applied;
  }

  async status(): Promise<KeeperStatus> {
    const sql = this.ctx.storage.sql;
    const c = getConfig();
    const pairs = sql
      .exec<Row>('SELECT state FROM pairs')
      .toArray()
      .map((r) => {
        const { history: _, ...pair } = JSON.parse(String(r.state)) as PairState;
        return pair;
      });
    const targets: TargetStatus[] = [];
    for (const t of c.targets)
      for (const v of c.promptVariants) {
        const regions = regionsOf(t.id, v.id);
        if (regions.length > 0)
          targets.push(
            targetStatus(
              t.id,
              v.id,
              regions,
              pairs.filter((p) => p.target === t.id && p.variant === v.id),
            ),
          );
      }
    return {
      pairs,
      targets,
      open_incidents: sql
        .exec<Row>("SELECT body FROM incidents WHERE status = 'open' ORDER BY id")
        .toArray()
        .map((r) => JSON.parse(String(r.body)) as Incident),
      notifications: this.outbox.summary(),
      incidents_unwritten: Number(sql.exec('SELECT COUNT(*) AS n FROM incidents WHERE unwritten = 1').one().n),
    };
  }

  override async alarm(): Promise<void> {
    const now = Date.now();
    this.queueReminders(now);
    await this.writeIncidents();
    const hourEnded = this.history.nextWriteAt(now) === now;
    this.historyFailed = !(await this.history.writeEnded(this.env.DB, now));
    // An ended hour written: the history's views, and the incidents' (their 90 days move with the hours).
    if (hourEnded && !this.historyFailed) await markViews(this.env, ['history', 'incidents', 'vendor-incidents']);
    await this.outbox.deliverDue(now);
    this.outbox.prune();
    await this.wake(Date.now());
  }

  /** Sets the alarm for the earliest pending work (D1 writes at once, deliveries when due, reminders). */
  private async wake(now: number): Promise<void> {
    const sql = this.ctx.storage.sql;
    const times: number[] = [];
    if (Number(sql.exec('SELECT COUNT(*) AS n FROM incidents WHERE unwritten = 1').one().n) > 0)
      times.push(now + (this.d1Failed ? D1_RETRY_MS : 0));
    const due = this.outbox.nextDue();
    if (due !== null) times.push(due);
    const history = this.history.nextWriteAt(now);
    if (history !== null) times.push(Math.max(history, this.historyFailed ? now + D1_RETRY_MS : 0));
    const reminderMs = this.reminderMs();
    if (reminderMs > 0) {
      const oldest = sql.exec<Row>("SELECT MIN(reminded_at) AS t FROM incidents WHERE status = 'open'").one().t;
      if (oldest !== null) times.push(Number(oldest) + reminderMs);
    }
    if (times.length === 0) return;
    const at = Math.max(now, Math.min(...times));
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  private d1Failed = false;
  private historyFailed = false;

  /** Every maintenance window: the configuration's and the admin API's. */
  maintenanceWindows(): MaintenanceWindow[] {
    const made = this.ctx.storage.sql
      .exec<Row>('SELECT body FROM maintenance ORDER BY id')
      .toArray()
      .map((r) => JSON.parse(String(r.body)) as MaintenanceWindow);
    return [...configWindows(getConfig().maintenance), ...made];
  }

  /** A window from the admin API (checked there): in D1 first (the status page lists it), then here, where it mutes. */
  async addMaintenance(w: MaintenanceWindow): Promise<MaintenanceWindow> {
    const sql = this.ctx.storage.sql;
    const now = Date.now();
    // Windows long over leave room for new ones.
    sql.exec("DELETE FROM maintenance WHERE json_extract(body, '$.ends_at') < ?", now - 90 * 24 * 60 * MINUTE_MS);
    if (Number(sql.exec('SELECT COUNT(*) AS n FROM maintenance').one().n) >= MAX_API_WINDOWS)
      throw new Error(`at most ${MAX_API_WINDOWS} maintenance windows are kept; delete some first`);
    await insertMaintenance(this.env.DB, w, now);
    sql.exec('INSERT INTO maintenance (id, body) VALUES (?, ?)', w.id, JSON.stringify(w));
    return w;
  }

  /** True when the window was there. Gone here first (it mutes no more), then from D1. */
  async removeMaintenance(id: string): Promise<boolean> {
    const here = this.ctx.storage.sql.exec('DELETE FROM maintenance WHERE id = ?', id).rowsWritten > 0;
    const there = await deleteMaintenance(this.env.DB, id);
    return here || there;
  }

  private async writeIncidents(): Promise<void> {
    const sql = this.ctx.storage.sql;
    const rows = sql.exec<Row>('SELECT id, body FROM incidents WHERE unwritten = 1').toArray();
    if (rows.length === 0) return;
    try {
      await upsertIncidents(
        this.env.DB,
        rows.map((r) => JSON.parse(String(r.body)) as Incident),
      );
      this.d1Failed = false;
      await markViews(this.env, ['incidents', 'vendor-incidents']);
    } catch (e) {
      this.d1Failed = true;
      console.error(
        `status keeper: writing ${rows.length} incident(s) to D1 failed, kept for retry: ${e instanceof Error ? e.message : e}`,
      );
      return;
    }
    this.ctx.storage.transactionSync(() => {
      for (const r of rows) {
        // Only if unchanged since read: a report in between leaves it to be written again.
        sql.exec('UPDATE incidents SET unwritten = 0 WHERE id = ? AND body = ?', r.id, r.body);
        sql.exec("DELETE FROM incidents WHERE id = ? AND status = 'resolved' AND unwritten = 0", r.id);
      }
    });
  }

  private reminderMs(): number {
    return (getConfig().notifications?.reminderMinutes ?? DEFAULT_REMINDER_MINUTES) * MINUTE_MS;
  }

  private queueReminders(now: number): void {
    const every = this.reminderMs();
    if (every <= 0) return;
    const sql = this.ctx.storage.sql;
    this.ctx.storage.transactionSync(() => {
      for (const r of sql
        .exec<Row>("SELECT body, reminded_at FROM incidents WHERE status = 'open' AND reminded_at <= ?", now - every)
        .toArray()) {
        const incident = JSON.parse(String(r.body)) as Incident;
        this.outbox.queue(incident, incident.timeline.at(-1)!, 'reminder', now, `r${Number(r.reminded_at)}`);
        sql.exec('UPDATE incidents SET reminded_at = ? WHERE id = ?', now, incident.id);
      }
    });
  }

  /**
   * Steps the target's incident through every tick that all its live regions have now reported,
   * in tick order, each with the regions' states as they stood at that tick: a region that reports
   * a burst of ticks (a backfill) before or after the others still makes one step per tick. A
   * region that has not reported for LAG_TICKS ticks of wall time (stopped, or failing) is not
   * waited for, nor one that has never reported.
   */
  private stepTarget(target: string, variant: string, now: number, windows: readonly MaintenanceWindow[]): void {
    const sql = this.ctx.storage.sql;
    const regions = regionsOf(target, variant);
    const pairs = this.pairsOf(target, variant).filter((p) => regions.includes(p.region));
    const capacity = getCapacity();
    const liveMs = Math.max(LAG_TICKS * capacity.tickMinutes * capacity.spread, MIN_LIVE_MINUTES) * MINUTE_MS;
    const live = pairs.filter((p) => (p.reported_at ?? 0) >= now - liveMs);
    if (live.length === 0) return;
    const ready = Math.min(...live.map((p) => p.last_tick));
    const row = sql.exec<Row>('SELECT tick FROM stepped WHERE target = ? AND variant = ?', target, variant).toArray()[0];
    const stepped = row ? Number(row.tick) : -Infinity;
    const ticks = [...new Set(pairs.flatMap((p) => (p.history ?? []).map((h) => h.tick)))]
      .filter((t) => t > stepped && t <= ready)
      .sort((a, b) => a - b);
    for (const tick of ticks) {
      // A region not waited for (silent) counts as no data, not as its last state: it can neither hold an incident open nor tip the half.
      const view = live.map((p) => pairAt(p, tick)).filter((p): p is PairState => p !== null);
      // A region inside a maintenance window is left out: it can neither open, escalate nor resolve an incident.
      const covered = new Map(regions.map((r) => [r, coveringWindow(windows, target, r, tick)]));
      const judged = regions.filter((r) => !covered.get(r));
      const open = this.openIncident(target, variant);
      let step =
        judged.length > 0
          ? stepIncident(
              open,
              targetStatus(
                target,
                variant,
                judged,
                view.filter((p) => judged.includes(p.region)),
              ),
              view.filter((p) => judged.includes(p.region)),
              tick,
              targetLabel(target),
            )
          : { incident: open, event: null };
      // An open incident whose regions are in maintenance stays open (left out is not recovered), annotated once a window.
      if (open && step.event?.kind === 'resolved' && open.regions.some((r) => covered.get(r))) step = { incident: open, event: null };
      if (step.incident?.status === 'open') step = { ...step, incident: annotated(step.incident, covered, tick, targetLabel(target)) };
      if (!step.incident) continue;
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
    if (ready > stepped)
      sql.exec(
        'INSERT INTO stepped (target, variant, tick) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET tick = excluded.tick',
        target,
        variant,
        ready,
      );
  }

  private pair(key: { region: string; target: string; variant: string }): PairState | null {
    const row = this.ctx.storage.sql
      .exec<Row>('SELECT state FROM pairs WHERE region = ? AND target = ? AND variant = ?', key.region, key.target, key.variant)
      .toArray()[0];
    return row ? (JSON.parse(String(row.state)) as PairState) : null;
  }

  private pairsOf(target: string, variant: string): PairState[] {
    return this.ctx.storage.sql
      .exec<Row>('SELECT state FROM pairs WHERE target = ? AND variant = ?', target, variant)
      .toArray()
      .map((r) => JSON.parse(String(r.state)) as PairState);
  }

  private openIncident(target: string, variant: string): Incident | null {
    const row = this.ctx.storage.sql
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
      updated_at: tick,
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
