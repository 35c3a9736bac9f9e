/**
 * The view builder: one Durable Object for the whole observatory. What the public views summarise changes at a
 * few known moments, and each tells this object which part changed (markDirty): a tick was scheduled (health), a
 * region reported a tick to the status keeper (status), a region rolled up an hour (percentiles and the catalog),
 * the keeper wrote an ended hour of the status history (history, and the incidents' windows that move with it) or
 * incidents (incidents, vendor-incidents), a vendor page's poll wrote (vendor-incidents). SETTLE_MS later its alarm builds every part marked since, each from D1 and the observatory's objects, and writes
 * its views to R2 (view-store.ts), so a report from each region of one tick makes one build. Readers then read
 * the views, never D1 (serve-view.ts). A part that fails stays marked and is tried again RETRY_MS later; its views
 * in R2 stay as they were, and health says how old they are.
 */
import { DurableObject } from 'cloudflare:workers';
import { SECOND_MS } from '../../../shared/time.ts';
import { viewText } from '../../../shared/views/view-text.ts';
import { meterD1 } from '../db/meter.ts';
import { agesOf, emptyManifest, type PartState, type ViewAges, type ViewManifest } from './manifest.ts';
import { viewParts, type ViewPartName } from './parts.ts';
import type { ViewPart } from './view-part.ts';
import { VIEW_PREFIX, writeView } from './view-store.ts';

/** How long after a mark the build waits for the marks that come with it (the other regions of a tick). */
export const SETTLE_MS = 10 * SECOND_MS;
/** How long a failed part waits before it is tried again. */
export const RETRY_MS = 30 * SECOND_MS;
export const MANIFEST_VIEW_KEY = `${VIEW_PREFIX}manifest.json`;

type Row = Record<string, SqlStorageValue>;

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
      // Marked parts (a build clears them), and the manifest.
      ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS dirty (part TEXT PRIMARY KEY) WITHOUT ROWID');
      ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS manifest (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    });
  }

  /**
   * The parts whose data changed; built SETTLE_MS from now (or sooner, when an alarm is set already). With
   * VIEW_BUILDS "on-demand" (the Workers tests, which build when they choose) they are only marked.
   */
  async markDirty(parts: readonly ViewPartName[]): Promise<void> {
    const sql = this.ctx.storage.sql;
    const dirty = new Set(await this.dirtyParts());
    for (const part of new Set(parts)) {
      this.marks.set(part, (this.marks.get(part) ?? 0) + 1);
      if (!dirty.has(part)) sql.exec('INSERT INTO dirty (part) VALUES (?) ON CONFLICT DO NOTHING', part);
    }
    if ((this.env as { VIEW_BUILDS?: string }).VIEW_BUILDS === 'on-demand') return;
    const at = Date.now() + SETTLE_MS;
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  /** The parts marked and not yet built. */
  async dirtyParts(): Promise<string[]> {
    return this.ctx.storage.sql
      .exec<Row>('SELECT part FROM dirty ORDER BY part')
      .toArray()
      .map((r) => String(r.part));
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
    const row = this.ctx.storage.sql.exec<Row>('SELECT body FROM manifest WHERE id = 1').toArray()[0];
    return row ? (JSON.parse(String(row.body)) as ViewManifest) : emptyManifest();
  }

  override async alarm(): Promise<void> {
    // The parts marked, and any never built yet (a new deployment: a part marked only when a day is rolled up would
    // otherwise have no view until the next midnight).
    const built = this.manifest().parts;
    const never = this.parts.filter((p) => !built[p.name]?.built_at).map((p) => p.name);
    const failed = await this.buildParts([...new Set([...(await this.dirtyParts()), ...never])] as ViewPartName[]);
    if (failed > 0) {
      const at = Date.now() + RETRY_MS;
      const current = await this.ctx.storage.getAlarm();
      if (current === null || current > at) await this.ctx.storage.setAlarm(at);
    }
  }

  /** Builds the parts named, in the parts' order; a part's mark is cleared once it is written. Returns the failures. */
  private async buildParts(names: readonly ViewPartName[]): Promise<number> {
    const manifest = this.manifest();
    this.building = manifest;
    let failed = 0;
    for (const part of this.parts.filter((p) => names.includes(p.name as ViewPartName))) {
      const started = Date.now();
      const seen = this.marks.get(part.name) ?? 0;
      const d1 = meterD1(this.env.DB);
      const state: PartState = manifest.parts[part.name] ?? {
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
        if ((this.marks.get(part.name) ?? 0) === seen) this.ctx.storage.sql.exec('DELETE FROM dirty WHERE part = ?', part.name);
      } catch (e) {
        failed++;
        const message = e instanceof Error ? e.message : String(e);
        manifest.parts[part.name] = { ...state, error: message.slice(0, 500), failed_at: started };
        console.error(`public views: building ${part.name} failed, kept for retry: ${message}`);
      }
    }
    this.building = null;
    this.saveManifest(manifest);
    await this.env.ARCHIVE.put(MANIFEST_VIEW_KEY, JSON.stringify(manifest), {
      httpMetadata: { contentType: 'application/json; charset=utf-8' },
    }).catch((e) => console.error('public views: the manifest could not be written to R2', e));
    return failed;
  }

  private saveManifest(m: ViewManifest): void {
    this.ctx.storage.sql.exec(
      'INSERT INTO manifest (id, body) VALUES (1, ?) ON CONFLICT DO UPDATE SET body = excluded.body',
      JSON.stringify(m),
    );
  }
}
