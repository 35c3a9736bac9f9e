/**
 * The view builder: one Durable Object for the whole observatory. What the public views summarise changes at a
 * few known moments, and each tells this object which part changed (markDirty): a tick was scheduled (health), a
 * region reported a tick to the status keeper (status), a region rolled up an hour (percentiles and the catalog),
 * the keeper wrote an ended hour of the status history (history, and the incidents' windows that move with it) or
 * incidents (incidents, vendor-incidents), a vendor page's poll wrote (vendor-incidents). A part marked waits its
 * settling time (SETTLE_MS, or ROLLUP_SETTLE_MS for a part fed by rollups) from its first mark for the marks that come with it, then the
 * alarm builds it from D1 and the observatory's objects and writes its views to R2 (view-store.ts): the reports of a
 * tick's regions make about one build of the status, the regions' rollups of an hour one build of the rollups'
 * parts. Readers then read the views, never D1 (serve-view.ts). A part that fails stays marked and is tried again RETRY_MS later; its views
 * in R2 stay as they were, and health says how old they are.
 */
import { DurableObject } from 'cloudflare:workers';
import { MINUTE_MS, SECOND_MS } from '../../../shared/time.ts';
import { viewText } from '../../../shared/views/view-text.ts';
import { meterD1 } from '../db/meter.ts';
import { agesOf, emptyManifest, type PartState, type ViewAges, type ViewManifest } from './manifest.ts';
import { viewParts, type ViewPartName } from './parts.ts';
import type { ViewPart } from './view-part.ts';
import { VIEW_PREFIX, writeView } from './view-store.ts';
import { CorrectionError, publishCorrection, publishDueReport, queueDigest, type Published } from '../reports/publish.ts';
import type { ReportVersionEntry } from '../../../shared/reports/report.ts';

/**
 * How long after a part's first mark its build waits for the marks that come with it: the other regions' reports of a
 * tick, each sent once its region's probes of the tick are done, up to a minute or so apart.
 */
export const SETTLE_MS = MINUTE_MS;
/**
 * The same for the parts fed by the regions' rollups of an ended hour (ROLLUP_SETTLE_SECONDS, default 3 minutes:
 * each region rolls up in the alarm after its tick's probes, so they come minutes apart; within a 5-minute tick, so
 * a view is still at most a tick behind).
 */
export const ROLLUP_SETTLE_MS = 3 * MINUTE_MS;
/** How long a failed part waits before it is tried again. */
export const RETRY_MS = 30 * SECOND_MS;
export const MANIFEST_VIEW_KEY = `${VIEW_PREFIX}manifest.json`;

type Row = Record<string, SqlStorageValue>;

/** What the builder keeps: its manifest, and the parts marked with when each falls due (one row, written at a part's
 * first mark and once a build: a build costs two storage rows written whatever the parts). */
interface BuilderState {
  manifest: ViewManifest;
  dirty: Record<string, number>;
}

export class PublicViews extends DurableObject<Env> {
  private readonly parts: ViewPart[];
  /** The manifest of the build under way (health, built last, reports the others' new ages). */
  private building: ViewManifest | null = null;
  /**
   * Marks each part has had in this object's life, so a build clears a part's stored mark only if no mark came
   * while it was building; the stored mark is written once, when a part turns dirty, not at every mark (a tick's
   * reports mark the status a region each).
   */
  private readonly marks = new Map<string, number>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.parts = viewParts(async (now) => this.ages(now));
    ctx.blockConcurrencyWhile(async () => {
      ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS state (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    });
  }

  private state(): BuilderState {
    const row = this.ctx.storage.sql.exec<Row>('SELECT body FROM state WHERE id = 1').toArray()[0];
    return row ? (JSON.parse(String(row.body)) as BuilderState) : { manifest: emptyManifest(), dirty: {} };
  }

  private save(state: BuilderState): void {
    this.ctx.storage.sql.exec(
      'INSERT INTO state (id, body) VALUES (1, ?) ON CONFLICT DO UPDATE SET body = excluded.body',
      JSON.stringify(state),
    );
  }

  /**
   * The parts whose data changed; each built its settling time after its first mark since it was last built. With
   * VIEW_BUILDS "on-demand" (the Workers tests, which build when they choose) they are only marked.
   */
  async markDirty(parts: readonly ViewPartName[]): Promise<void> {
    const state = this.state();
    const now = Date.now();
    let turned = false;
    for (const part of new Set(parts)) {
      this.marks.set(part, (this.marks.get(part) ?? 0) + 1);
      if (state.dirty[part] !== undefined) continue;
      state.dirty[part] = now + this.settleOf(part);
      turned = true;
    }
    // Written only when a part turns dirty: later marks of it cost nothing stored.
    if (turned) this.save(state);
    if ((this.env as { VIEW_BUILDS?: string }).VIEW_BUILDS === 'on-demand') return;
    await this.wakeAtNextDue(state);
  }

  private settleOf(part: string): number {
    if (this.parts.find((p) => p.name === part)?.settle !== 'rollups') return SETTLE_MS;
    const seconds = Number((this.env as { ROLLUP_SETTLE_SECONDS?: string }).ROLLUP_SETTLE_SECONDS);
    return Number.isFinite(seconds) && seconds >= 0 ? seconds * SECOND_MS : ROLLUP_SETTLE_MS;
  }

  /** The alarm at the earliest part due (unless one is set sooner). */
  private async wakeAtNextDue(state: BuilderState): Promise<void> {
    const times = Object.values(state.dirty);
    if (times.length === 0) return;
    const at = Math.min(...times);
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  /** Sets when a marked part falls due (null: unmarks it); for tests, which run the builder's alarm when they choose. */
  markDue(part: string, at: number | null): void {
    const state = this.state();
    if (at === null) delete state.dirty[part];
    else state.dirty[part] = at;
    this.save(state);
  }

  /** The parts marked and not yet built, with when each falls due. */
  async dirtyParts(): Promise<Record<string, number>> {
    return this.state().dirty;
  }

  /** Builds these parts (every part when none is named) now; what the admin route and the demo ask for. */
  async build(parts?: readonly ViewPartName[]): Promise<ViewManifest> {
    await this.buildParts(parts ?? this.parts.map((p) => p.name as ViewPartName));
    return this.manifest();
  }

  async ages(now: number): Promise<ViewAges> {
    return agesOf(this.building ?? this.manifest(), now);
  }

  manifest(): ViewManifest {
    return this.state().manifest;
  }

  /**
   * The weekly report due at `now`, published if it is not yet (reports/publish.ts): in this object, as the compare
   * views' build, since ranking every family's pairs over two weeks takes a Durable Object's CPU, not a free-plan
   * Worker's (bench/duties.ts).
   */
  async publishReport(now: number): Promise<Published> {
    const done = await publishDueReport(this.env.DB, this.env.ARCHIVE, now);
    if (done.outcome !== 'published') return done;
    await queueDigest(this.env, done.report, done.entry);
    return { week: done.week, outcome: done.outcome, entry: done.entry, created: done.created };
  }

  /** A published week again as its next version, correcting the current one; `refused` when there is none to correct. */
  async correctReport(
    week: string,
    reason: string,
    now: number,
  ): Promise<{ week: string; entry: ReportVersionEntry; created: boolean } | { refused: string }> {
    try {
      const done = await publishCorrection(this.env.DB, this.env.ARCHIVE, week, reason, now);
      await queueDigest(this.env, done.report, done.entry);
      return { week: done.week, entry: done.entry, created: done.created };
    } catch (e) {
      if (e instanceof CorrectionError) return { refused: e.message };
      throw e;
    }
  }

  override async alarm(): Promise<void> {
    const now = Date.now();
    const due = Object.entries(this.state().dirty)
      .filter(([, at]) => at <= now)
      .map(([part]) => part as ViewPartName);
    // A part never built yet is built too (a new deployment, or a part whose data change rarely: the time profiles
    // wait for a day to end), so every view exists from the first build on.
    const built = this.manifest().parts;
    for (const p of this.parts) if (!built[p.name] && !due.includes(p.name as ViewPartName)) due.push(p.name as ViewPartName);
    await this.wakeAtNextDue(await this.buildParts(due));
  }

  /**
   * Builds the parts named, in the parts' order; a part's mark is cleared once it is written, a failed part's is due
   * again RETRY_MS later. Returns the state saved.
   */
  private async buildParts(names: readonly ViewPartName[]): Promise<BuilderState> {
    const manifest = this.manifest();
    this.building = manifest;
    const done: string[] = [];
    const failedParts: string[] = [];
    for (const part of this.parts.filter((p) => names.includes(p.name as ViewPartName))) {
      const started = Date.now();
      const seen = this.marks.get(part.name) ?? 0;
      const d1 = meterD1(this.env.DB);
      const before: PartState = manifest.parts[part.name] ?? {
        built_at: null,
        views: 0,
        bytes: 0,
        rows_read: 0,
        build_ms: 0,
        error: null,
        failed_at: null,
      };
      try {
        const built = await part.build({ env: this.env, db: d1.db, now: started });
        let bytes = 0;
        for (const v of built) {
          const text = 'text' in v ? v.text : v.list ? viewText(v.doc as Record<string, unknown>, v.list) : JSON.stringify(v.doc);
          const stored = await writeView(this.env.ARCHIVE, v.name, text, started, 'text' in v ? v.contentType : undefined);
          manifest.views[v.name] = { hash: stored.hash, built_at: started, bytes: text.length };
          bytes += text.length;
        }
        manifest.parts[part.name] = {
          built_at: started,
          views: built.length,
          bytes,
          rows_read: d1.rowsRead,
          build_ms: Date.now() - started,
          error: null,
          failed_at: null,
        };
        // A mark that came while it was building keeps the part marked for the next alarm.
        if ((this.marks.get(part.name) ?? 0) === seen) done.push(part.name);
      } catch (e) {
        failedParts.push(part.name);
        const message = e instanceof Error ? e.message : String(e);
        manifest.parts[part.name] = { ...before, error: message.slice(0, 500), failed_at: started };
        console.error(`public views: building ${part.name} failed, kept for retry: ${message}`);
      }
    }
    this.building = null;
    // The marks as they stand now (more may have come while it built), with this build's outcome.
    const state = { ...this.state(), manifest };
    for (const name of done) delete state.dirty[name];
    for (const name of failedParts) state.dirty[name] = Date.now() + RETRY_MS;
    this.save(state);
    await this.env.ARCHIVE.put(MANIFEST_VIEW_KEY, JSON.stringify(manifest), {
      httpMetadata: { contentType: 'application/json; charset=utf-8' },
    }).catch((e) => console.error('public views: the manifest could not be written to R2', e));
    return state;
  }
}
