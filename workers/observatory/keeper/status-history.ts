/**
 * The status keeper's side of the status history (shared/status/period-tally.ts): each judged tick recorded in
 * the keeper's own storage, in the row of its hour and region × target × variant (the first judgement of a tick
 * stands: a retried report changes nothing), and every ended hour written to D1 (db/status-history.ts), with its
 * day. A row stays while a tick of its hour may still come: until it is written, two days older than the newest
 * hour of its region × target × variant (in the data's time: a backfill of March is not "old" in December), and
 * untouched for an hour of wall time (a backfill's ticks of one hour come within minutes).
 */
import { tallyOf, type TickJudgements } from '../../../shared/status/period-tally.ts';
import type { PeriodState } from '../../../shared/status/levels.ts';
import { HOUR_MS } from '../../../shared/time.ts';
import { writeHistory, type HistoryHour } from '../db/status-history.ts';

type Row = Record<string, SqlStorageValue>;

const KEEP_WRITTEN_MS = 48 * HOUR_MS;
/** Notes kept at most this long (a tick's evidence in words). */
const NOTE_CHARS = 200;

/** Each pair's ticks of an hour, until D1 holds them (and KEEP_WRITTEN_MS after). */
export const HISTORY_TABLES = [
  `CREATE TABLE IF NOT EXISTS history (hour INTEGER NOT NULL, target TEXT NOT NULL, variant TEXT NOT NULL,
      region TEXT NOT NULL, ticks TEXT NOT NULL, unwritten INTEGER NOT NULL, touched_at INTEGER NOT NULL,
      PRIMARY KEY (hour, target, variant, region)) WITHOUT ROWID`,
];

/** Rows written to D1 in one batch. */
const WRITE_BATCH = 100;

const hourOf = (t: number) => Math.floor(t / HOUR_MS) * HOUR_MS;

export class KeeperHistory {
  private readonly storage: DurableObjectStorage;

  constructor(storage: DurableObjectStorage) {
    this.storage = storage;
  }

  migrate(): void {
    for (const statement of HISTORY_TABLES) this.storage.sql.exec(statement);
  }

  /** A tick judged (in the report's transaction); a tick already recorded keeps its first judgement. `late`: its report came after the tick was judged. */
  record(
    tick: number,
    key: { target: string; variant: string; region: string },
    state: PeriodState,
    note: string | null,
    now = Date.now(),
    late = false,
  ): void {
    const sql = this.storage.sql;
    const hour = hourOf(tick);
    const row = sql
      .exec<Row>(
        'SELECT ticks FROM history WHERE hour = ? AND target = ? AND variant = ? AND region = ?',
        hour,
        key.target,
        key.variant,
        key.region,
      )
      .toArray()[0];
    const ticks: TickJudgements = row ? JSON.parse(String(row.ticks)) : {};
    if (ticks[tick] !== undefined) return;
    const words = note === null ? null : note.slice(0, NOTE_CHARS);
    ticks[tick] = late ? [state, words, 1] : [state, words];
    sql.exec(
      `INSERT INTO history (hour, target, variant, region, ticks, unwritten, touched_at) VALUES (?, ?, ?, ?, ?, 1, ?)
      ON CONFLICT DO UPDATE SET ticks = excluded.ticks, unwritten = 1, touched_at = excluded.touched_at`,
      hour,
      key.target,
      key.variant,
      key.region,
      JSON.stringify(ticks),
      now,
    );
  }

  /** When the next ended hour is due to be written (now, when one is), or null with nothing to write. */
  nextWriteAt(now: number): number | null {
    const t = this.storage.sql.exec<Row>('SELECT MIN(hour) AS h FROM history WHERE unwritten = 1').one().h;
    return t === null ? null : Math.max(now, Number(t) + HOUR_MS);
  }

  /** Writes every ended hour waiting (and its day) to D1; false, keeping them, when D1 fails. */
  async writeEnded(db: D1Database, now: number): Promise<boolean> {
    const sql = this.storage.sql;
    for (;;) {
      const rows = sql
        .exec<Row>(
          'SELECT hour, target, variant, region, ticks FROM history WHERE unwritten = 1 AND hour < ? ORDER BY hour LIMIT ?',
          hourOf(now),
          WRITE_BATCH,
        )
        .toArray();
      if (rows.length === 0) break;
      const hours: HistoryHour[] = rows.map((r) => ({
        hour: Number(r.hour),
        target: String(r.target),
        variant: String(r.variant),
        region: String(r.region),
        tally: tallyOf(JSON.parse(String(r.ticks)) as TickJudgements),
      }));
      try {
        await writeHistory(db, hours);
      } catch (e) {
        console.error(
          `status keeper: writing ${rows.length} hour(s) of status history to D1 failed, kept for retry: ${e instanceof Error ? e.message : e}`,
        );
        return false;
      }
      this.storage.transactionSync(() => {
        // Only if unchanged since read: a tick recorded in between leaves the hour to be written again.
        for (const r of rows)
          sql.exec(
            'UPDATE history SET unwritten = 0 WHERE hour = ? AND target = ? AND variant = ? AND region = ? AND ticks = ?',
            r.hour,
            r.target,
            r.variant,
            r.region,
            r.ticks,
          );
      });
    }
    sql.exec(
      `DELETE FROM history WHERE unwritten = 0 AND touched_at < ? AND hour < (SELECT MAX(n.hour) FROM history n
        WHERE n.target = history.target AND n.variant = history.variant AND n.region = history.region) - ?`,
      now - HOUR_MS,
      KEEP_WRITTEN_MS,
    );
    return true;
  }
}
