/**
 * A region object's own storage, as its duties share it: the SQL handle, the `meta` table (one row per
 * key: the region, its colo, the tick state (heartbeat-duty.ts), each duty's last failure), and the creation of every duty's
 * tables (duty.ts). Each table belongs to one duty, whose file holds its CREATE TABLE and every query on
 * it; another duty hands it work only through that file's functions.
 */
import type { Job } from '../config.ts';

export type Row = Record<string, SqlStorageValue>;

/** The table of the object itself: the meta rows. */
export const META_TABLES = ['CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID'];

/** Meta keys: one row each (`split_sources`: split-source-book.ts). */
export type MetaKey =
  | 'region'
  | 'colo'
  | 'colo_checked_at'
  | 'missing_secrets'
  | 'ticks'
  | 'daily_rollups_seeded'
  | 'paired_days_seeded'
  | 'span_rollups_seeded'
  | 'hour_spans_pruned_to'
  | 'spans_through'
  | 'split_sources'
  | DutyErrorKey;

/** Each duty's last failure, in a row of its own (null once it succeeds again). */
export type DutyErrorKey =
  | 'last_flush_error'
  | 'last_rollup_error'
  | 'last_evaluation_error'
  | 'last_otlp_error'
  | 'last_burst_error'
  | 'last_archive_error'
  | 'last_burst_archive_error'
  | 'last_rollup_archive_error';

/** What names a job: one sample per tick, target and variant in a region. */
export type JobKey = Pick<Job, 'tickId' | 'target' | 'variant'>;

export const jobKey = (j: JobKey) => `${j.tickId}|${j.target}|${j.variant}`;

export const numbers = (rows: Row[], column: string) => rows.map((r) => Number(r[column]));

export function columnsOf(sql: SqlStorage, table: string): string[] {
  return sql
    .exec<Row>(`PRAGMA table_info(${table})`)
    .toArray()
    .map((c) => String(c.name));
}

/** What creates a duty's tables (duty.ts's Duty, its `tables` and `upgrade`). */
export interface TableOwner {
  readonly tables: readonly string[];
  upgrade?(sql: SqlStorage): void;
}

export class ProberStore {
  readonly storage: DurableObjectStorage;
  readonly sql: SqlStorage;

  constructor(storage: DurableObjectStorage) {
    this.storage = storage;
    this.sql = storage.sql;
  }

  /** Creates the meta table and every owner's tables, and brings those of older objects up to date. Run once, in the object's constructor. */
  migrate(owners: readonly TableOwner[]): void {
    for (const statement of META_TABLES) this.sql.exec(statement);
    for (const owner of owners) {
      for (const statement of owner.tables) this.sql.exec(statement);
      owner.upgrade?.(this.sql);
    }
  }

  /** Rows of one of the duties' tables. */
  count(table: string): number {
    return Number(this.sql.exec(`SELECT COUNT(*) AS n FROM ${table}`).one().n);
  }

  /** `body` in one synchronous storage transaction (a hand-over between duties' tables). */
  transaction<T>(body: () => T): T {
    return this.storage.transactionSync(body);
  }

  meta(key: MetaKey): string | null {
    const row = this.sql.exec<Row>('SELECT value FROM meta WHERE key = ?', key).toArray()[0];
    return row ? (row.value as string | null) : null;
  }

  setMeta(key: MetaKey, value: string | null): void {
    this.sql.exec('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', key, value);
  }

  /** A meta row written only when its value changes (storage writes are billed). */
  updateMeta(key: MetaKey, value: string | null): void {
    if (this.meta(key) !== value) this.setMeta(key, value);
  }

  /** A duty's last failure (null once it succeeds again), at most 200 characters; written only when it changes. */
  noteDutyError(key: DutyErrorKey, message: string | null): void {
    this.updateMeta(key, message === null ? null : message.slice(0, 200));
  }
}
