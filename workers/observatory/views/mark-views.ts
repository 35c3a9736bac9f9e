/**
 * Tells the view builder (public-views.ts) that some views' data changed. Never fails its caller: a probe, a
 * rollup or a status report is not undone because the views could not be told; the next change tells them again,
 * and health says how old they are.
 */
import type { ViewPartName } from './part-names.ts';

export async function markViews(env: Env, parts: readonly ViewPartName[]): Promise<void> {
  try {
    await env.PUBLIC_VIEWS.getByName('global').markDirty(parts);
  } catch (e) {
    console.error(`public views: could not mark ${parts.join(', ')} changed: ${e instanceof Error ? e.message : e}`);
  }
}
