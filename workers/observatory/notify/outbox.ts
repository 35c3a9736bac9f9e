/**
 * The status keeper's notification outbox: one message per incident event and channel, queued in the
 * keeper's storage inside the transaction that changed the incident, then delivered by the keeper's
 * alarm with exponential backoff. An incident's messages reach a channel in order ("resolved" never
 * before "opened"); a message's id makes a second queueing of the same event a no-op. Each channel is
 * sent to on its own, beside the others, each send bounded in time and taken from the alarm's
 * subrequest budget, so a slow or failing receiver delays no other channel. Two tables:
 * `deliveries` (the queue, and the newest delivered messages) and `attempts` (the log /api/v1/health shows).
 */
import { HOUR_MS } from '../../../shared/time.ts';
import { redact } from '../../../shared/probe/error-detail.ts';
import type { Incident, IncidentEvent } from '../../../shared/status/incidents.ts';
import { buildMessage, type NotificationMessage } from '../../../shared/status/messages.ts';
import {
  DIGEST_CHANNEL_TYPES,
  routesTo,
  type ChannelConfig,
  type NotificationsConfig,
  type NotifyEvent,
} from '../../../shared/status/channels.ts';
import { digestMessage } from '../../../shared/reports/digest.ts';
import type { ReportVersionEntry, WeeklyReport } from '../../../shared/reports/report.ts';
import { findVariant, getConfig, targetLabel } from '../config.ts';
import { secretValues } from '../secret-values.ts';
import { deliver, DELIVERY_TIMEOUT_MS, DeliveryError, inactiveReason } from './deliver.ts';
import type { SubrequestBudget } from '../subrequest-budget.ts';
import { OPEN_CONNECTIONS_PER_INVOCATION } from '../../../shared/config/plan-limits.ts';

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

type Row = Record<string, SqlStorageValue>;

export interface OutboxOptions {
  /** The bound of one send (default DELIVERY_TIMEOUT_MS). */
  sendTimeoutMs?: number;
}

/** What one send came to: the receiver's status, and the failure's kind, words and permanence (no error: delivered). */
interface SendResult {
  status: number | null;
  error: string | null;
  message: string;
  permanent: boolean;
}

class SendTimeout extends Error {}

export interface DeliveryAttempt {
  delivery_id: string;
  channel: string;
  at: string;
  ok: boolean;
  status: number | null;
  error: string | null;
}

export const OUTBOX_TABLES = [
  // One row per message and channel; n orders them (an incident's messages reach a channel in order).
  `CREATE TABLE IF NOT EXISTS deliveries (n INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, incident_id TEXT NOT NULL, channel TEXT NOT NULL,
        message TEXT NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL, next_at INTEGER NOT NULL, created_at INTEGER NOT NULL, done_at INTEGER, last_error TEXT)`,
  'CREATE TABLE IF NOT EXISTS attempts (seq INTEGER PRIMARY KEY AUTOINCREMENT, delivery_id TEXT NOT NULL, channel TEXT NOT NULL, at INTEGER NOT NULL, ok INTEGER NOT NULL, status INTEGER, error TEXT)',
];

/** What /api/v1/health shows of the outbox. */
export interface OutboxSummary {
  channels: Array<{ name: string; type: string; active: boolean; inactive_because?: string }>;
  pending: number;
  failed: number;
  delivered: number;
  next_attempt_at: string | null;
  recent_attempts: DeliveryAttempt[];
}

export class NotificationOutbox {
  private readonly storage: DurableObjectStorage;
  /** The Worker's bindings: channel secrets are read from them, and redacted from every log line. */
  private readonly secrets: Record<string, unknown>;
  /** The configuration's notifications (a test gives its own channels). */
  private readonly config: () => NotificationsConfig | undefined;
  private readonly sendTimeoutMs: number;

  constructor(
    storage: DurableObjectStorage,
    env: Env,
    config: () => NotificationsConfig | undefined = () => getConfig().notifications,
    options: OutboxOptions = {},
  ) {
    this.storage = storage;
    this.secrets = env as unknown as Record<string, unknown>;
    this.config = config;
    this.sendTimeoutMs = options.sendTimeoutMs ?? DELIVERY_TIMEOUT_MS;
  }

  private channels() {
    return this.config()?.channels ?? [];
  }

  /** Creates the outbox's tables; run once, in the keeper's constructor. */
  migrate(): void {
    for (const statement of OUTBOX_TABLES) this.storage.sql.exec(statement);
  }

  /**
   * One message per channel routed this kind of message of this incident (events, targets, regions);
   * the id makes a second queueing of the same event a no-op.
   */
  queue(incident: Incident, event: IncidentEvent, kind: NotifyEvent, now: number, suffix = `e${event.seq}`): void {
    const names = {
      targetLabel: targetLabel(incident.target),
      variantLabel: findVariant(incident.variant)?.label ?? incident.variant,
      siteUrl: this.config()?.siteUrl,
    };
    for (const channel of this.channels()) {
      if (!routesTo(channel, kind, incident) || inactiveReason(channel, this.secrets) !== null) continue;
      const id = `${incident.id}/${suffix}/${channel.name}`;
      const message = buildMessage(kind, incident, event, names, id);
      this.storage.sql.exec(
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
   * A weekly report version's digest, one message per channel with `digest: true` (of DIGEST_CHANNEL_TYPES: each
   * sends the message's title and text, or its JSON, so deliver() needs nothing of an incident); queued under the
   * week, so a correction's reaches a channel after the version it corrects. Its id makes a second queueing a no-op.
   */
  queueDigest(report: WeeklyReport, entry: ReportVersionEntry, now: number): number {
    let queued = 0;
    for (const channel of this.channels()) {
      if (channel.digest !== true || !(DIGEST_CHANNEL_TYPES as readonly string[]).includes(channel.type)) continue;
      if (inactiveReason(channel, this.secrets) !== null) continue;
      const id = `report:${report.week}/v${entry.version}/${channel.name}`;
      const message = digestMessage(report, entry, this.config()?.siteUrl, id);
      const written = this.storage.sql.exec(
        `INSERT INTO deliveries (id, incident_id, channel, message, state, attempts, next_at, created_at) VALUES (?, ?, ?, ?, 'pending', 0, ?, ?) ON CONFLICT DO NOTHING RETURNING n`,
        id,
        `report:${report.week}`,
        channel.name,
        JSON.stringify(message),
        now,
        now,
      );
      queued += written.toArray().length;
    }
    return queued;
  }

  /**
   * Sends every due message, each channel's oldest first; a failure is recorded and retried with
   * exponential backoff. A message waits while an older one of the same incident to the same channel is
   * still pending, so "resolved" never arrives before "opened". The channels are sent to side by side
   * (at most OPEN_CONNECTIONS_PER_INVOCATION at once), each send bounded by its own timeout. Each send
   * takes one subrequest from `budget` (the alarm's): one the budget refuses is not attempted, uses up no
   * attempt, and waits (with the rest of its channel) for the next alarm, as does the rest of a channel
   * whose receiver did not answer in time, so one alarm waits for a dead receiver once.
   */
  async deliverDue(now: number, budget: SubrequestBudget): Promise<void> {
    const due = this.storage.sql
      .exec<Row>(
        `SELECT d.n, d.id, d.channel, d.message, d.attempts FROM deliveries d WHERE d.state = 'pending' AND d.next_at <= ?
      AND NOT EXISTS (SELECT 1 FROM deliveries e WHERE e.state = 'pending' AND e.channel = d.channel AND e.incident_id = d.incident_id AND e.n < d.n) ORDER BY d.n`,
        now,
      )
      .toArray();
    const byChannel = new Map<string, Row[]>();
    for (const d of due) byChannel.set(String(d.channel), [...(byChannel.get(String(d.channel)) ?? []), d]);
    const channels = new Map(this.channels().map((c) => [c.name, c]));
    const waiting = [...byChannel];
    const lane = async () => {
      for (let next = waiting.shift(); next !== undefined; next = waiting.shift())
        await this.deliverChannel(channels.get(next[0]), next[1], budget);
    };
    await Promise.all(Array.from({ length: Math.min(OPEN_CONNECTIONS_PER_INVOCATION, waiting.length) }, lane));
  }

  /** One channel's due messages, oldest first, until one is refused by the budget or its receiver does not answer in time. */
  private async deliverChannel(channel: ChannelConfig | undefined, rows: Row[], budget: SubrequestBudget): Promise<void> {
    for (const d of rows) {
      let result: SendResult;
      if (!channel)
        result = { status: null, error: 'not_configured', message: `channel ${d.channel} is no longer configured`, permanent: false };
      else if (!budget.take(1)) return;
      else result = await this.send(channel, JSON.parse(String(d.message)) as NotificationMessage);
      this.record(d, result);
      if (result.error === 'no_response') return;
    }
  }

  /** One send, bounded by the send timeout whatever the channel (the email binding has no timeout of its own). */
  private async send(channel: ChannelConfig, m: NotificationMessage): Promise<SendResult> {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new SendTimeout()), this.sendTimeoutMs);
    });
    try {
      const status = await Promise.race([deliver(channel, m, this.secrets, Date.now(), fetch, this.sendTimeoutMs), timeout]);
      return { status, error: null, message: '', permanent: false };
    } catch (e) {
      if (e instanceof SendTimeout)
        return { status: null, error: 'no_response', message: `no answer within ${this.sendTimeoutMs} ms`, permanent: false };
      // Stored and published: the failure's kind alone. Its message (a receiver's reply, perhaps a URL that is
      // the credential) goes only to the log, redacted. A receiver that refused the message itself (PagerDuty's
      // 400) is not retried: the same bytes again would be refused too.
      if (e instanceof DeliveryError) return { status: e.status, error: e.kind, message: e.message, permanent: e.permanent };
      return { status: null, error: 'internal', message: e instanceof Error ? e.message : String(e), permanent: false };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Records an attempt and its message's next state (delivered, failed, or retried with backoff), and logs a failure. */
  private record(d: Row, { status, error, message, permanent }: SendResult): void {
    const sql = this.storage.sql;
    const attempts = Number(d.attempts) + 1;
    const at = Date.now();
    this.storage.transactionSync(() => {
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
      else if (permanent || attempts >= MAX_ATTEMPTS)
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
        `status keeper: delivery ${d.id} to ${d.channel} failed (attempt ${attempts}${permanent ? ', refused, not retried' : attempts >= MAX_ATTEMPTS ? ', given up' : ', will retry'}): ${error}${status !== null ? ` ${status}` : ''}: ${redact(message, secretValues(this.secrets)).slice(0, 300)}`,
      );
  }

  prune(): void {
    const sql = this.storage.sql;
    sql.exec('DELETE FROM attempts WHERE seq <= (SELECT MAX(seq) FROM attempts) - ?', ATTEMPTS_KEPT);
    sql.exec(
      "DELETE FROM deliveries WHERE state = 'delivered' AND n NOT IN (SELECT n FROM deliveries WHERE state = 'delivered' ORDER BY n DESC LIMIT ?)",
      DELIVERED_KEPT,
    );
  }

  /** When the next message is due: only those not held behind an older one of the same incident and channel (they wait for it). */
  nextDue(): number | null {
    const due = this.storage.sql
      .exec<Row>(`SELECT MIN(d.next_at) AS t FROM deliveries d WHERE d.state = 'pending'
      AND NOT EXISTS (SELECT 1 FROM deliveries e WHERE e.state = 'pending' AND e.channel = d.channel AND e.incident_id = d.incident_id AND e.n < d.n)`)
      .one().t;
    return due === null ? null : Number(due);
  }

  summary(): OutboxSummary {
    const sql = this.storage.sql;
    const count = (state: string) => Number(sql.exec('SELECT COUNT(*) AS n FROM deliveries WHERE state = ?', state).one().n);
    const next = sql.exec<Row>("SELECT MIN(next_at) AS t FROM deliveries WHERE state = 'pending'").one().t;
    return {
      channels: this.channels().map((ch) => {
        const inactive = inactiveReason(ch, this.secrets);
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
    };
  }
}
