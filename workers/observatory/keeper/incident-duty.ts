/**
 * The keeper's incident duty: its table holds the open incidents (and resolved ones until D1 holds them),
 * the source of truth while open; the judge opens and steps them there (status-judge.ts). Each alarm
 * queues the reminders of those open longer than reminderMinutes since the last message, then writes the
 * changed ones to D1 (the status page's incidents), retried after D1_RETRY_MS while D1 fails.
 */
import { MINUTE_MS } from '../../../shared/time.ts';
import { DEFAULT_REMINDER_MINUTES } from '../../../shared/status/channels.ts';
import type { Incident } from '../../../shared/status/incidents.ts';
import { getConfig } from '../config.ts';
import { upsertIncidents } from '../db/status.ts';
import { markViews } from '../views/mark-views.ts';
import { D1_RETRY_MS, type KeeperDuty, type KeeperParts } from './keeper-duty.ts';

type Row = Record<string, SqlStorageValue>;

export const INCIDENT_TABLES = [
  'CREATE TABLE IF NOT EXISTS incidents (id TEXT PRIMARY KEY, target TEXT NOT NULL, variant TEXT NOT NULL, status TEXT NOT NULL, body TEXT NOT NULL, unwritten INTEGER NOT NULL, reminded_at INTEGER NOT NULL) WITHOUT ROWID',
];

const reminderMs = (): number => (getConfig().notifications?.reminderMinutes ?? DEFAULT_REMINDER_MINUTES) * MINUTE_MS;

/** Incidents changed since D1 last took them. */
export const unwrittenIncidents = (sql: SqlStorage): number =>
  Number(sql.exec('SELECT COUNT(*) AS n FROM incidents WHERE unwritten = 1').one().n);

export function incidentDuty(p: KeeperParts): KeeperDuty {
  const sql = p.storage.sql;
  let d1Failed = false;

  const queueReminders = (now: number): void => {
    const every = reminderMs();
    if (every <= 0) return;
    p.storage.transactionSync(() => {
      for (const r of sql
        .exec<Row>("SELECT body, reminded_at FROM incidents WHERE status = 'open' AND reminded_at <= ?", now - every)
        .toArray()) {
        const incident = JSON.parse(String(r.body)) as Incident;
        p.outbox.queue(incident, incident.timeline.at(-1)!, 'reminder', now, `r${Number(r.reminded_at)}`);
        sql.exec('UPDATE incidents SET reminded_at = ? WHERE id = ?', now, incident.id);
      }
    });
  };

  const writeIncidents = async (): Promise<void> => {
    const rows = sql.exec<Row>('SELECT id, body FROM incidents WHERE unwritten = 1').toArray();
    if (rows.length === 0) return;
    try {
      await upsertIncidents(
        p.env.DB,
        rows.map((r) => JSON.parse(String(r.body)) as Incident),
      );
      d1Failed = false;
      await markViews(p.env, ['incidents', 'vendor-incidents']);
    } catch (e) {
      d1Failed = true;
      console.error(
        `status keeper: writing ${rows.length} incident(s) to D1 failed, kept for retry: ${e instanceof Error ? e.message : e}`,
      );
      return;
    }
    p.storage.transactionSync(() => {
      for (const r of rows) {
        // Only if unchanged since read: a report in between leaves it to be written again.
        sql.exec('UPDATE incidents SET unwritten = 0 WHERE id = ? AND body = ?', r.id, r.body);
        sql.exec("DELETE FROM incidents WHERE id = ? AND status = 'resolved' AND unwritten = 0", r.id);
      }
    });
  };

  return {
    name: 'incidents',
    tables: INCIDENT_TABLES,
    async run(now) {
      queueReminders(now);
      await writeIncidents();
    },
    nextAt(now) {
      const times: number[] = [];
      if (unwrittenIncidents(sql) > 0) times.push(now + (d1Failed ? D1_RETRY_MS : 0));
      const every = reminderMs();
      if (every > 0) {
        const oldest = sql.exec<Row>("SELECT MIN(reminded_at) AS t FROM incidents WHERE status = 'open'").one().t;
        if (oldest !== null) times.push(Number(oldest) + every);
      }
      return times.length === 0 ? null : Math.min(...times);
    },
  };
}
