/**
 * The anonymous readers' daily D1 row budget, metered in one object for the whole observatory: the
 * read API adds what its anonymous requests read (in batches, see api/public-reads.ts) and learns the
 * day's total back. Past the budget, anonymous reads get 429 until 00:00 UTC, while the observatory's
 * own jobs (rollups, status, the site build with its read token, dedupe) keep the rest of the quota.
 */
import { DurableObject } from 'cloudflare:workers';

export class ReadBudget extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS spent (day INTEGER PRIMARY KEY, rows INTEGER NOT NULL) WITHOUT ROWID');
    });
  }

  /** Adds `rows` to the UTC day that starts at `day` (epoch ms) and returns the day's total; older days are dropped. */
  async spend(day: number, rows: number): Promise<number> {
    const sql = this.ctx.storage.sql;
    sql.exec('DELETE FROM spent WHERE day < ?', day);
    if (rows > 0)
      sql.exec('INSERT INTO spent (day, rows) VALUES (?, ?) ON CONFLICT (day) DO UPDATE SET rows = rows + excluded.rows', day, rows);
    return Number(sql.exec<{ rows: number }>('SELECT rows FROM spent WHERE day = ?', day).toArray()[0]?.rows ?? 0);
  }
}
