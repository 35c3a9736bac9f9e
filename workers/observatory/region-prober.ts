/**
 * One regional Durable Object per configured region. A tick's jobs are queued in its own SQLite
 * storage; an alarm runs them one at a time (or `concurrency` at once), each alarm one small
 * invocation well inside the CPU and subrequest limits; samples wait in an outbox until D1 has them,
 * so nothing measured is lost when D1 is unavailable, and a job is never run twice.
 */
import { DurableObject } from 'cloudflare:workers';
import { findRegion, findTarget, findVariant, getConfig, type Job } from './config.ts';
import { COLO_REFRESH_MS, fetchColo } from './colo.ts';
import { MissingSecretError, runJob } from './probe-job.ts';
import { insertSamples } from './db/samples.ts';
import type { StoredSample } from './db/sample-row.ts';

/** Wait before retrying a failed D1 flush. */
export const FLUSH_RETRY_MS = 30_000;
/** Samples written to D1 per batch. */
const FLUSH_BATCH = 50;
/** A claimed job whose alarm died is claimable again after this long. */
const CLAIM_TIMEOUT_MARGIN_MS = 60_000;
/** How long finished job keys are kept to refuse a retried tick. */
const DONE_KEEP_MS = 3 * 24 * 60 * 60 * 1000;

export interface EnqueueResult {
  queued: number;
  skipped: number;
}

export interface ProberStatus {
  region: string | null;
  queued: number;
  outbox: number;
  done: number;
  colo: string | null;
  lastFlushError: string | null;
  missingSecrets: string[];
}

type Row = Record<string, SqlStorageValue>;

export class RegionProber extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      const sql = ctx.storage.sql;
      sql.exec(`CREATE TABLE IF NOT EXISTS jobs (tick_id INTEGER NOT NULL, target TEXT NOT NULL, variant TEXT NOT NULL,
        backfill INTEGER NOT NULL, claimed_at INTEGER, PRIMARY KEY (tick_id, target, variant))`);
      sql.exec(`CREATE TABLE IF NOT EXISTS done (tick_id INTEGER NOT NULL, target TEXT NOT NULL, variant TEXT NOT NULL,
        finished_at INTEGER NOT NULL, PRIMARY KEY (tick_id, target, variant))`);
      sql.exec(`CREATE TABLE IF NOT EXISTS outbox (tick_id INTEGER NOT NULL, target TEXT NOT NULL, variant TEXT NOT NULL,
        sample TEXT NOT NULL, PRIMARY KEY (tick_id, target, variant))`);
      sql.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)');
    });
  }

  /** Queues a tick's jobs. Idempotent: a job queued, running or done before is skipped. */
  async enqueue(region: string, jobs: Job[]): Promise<EnqueueResult> {
    this.setMeta('region', region);
    let queued = 0;
    for (const job of jobs) {
      const inserted = this.ctx.storage.sql.exec(
        `INSERT INTO jobs (tick_id, target, variant, backfill) SELECT ?, ?, ?, ?
         WHERE NOT EXISTS (SELECT 1 FROM done WHERE tick_id = ? AND target = ? AND variant = ?)
         ON CONFLICT DO NOTHING`,
        job.tickId, job.target, job.variant, job.backfill ? 1 : 0, job.tickId, job.target, job.variant,
      ).rowsWritten;
      if (inserted > 0) queued++;
    }
    if (queued > 0 && (await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now());
    return { queued, skipped: jobs.length - queued };
  }

  async status(): Promise<ProberStatus> {
    const count = (table: string) => Number(this.ctx.storage.sql.exec(`SELECT COUNT(*) AS n FROM ${table}`).one().n);
    return {
      region: this.getMeta('region'),
      queued: count('jobs'),
      outbox: count('outbox'),
      done: count('done'),
      colo: this.getMeta('colo'),
      lastFlushError: this.getMeta('last_flush_error'),
      missingSecrets: JSON.parse(this.getMeta('missing_secrets') ?? '[]'),
    };
  }

  override async alarm(): Promise<void> {
    const config = getConfig();
    const regionCode = this.getMeta('region');
    const region = regionCode ? findRegion(regionCode) : undefined;
    if (!region) return;
    const claimed = this.claim(config.concurrency, config.timeouts.totalMs * (1 + config.rttProbes) + CLAIM_TIMEOUT_MARGIN_MS);
    if (claimed.length > 0) {
      const colo = await this.colo();
      await Promise.all(claimed.map((job) => this.runOne(job, region, colo)));
    }
    const remaining = Number(this.ctx.storage.sql.exec('SELECT COUNT(*) AS n FROM jobs').one().n);
    if (remaining > 0) {
      await this.ctx.storage.setAlarm(Date.now());
      if (this.outboxSize() < FLUSH_BATCH) return;
    }
    if (!(await this.flush())) await this.ctx.storage.setAlarm(Date.now() + FLUSH_RETRY_MS);
  }

  /** Marks up to n unclaimed (or abandoned) jobs as running, oldest tick first. */
  private claim(n: number, claimTimeoutMs: number): Job[] {
    const now = Date.now();
    const rows = this.ctx.storage.sql.exec<Row>(
      'SELECT tick_id, target, variant, backfill FROM jobs WHERE claimed_at IS NULL OR claimed_at < ? ORDER BY tick_id, target, variant LIMIT ?',
      now - claimTimeoutMs, n,
    ).toArray();
    for (const r of rows) this.ctx.storage.sql.exec('UPDATE jobs SET claimed_at = ? WHERE tick_id = ? AND target = ? AND variant = ?', now, r.tick_id, r.target, r.variant);
    return rows.map((r) => ({ tickId: Number(r.tick_id), target: String(r.target), variant: String(r.variant), backfill: r.backfill === 1 }));
  }

  private async runOne(job: Job, region: NonNullable<ReturnType<typeof findRegion>>, colo: string | null): Promise<void> {
    const target = findTarget(job.target);
    const variant = findVariant(job.variant);
    let sample: StoredSample | null = null;
    if (target && variant) {
      try {
        sample = await runJob(job, region, target, variant, getConfig(), {
          referenceUrl: this.referenceUrl(region.code),
          secrets: this.env as unknown as Record<string, unknown>,
          colo,
          simulated: this.env.SIMULATED_REGIONS === '1',
        });
      } catch (e) {
        if (!(e instanceof MissingSecretError)) throw e;
        this.noteMissingSecret(target.apiKeySecret ?? '');
        console.error(`region ${region.code}: ${e.message}; target skipped`);
      }
    } else {
      console.error(`region ${region.code}: job for unknown target/variant ${job.target}/${job.variant} dropped (config changed)`);
    }
    this.ctx.storage.transactionSync(() => {
      const sql = this.ctx.storage.sql;
      if (sample) sql.exec('INSERT OR IGNORE INTO outbox (tick_id, target, variant, sample) VALUES (?, ?, ?, ?)', job.tickId, job.target, job.variant, JSON.stringify(sample));
      sql.exec('INSERT OR IGNORE INTO done (tick_id, target, variant, finished_at) VALUES (?, ?, ?, ?)', job.tickId, job.target, job.variant, Date.now());
      sql.exec('DELETE FROM jobs WHERE tick_id = ? AND target = ? AND variant = ?', job.tickId, job.target, job.variant);
      sql.exec('DELETE FROM done WHERE finished_at < ?', Date.now() - DONE_KEEP_MS);
    });
  }

  /** Writes the outbox to D1 in batches; false (keeping every sample) when D1 fails. */
  private async flush(): Promise<boolean> {
    for (;;) {
      const rows = this.ctx.storage.sql.exec<Row>('SELECT tick_id, target, variant, sample FROM outbox ORDER BY tick_id LIMIT ?', FLUSH_BATCH).toArray();
      if (rows.length === 0) {
        this.setMeta('last_flush_error', null);
        return true;
      }
      try {
        await insertSamples(this.env.DB, rows.map((r) => JSON.parse(String(r.sample)) as StoredSample));
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        this.setMeta('last_flush_error', message.slice(0, 200));
        console.error(`region ${this.getMeta('region')}: D1 write failed, ${this.outboxSize()} samples kept for retry: ${message}`);
        return false;
      }
      this.ctx.storage.transactionSync(() => {
        for (const r of rows) this.ctx.storage.sql.exec('DELETE FROM outbox WHERE tick_id = ? AND target = ? AND variant = ?', r.tick_id, r.target, r.variant);
      });
    }
  }

  private outboxSize(): number {
    return Number(this.ctx.storage.sql.exec('SELECT COUNT(*) AS n FROM outbox').one().n);
  }

  private async colo(): Promise<string | null> {
    const checkedAt = Number(this.getMeta('colo_checked_at') ?? 0);
    if (Date.now() - checkedAt < COLO_REFRESH_MS) return this.getMeta('colo');
    const colo = await fetchColo(this.env.COLO_TRACE_URL);
    this.setMeta('colo', colo);
    this.setMeta('colo_checked_at', String(Date.now()));
    return colo;
  }

  private referenceUrl(region: string): string {
    const overrides = JSON.parse(this.env.REGION_REFERENCE_URLS || '{}') as Record<string, string>;
    return overrides[region] ?? this.env.REFERENCE_URL;
  }

  private noteMissingSecret(name: string): void {
    const missing = new Set<string>(JSON.parse(this.getMeta('missing_secrets') ?? '[]'));
    missing.add(name);
    this.setMeta('missing_secrets', JSON.stringify([...missing]));
  }

  private getMeta(key: string): string | null {
    const row = this.ctx.storage.sql.exec<Row>('SELECT value FROM meta WHERE key = ?', key).toArray()[0];
    return row ? (row.value as string | null) : null;
  }

  private setMeta(key: string, value: string | null): void {
    this.ctx.storage.sql.exec('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', key, value);
  }
}
