/**
 * Where the public views live: one R2 object each, `views/<name>.json` in the archive's bucket (the archive keeps
 * its tables under their own prefixes), written whole by the view builder (public-views.ts) and read by the read
 * API (serve-view.ts). R2, not static assets: the views change every tick, and an asset only changes with a deploy.
 * Each object carries its content's hash (the ETag every answer of it gives) and when it was built.
 *
 * A reading isolate keeps the objects it has read in memory for MEMORY_MS, at most MEMORY_BYTES of them, so a
 * crowd of readers costs about one R2 read per view, isolate and MEMORY_MS, not one per request.
 */
import { SECOND_MS } from '../../../shared/time.ts';
import { JSON_CONTENT_TYPE, storedView, type StoredView } from './view-answer.ts';

export const VIEW_PREFIX = 'views/';
export const viewKey = (name: string) => `${VIEW_PREFIX}${name}.json`;
/** How long a read view is served from this isolate's memory before R2 is asked again (a tick is minutes). */
export const MEMORY_MS = 10 * SECOND_MS;
/** The most bytes of views one isolate keeps (of 128 MB an isolate may use). */
export const MEMORY_BYTES = 16 * 1024 * 1024;

export type { StoredView };

export async function textHash(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  let hex = '';
  for (let i = 0; i < 8; i++) hex += digest[i].toString(16).padStart(2, '0');
  return hex;
}

/** `contentType`: what its answers say they are (a JSON view's by default). */
export async function writeView(
  bucket: R2Bucket,
  name: string,
  text: string,
  builtAt: number,
  contentType = JSON_CONTENT_TYPE,
): Promise<StoredView> {
  const hash = await textHash(text);
  await bucket.put(viewKey(name), text, {
    httpMetadata: { contentType },
    customMetadata: { hash, built_at: String(builtAt) },
  });
  return storedView({ name, text, hash, builtAt, contentType });
}

interface Remembered {
  view: StoredView;
  /** R2's ETag of the object read (its body's MD5), to ask for it again only if it changed. */
  etag: string;
  readAt: number;
}
const memory = new Map<string, Remembered>();
let memoryBytes = 0;

function remember(view: StoredView, etag: string, now: number): void {
  forget(view.name);
  memory.set(view.name, { view, etag, readAt: now });
  memoryBytes += view.bytes.byteLength;
  // The least recently read go first.
  for (const [name] of memory) {
    if (memoryBytes <= MEMORY_BYTES) break;
    forget(name);
  }
}

function forget(name: string): void {
  const had = memory.get(name);
  if (!had) return;
  memoryBytes -= had.view.bytes.byteLength;
  memory.delete(name);
}

/** A view, from this isolate's memory when read in the last MEMORY_MS, else from R2 (null: it was never built). */
export async function readView(bucket: R2Bucket, name: string, now: number): Promise<StoredView | null> {
  const had = memory.get(name);
  if (had && now - had.readAt < MEMORY_MS) {
    // Most recently read last.
    memory.delete(name);
    memory.set(name, had);
    return had.view;
  }
  // What this isolate holds already is asked for only if it changed (R2 answers with the metadata alone).
  const object: R2ObjectBody | R2Object | null = had
    ? await bucket.get(viewKey(name), { onlyIf: { etagDoesNotMatch: had.etag } })
    : await bucket.get(viewKey(name));
  if (object === null) {
    forget(name);
    return null;
  }
  if (!('body' in object)) {
    const meta = object.customMetadata ?? {};
    const before = had!.view;
    const view = storedView({ ...before, bytes: before.bytes, builtAt: Number(meta.built_at ?? before.builtAt) });
    remember(view, object.etag, now);
    return view;
  }
  const meta = object.customMetadata ?? {};
  const view = storedView({
    name,
    bytes: new Uint8Array(await (object as R2ObjectBody).arrayBuffer()),
    hash: meta.hash ?? object.etag,
    builtAt: Number(meta.built_at ?? 0),
    contentType: object.httpMetadata?.contentType ?? JSON_CONTENT_TYPE,
  });
  remember(view, object.etag, now);
  return view;
}

/** Forgets every view this isolate holds (tests, and an admin build that wants its answers seen at once). */
export function forgetViews(): void {
  memory.clear();
  memoryBytes = 0;
}
