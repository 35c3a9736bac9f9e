/**
 * What the view builder knows of the views it wrote: per part, when it was last built (and how long that took,
 * what it read, how many views and bytes it wrote, its last failure), and per view its hash and build time. Kept in
 * the builder's storage as one row, and in R2 beside the views (views/manifest.json) for readers that list them.
 */
import { SECOND_MS } from '../../../shared/time.ts';

export interface PartState {
  built_at: number | null;
  views: number;
  bytes: number;
  rows_read: number;
  /** Wall time of the last build (in a Durable Object, CPU and I/O waits together). */
  build_ms: number;
  /** The last build's failure, until a build succeeds. */
  error: string | null;
  failed_at: number | null;
}

export interface ViewEntry {
  hash: string;
  built_at: number;
  bytes: number;
}

export interface ViewManifest {
  parts: Record<string, PartState>;
  views: Record<string, ViewEntry>;
}

export const emptyManifest = (): ViewManifest => ({ parts: {}, views: {} });

/** How old each part's views are, as GET /api/v1/health says it. */
export type ViewAges = Record<
  string,
  { built_at: string | null; age_seconds: number | null; views: number; bytes: number; rows_read: number; error: string | null }
>;

export function agesOf(manifest: ViewManifest, now: number): ViewAges {
  return Object.fromEntries(
    Object.entries(manifest.parts).map(([name, p]) => [
      name,
      {
        built_at: p.built_at === null ? null : new Date(p.built_at).toISOString(),
        age_seconds: p.built_at === null ? null : Math.round((now - p.built_at) / SECOND_MS),
        views: p.views,
        bytes: p.bytes,
        rows_read: p.rows_read,
        error: p.error,
      },
    ]),
  );
}
