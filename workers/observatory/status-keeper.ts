/**
 * The status keeper: one Durable Object for the whole observatory. Each region's object sends it
 * the findings of each tick it has evaluated; the keeper applies them to the region × target states
 * (hysteresis), derives each target's status, opens, updates and resolves incidents, and queues one
 * message per incident event and channel. All of that happens in one synchronous storage
 * transaction per report, and a finding not newer than the pair's last one is refused, so a retried
 * tick, a repeated alarm or two overlapping reports can never open a second incident or queue a
 * message twice. Its alarm then writes incidents to D1 and delivers the queue, with backoff.
 */
import { HOUR_MS, MINUTE_MS } from '../../shared/time.ts';
import { redact } from '../../shared/probe/error-detail.ts';
import { secretValues } from './secret-values.ts';
import { DurableObject } from 'cloudflare:workers';
import { findTarget, getCapacity, getConfig, workList } from './config.ts';
import { resolveStatusRules } from '../../shared/status/rules.ts';
import { nextPairState, pairAt, targetStatus, type PairState, type TargetStatus } from '../../shared/status/pair-state.ts';
import { stepIncident, type Incident, type IncidentEvent } from '../../shared/status/incidents.ts';
import { buildMessage, type NotificationMessage } from '../../shared/status/messages.ts';
import { DEFAULT_REMINDER_MINUTES, NOTIFY_EVENTS, type ChannelConfig, type NotifyEvent } from '../../shared/status/channels.ts';
import { upsertIncidents } from './db/status.ts';
import { deliver, DeliveryError, inactiveReason } from './notify/deliver.ts';
import type { PairFinding } from './status-evaluation.ts';

/** First retry after this long, doubling up to RETRY_MAX_MS. */
export const RETRY_BASE_MS = 5_000;
const RETRY_MAX_MS = HOUR_MS;
/**
 * After this many failed attempts a message is given up on (kept, listed in /api/v1/health as failed);
 * the incident's later messages to that channel are then sent without it.
 */
export const MAX_ATTEMPTS = 25;
/** Attempts kept for /api/v1/health. */
const ATTEMPTS_KEPT = 200;
/** Delivered messages kept in the queue table, newest (older ones are only in the attempts log). */
const DELIVERED_KEPT = 500;
const D1_RETRY_MS = 30_000;
/** A region that has not reported for this many ticks (of wall time, at least MIN_LIVE_MINUTES) is not waited for. */
const LAG_TICKS = 3;
const MIN_LIVE_MINUTES = 10;

type Row = Record<string, SqlStorageValue>;

export interface DeliveryAttempt {
  delivery_id: string;
  channel: string;
  at: string;
  ok: boolean;
  status: number | null;
  error: string | null;
}

export interface KeeperStatus {
  pairs: PairState[];
  targets: TargetStatus[];
  open_incidents: Incident[];
  notifications: {
    channels: Array<{ name: string; type: string; active: boolean; inactive_because?: string }>;
    pending: number;
    failed: number;
    delivered: number;
    next_attempt_at: string | null;
    recent_attempts: DeliveryAttempt[];
  };
  incidents_unwritten: number;
}

const regionsOf = (target: string, variant: string) =>
  getConfig()
    .regions.map((r) => r.code)
    .filter((code) => workList(code).some((w) => w.target.id === target && w.variant.id === variant));
const labelOf = (target: string) => findTarget(target)?.label ?? target;
const wants = (c: ChannelConfig, kind: NotifyEvent) => (c.events ?? NOTIFY_EVENTS).includes(kind);

export class StatusKeeper extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
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
      // One row per message and channel; n orders them (an incident's messages reach a channel in order).
      sql.exec(`CREATE TABLE IF NOT EXISTS deliveries (n INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, incident_id TEXT NOT NULL, channel TEXT NOT NULL,
        message TEXT NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL, next_at INTEGER NOT NULL, created_at INTEGER NOT NULL, done_at INTEGER, last_error TEXT)`);
      sql.exec(
        'CREATE TABLE IF NOT EXISTS attempts (seq INTEGER PRIMARY KEY AUTOINCREMENT, delivery_id TEXT NOT NULL, channel TEXT NOT NULL, at INTEGER NOT NULL, ok INTEGER NOT NULL, status INTEGER, error TEXT)',
      );
    });
  }

  /** One region's findings for one tick (status-evaluation.ts). Returns how many were applied (0: all stale). */
  async report(region: string, findings: PairFinding[]): Promise<number> {
    const rules = resolveStatusRules(getConfig().status);
    const now = Date.now();
    let applied = 0;
    this.ctx.storage.transactionSync(() => {
      const touched = new Set<string>();
      for (const f of findings) {
        const key = { region, target: f.target, variant: f.variant };
        const next = nextPairState(this.pair(key), key, f.finding, rules);
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
        this.stepTarget(target, variant, now);
      }
    });
    await this.wake(now);
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
    const count = (state: string) => Number(sql.exec('SELECT COUNT(*) AS n FROM deliveries WHERE state = ?', state).one().n);
    const next = sql.exec<Row>("SELECT MIN(next_at) AS t FROM deliveries WHERE state = 'pending'").one().t;
    return {
      pairs,
      targets,
      open_incidents: sql
        .exec<Row>("SELECT body FROM incidents WHERE status = 'open' ORDER BY id")
        .toArray()
        .map((r) => JSON.parse(String(r.body)) as Incident),
      notifications: {
        channels: (c.notifications?.channels ?? []).map((ch) => {
          const inactive = inactiveReason(ch, this.env as unknown as Record<string, unknown>);
          return { name: ch.name, type: ch.type, active: inactive === null, ...(inactive ? { inactive_because: inactive } : {}) };
        }),
        pending: count('pending'),
        failed: count('failed'),
        delivered: count('delivered'),
        next_attempt_at: next === null ? null : new Date(Number(next)).toISOString(),
        recent_attempts: sql
          .exec<Row>('SELECT delivery_id, channel, at, ok, status, error FROM attempts ORDER BY seq DESC LIMIT 50')
          .toArray()
          .map((r) => ({
            delivery_id: String(r.delivery_id),
            channel: String(r.channel),
            at: new Date(Number(r.at)).toISOString(),
            ok: r.ok === 1,
            status: r.status === null ? null : Number(r.status),
            error: r.error === null ? null : String(r.error),
          })),
      },
      incidents_unwritten: Number(sql.exec('SELECT COUNT(*) AS n FROM incidents WHERE unwritten = 1').one().n),
    };
  }

  override async alarm(): Promise<void> {
    const now = Date.now();
    this.queueReminders(now);
    await this.writeIncidents();
    await this.deliverDue(now);
    this.prune();
    await this.wake(Date.now());
  }

  /** Sets the alarm for the earliest pending work (D1 writes at once, deliveries when due, reminders). */
  private async wake(now: number): Promise<void> {
    const sql = this.ctx.storage.sql;
    const times: number[] = [];
    if (Number(sql.exec('SELECT COUNT(*) AS n FROM incidents WHERE unwritten = 1').one().n) > 0)
      times.push(now + (this.d1Failed ? D1_RETRY_MS : 0));
    // Only messages not held behind an older one of the same incident and channel (those wait for it, not their own time).
    const due = sql
      .exec<Row>(`SELECT MIN(d.next_at) AS t FROM deliveries d WHERE d.state = 'pending'
      AND NOT EXISTS (SELECT 1 FROM deliveries e WHERE e.state = 'pending' AND e.channel = d.channel AND e.incident_id = d.incident_id AND e.n < d.n)`)
      .one().t;
    if (due !== null) times.push(Number(due));
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
        this.queue(incident, incident.timeline.at(-1)!, 'reminder', now, `r${Number(r.reminded_at)}`);
        sql.exec('UPDATE incidents SET reminded_at = ? WHERE id = ?', now, incident.id);
      }
    });
  }

  /** One message per channel that wants this kind; the id makes a second queueing of the same event a no-op. */
  private queue(incident: Incident, event: IncidentEvent, kind: NotifyEvent, now: number, suffix = `e${event.seq}`): void {
    for (const channel of getConfig().notifications?.channels ?? []) {
      if (!wants(channel, kind) || inactiveReason(channel, this.env as unknown as Record<string, unknown>) !== null) continue;
      const id = `${incident.id}/${suffix}/${channel.name}`;
      const message = buildMessage(kind, incident, event, labelOf(incident.target), id);
      this.ctx.storage.sql.exec(
        `INSERT INTO deliveries (id, incident_id, channel, message, state, attempts, next_at, created_at) VALUES (?, ?, ?, ?, 'pending', 0, ?, ?) ON CONFLICT DO NOTHING`,
        id,
        incident.id,
        channel.name,
        JSON.stringify(message),
        now,
        now,
      );
    }
  }

  /**
   * Sends every due message, oldest first; a failure is recorded and retried with exponential
   * backoff. A message waits while an older one of the same incident to the same channel is still
   * pending, so "resolved" never arrives before "opened".
   */
  private async deliverDue(now: number): Promise<void> {
    const sql = this.ctx.storage.sql;
    const channels = new Map((getConfig().notifications?.channels ?? []).map((c) => [c.name, c]));
    const due = sql
      .exec<Row>(
        `SELECT d.n, d.id, d.channel, d.message, d.attempts FROM deliveries d WHERE d.state = 'pending' AND d.next_at <= ?
      AND NOT EXISTS (SELECT 1 FROM deliveries e WHERE e.state = 'pending' AND e.channel = d.channel AND e.incident_id = d.incident_id AND e.n < d.n) ORDER BY d.n`,
        now,
      )
      .toArray();
    for (const d of due) {
      const channel = channels.get(String(d.channel));
      const attempts = Number(d.attempts) + 1;
      let status: number | null = null;
      // Stored and published: the failure's kind alone. Its message (a receiver's reply, perhaps a URL that is
      // the credential) goes only to the log, redacted.
      let error: string | null = null;
      let message = '';
      if (!channel) {
        error = 'not_configured';
        message = `channel ${d.channel} is no longer configured`;
      } else {
        try {
          status = await deliver(
            channel,
            JSON.parse(String(d.message)) as NotificationMessage,
            this.env as unknown as Record<string, unknown>,
            Date.now(),
          );
        } catch (e) {
          error = e instanceof DeliveryError ? e.kind : 'internal';
          message = e instanceof Error ? e.message : String(e);
          if (e instanceof DeliveryError) status = e.status;
        }
      }
      const at = Date.now();
      this.ctx.storage.transactionSync(() => {
        sql.exec(
          'INSERT INTO attempts (delivery_id, channel, at, ok, status, error) VALUES (?, ?, ?, ?, ?, ?)',
          d.id,
          d.channel,
          at,
          error === null ? 1 : 0,
          status,
          error?.slice(0, 300) ?? null,
        );
        if (error === null)
          sql.exec(
            "UPDATE deliveries SET state = 'delivered', attempts = ?, done_at = ?, last_error = NULL WHERE id = ?",
            attempts,
            at,
            d.id,
          );
        else if (attempts >= MAX_ATTEMPTS)
          sql.exec(
            "UPDATE deliveries SET state = 'failed', attempts = ?, done_at = ?, last_error = ? WHERE id = ?",
            attempts,
            at,
            error.slice(0, 300),
            d.id,
          );
        else
          sql.exec(
            'UPDATE deliveries SET attempts = ?, next_at = ?, last_error = ? WHERE id = ?',
            attempts,
            at + Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** (attempts - 1)),
            error.slice(0, 300),
            d.id,
          );
      });
      if (error !== null)
        console.error(
          `status keeper: delivery ${d.id} to ${d.channel} failed (attempt ${attempts}${attempts >= MAX_ATTEMPTS ? ', given up' : ', will retry'}): ${error}${status !== null ? ` ${status}` : ''}: ${redact(message, secretValues(this.env as unknown as Record<string, unknown>)).slice(0, 300)}`,
        );
    }
  }

  private prune(): void {
    const sql = this.ctx.storage.sql;
    sql.exec('DELETE FROM attempts WHERE seq <= (SELECT MAX(seq) FROM attempts) - ?', ATTEMPTS_KEPT);
    sql.exec(
      "DELETE FROM deliveries WHERE state = 'delivered' AND n NOT IN (SELECT n FROM deliveries WHERE state = 'delivered' ORDER BY n DESC LIMIT ?)",
      DELIVERED_KEPT,
    );
  }

  /**
   * Steps the target's incident through every tick that all its live regions have now reported,
   * in tick order, each with the regions' states as they stood at that tick: a region that reports
   * a burst of ticks (a backfill) before or after the others still makes one step per tick. A
   * region that has not reported for LAG_TICKS ticks of wall time (stopped, or failing) is not
   * waited for, nor one that has never reported.
   */
  private stepTarget(target: string, variant: string, now: number): void {
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
      const step = stepIncident(
        this.openIncident(target, variant),
        targetStatus(target, variant, regions, view),
        view,
        tick,
        labelOf(target),
      );
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
        this.queue(step.incident, step.event, step.event.kind, now);
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
