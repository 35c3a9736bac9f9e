/**
 * The anonymous readers' daily budget, metered in one object for the whole observatory: the read API adds what
 * its anonymous requests cost (in batches, see api/public-reads.ts), in D1 rows read and in Durable Object
 * requests (each call of `spend` is one of them), and learns the day's totals back. Past either budget, anonymous
 * reads on the live path get 429 until 00:00 UTC, while the observatory's own jobs (rollups, status, the site
 * build, dedupe) keep the rest of the quota.
 */
import { DurableObject } from 'cloudflare:workers';

export interface Spent {
  rows: number;
  doRequests: number;
}

export class ReadBudget extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      const sql = ctx.storage.sql;
      sql.exec('CREATE TABLE IF NOT EXISTS spent (day INTEGER PRIMARY KEY, rows INTEGER NOT NULL) WITHOUT ROWID');
      // Objects made before Durable Object requests were counted have no such column yet.
      const columns = sql.exec<{ name: string }>("SELECT name FROM pragma_table_info('spent')").toArray();
      if (!columns.some((c) => c.name === 'do_requests')) sql.exec('ALTER TABLE spent ADD COLUMN do_requests INTEGER NOT NULL DEFAULT 0');
    });
  }

  /**
   * Adds `rows` and `doRequests` (plus this call) to the UTC day that starts at `day` (epoch ms) and returns the
   * day's totals; older days are dropped.
   */
  async spend(day: number, rows: number, doRequests = 0): Promise<Spent> {
    const sql = this.ctx.storage.sql;
    sql.exec('DELETE FROM spent WHERE day < ?', day);
    sql.exec(
      `INSERT INTO spent (day, rows, do_requests) VALUES (?, ?, ?)
       ON CONFLICT (day) DO UPDATE SET rows = rows + excluded.rows, do_requests = do_requests + excluded.do_requests`,
      day,
      rows,
      doRequests + 1,
    );
    const row = sql.exec<{ rows: number; do_requests: number }>('SELECT rows, do_requests FROM spent WHERE day = ?', day).one();
    return { rows: Number(row.rows), doRequests: Number(row.do_requests) };
  }
}
