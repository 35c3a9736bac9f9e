/**
 * The status keeper: one Durable Object for the whole observatory. Each region's object sends it
 * the findings of each tick it has evaluated; the keeper applies them to the region × target states
 * (hysteresis), derives each target's status, and judges each tick once every region due at it has
 * reported it or its deadline has passed (status-judge.ts): opens, updates and resolves incidents, and
 * queues one message per incident event and channel. All of that happens in one synchronous storage
 * transaction per report (or per alarm, for a deadline), and a finding not newer than the pair's last
 * one is refused, so a retried tick, a repeated alarm or two overlapping reports can never open a
 * second incident or queue a message twice. Its alarm also writes incidents to D1 and delivers the
 * queue, with backoff.
 */
import { DAY_MS } from '../../../shared/time.ts';
import { LONGEST_VIEW_DAYS } from '../../../shared/views/windows.ts';
import { DurableObject } from 'cloudflare:workers';
import { getConfig } from '../config.ts';
import { resolveStatusRules } from '../../../shared/status/rules.ts';
import { nextPairState, targetStatus, type PairState, type TargetStatus } from '../../../shared/status/pair-state.ts';
import { firedWords, type Incident } from '../../../shared/status/incidents.ts';
import { deleteMaintenance, insertMaintenance } from '../db/status-history.ts';
import { KeeperHistory } from './status-history.ts';
import { configWindows, coveringWindow, MAX_API_WINDOWS, type MaintenanceWindow } from '../../../shared/status/maintenance.ts';
import { regionsOf, TickJudge } from './status-judge.ts';
import type { PeriodState } from '../../../shared/status/levels.ts';
import type { Finding } from '../../../shared/status/evaluate.ts';
import { NotificationOutbox, type OutboxSummary } from '../notify/outbox.ts';
import { markViews } from '../views/mark-views.ts';
import { keeperDuties } from './keeper-duties.ts';
import type { KeeperDuty } from './keeper-duty.ts';
import { unwrittenIncidents } from './incident-duty.ts';
import type { ReportVersionEntry, WeeklyReport } from '../../../shared/reports/report.ts';

export { MAX_ATTEMPTS, RETRY_BASE_MS, type DeliveryAttempt } from '../notify/outbox.ts';
import type { PairFinding } from './status-evaluation.ts';

/** The keeper's own tables: the region × target states (report), and the maintenance windows made through the admin API. */
export const KEEPER_TABLES = [
  'CREATE TABLE IF NOT EXISTS pairs (region TEXT NOT NULL, target TEXT NOT NULL, variant TEXT NOT NULL, state TEXT NOT NULL, PRIMARY KEY (region, target, variant)) WITHOUT ROWID',
  // Those of the configuration are read from it.
  'CREATE TABLE IF NOT EXISTS maintenance (id TEXT PRIMARY KEY, body TEXT NOT NULL) WITHOUT ROWID',
];

type Row = Record<string, SqlStorageValue>;

export interface KeeperStatus {
  pairs: PairState[];
  targets: TargetStatus[];
  open_incidents: Incident[];
  notifications: OutboxSummary;
  incidents_unwritten: number;
}

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
  private readonly judge: TickJudge;
  private readonly duties: KeeperDuty[];

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.outbox = new NotificationOutbox(ctx.storage, env);
    this.history = new KeeperHistory(ctx.storage);
    this.judge = new TickJudge(ctx.storage, this.outbox);
    this.duties = keeperDuties({
      storage: ctx.storage,
      env,
      judge: this.judge,
      history: this.history,
      outbox: this.outbox,
      maintenanceWindows: () => this.maintenanceWindows(),
    });
    ctx.blockConcurrencyWhile(async () => {
      for (const statement of [...KEEPER_TABLES, ...this.duties.flatMap((d) => d.tables)]) ctx.storage.sql.exec(statement);
    });
  }

  /** A weekly report version's digest for the channels that asked for one (reports/publish.ts); returns how many were queued. */
  async queueReportDigest(report: WeeklyReport, entry: ReportVersionEntry): Promise<number> {
    const queued = this.outbox.queueDigest(report, entry, Date.now());
    await this.wake(Date.now());
    return queued;
  }

  /** One region's findings for one tick (status-evaluation.ts). Returns how many were applied (0: all stale). */
  async report(region: string, findings: PairFinding[]): Promise<number> {
    const rules = resolveStatusRules(getConfig().status);
    const now = Date.now();
    let applied = 0;
    const windows = this.maintenanceWindows();
    this.ctx.storage.transactionSync(() => {
      const touched = new Set<string>();
      const late: Array<{ target: string; variant: string; tick: number }> = [];
      for (const f of findings) {
        const key = { region, target: f.target, variant: f.variant };
        const tick = f.finding.tick_id;
        const next = nextPairState(this.pair(key), key, f.finding, rules);
        // Late: applied, but its tick was judged already (at its deadline, without this region).
        const isLate = next !== null && tick <= this.judge.frontier(f.target, f.variant);
        // The tick in the history: as the state it put the pair in, or, judged after a newer tick (a backfill), as the
        // rules found it; inside a maintenance window, as maintenance.
        const window = coveringWindow(windows, f.target, region, tick);
        const state: PeriodState = window ? 'maintenance' : next ? next.state : (f.finding.level ?? 'no-data');
        this.history.record(tick, key, state, tickNote(f.finding, state, window), now, isLate);
        if (!next) continue;
        applied++;
        this.ctx.storage.sql.exec(
          'INSERT INTO pairs (region, target, variant, state) VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET state = excluded.state',
          region,
          f.target,
          f.variant,
          JSON.stringify({ ...next, reported_at: now }),
        );
        if (isLate) late.push({ target: f.target, variant: f.variant, tick });
        else {
          this.judge.noted(f.target, f.variant, tick, now);
          touched.add(`${f.target}\n${f.variant}`);
        }
      }
      for (const l of late) this.judge.judgeLate(l.target, l.variant, region, l.tick, now, windows);
      for (const key of touched) {
        const [target, variant] = key.split('\n');
        this.judge.judge(target, variant, now, windows);
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
      incidents_unwritten: unwrittenIncidents(sql),
    };
  }

  /** Each duty's step in order (keeper-duties.ts), then the alarm for the earliest one due. */
  override async alarm(): Promise<void> {
    const now = Date.now();
    for (const duty of this.duties) await duty.run(now);
    await this.wake(Date.now());
  }

  /** Sets the alarm for the earliest pending work (D1 writes at once, deliveries when due, reminders, a tick's deadline). */
  private async wake(now: number): Promise<void> {
    const times = this.duties.map((d) => d.nextAt(now)).filter((t): t is number => t !== null);
    if (times.length === 0) return;
    const at = Math.max(now, Math.min(...times));
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

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
    sql.exec("DELETE FROM maintenance WHERE json_extract(body, '$.ends_at') < ?", now - LONGEST_VIEW_DAYS * DAY_MS);
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

  private pair(key: { region: string; target: string; variant: string }): PairState | null {
    const row = this.ctx.storage.sql
      .exec<Row>('SELECT state FROM pairs WHERE region = ? AND target = ? AND variant = ?', key.region, key.target, key.variant)
      .toArray()[0];
    return row ? (JSON.parse(String(row.state)) as PairState) : null;
  }
}
