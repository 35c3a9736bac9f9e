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
import { percentileViews } from './percentile-views.ts';
import { catalogViews, healthViews, statusViews } from './status-views.ts';
import { historyViews } from './history-views.ts';
import { incidentViews } from './incident-views.ts';
import { vendorIncidentViews } from './vendor-views.ts';
import type { ViewPart } from './view-part.ts';
import { VIEW_PREFIX, writeView } from './view-store.ts';

/** How long after a mark the build waits for the marks that come with it (the other regions of a tick). */
export const SETTLE_MS = 10 * SECOND_MS;
/** How long a failed part waits before it is tried again. */
export const RETRY_MS = 30 * SECOND_MS;
export const MANIFEST_VIEW_KEY = `${VIEW_PREFIX}manifest.json`;

/** Every part, in the order a build runs them: health last, so it tells the others' ages. */
export function viewParts(ages: (now: number) => Promise<ViewAges>): ViewPart[] {
  return [statusViews, percentileViews, catalogViews, historyViews, incidentViews, vendorIncidentViews, healthViews(ages)];
}
/** The parts' names and routes (their builders need no object): what the read API's view gate reads. */
export const VIEW_PARTS: readonly ViewPart[] = viewParts(async () => ({}));
export type ViewPartName = 'status' | 'percentiles' | 'catalog' | 'history' | 'incidents' | 'vendor-incidents' | 'health';

type Row = Record<string, SqlStorageValue>;

export class PublicViews extends DurableObject<Env> {
  private readonly parts: ViewPart[];
  /** The manifest of the build under way (health, built last, reports the others' new ages). */
  private building: ViewManifest | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.parts = viewParts(async (now) => this.ages(now));
    ctx.blockConcurrencyWhile(async () => {
      // Marked parts (name → how often marked; a build clears what it saw), and the manifest.
      ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS dirty (part TEXT PRIMARY KEY, marks INTEGER NOT NULL) WITHOUT ROWID');
      ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS manifest (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    });
  }

  /** The parts whose data changed; built SETTLE_MS from now (or sooner, when an alarm is set already). */
  async markDirty(parts: readonly ViewPartName[]): Promise<void> {
    const sql = this.ctx.storage.sql;
    for (const part of new Set(parts))
      sql.exec('INSERT INTO dirty (part, marks) VALUES (?, 1) ON CONFLICT DO UPDATE SET marks = marks + 1', part);
    const at = Date.now() + SETTLE_MS;
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
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
    const marked = this.ctx.storage.sql.exec<Row>('SELECT part, marks FROM dirty').toArray();
    const failed = await this.buildParts(
      marked.map((r) => String(r.part) as ViewPartName),
      new Map(marked.map((r) => [String(r.part), Number(r.marks)])),
    );
    if (failed > 0) {
      const at = Date.now() + RETRY_MS;
      const current = await this.ctx.storage.getAlarm();
      if (current === null || current > at) await this.ctx.storage.setAlarm(at);
    }
  }

  /** Builds the parts named, in the parts' order; a part's marks seen are cleared once it is written. Returns the failures. */
  private async buildParts(names: readonly ViewPartName[], marks = new Map<string, number>()): Promise<number> {
    const manifest = this.manifest();
    this.building = manifest;
    let failed = 0;
    for (const part of this.parts.filter((p) => names.includes(p.name as ViewPartName))) {
      const started = Date.now();
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
          const text = v.list ? viewText(v.doc as Record<string, unknown>, v.list) : JSON.stringify(v.doc);
          const stored = await writeView(this.env.ARCHIVE, v.name, text, started);
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
        const seen = marks.get(part.name);
        if (seen !== undefined) this.ctx.storage.sql.exec('DELETE FROM dirty WHERE part = ? AND marks = ?', part.name, seen);
        else this.ctx.storage.sql.exec('DELETE FROM dirty WHERE part = ?', part.name);
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
