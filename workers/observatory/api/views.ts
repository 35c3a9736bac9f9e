/**
 * POST /api/v1/views (admin): builds the public views now, every part or those named (`{"parts": ["status"]}`),
 * and answers the builder's manifest: what the demo asks before it builds the site, and what a deployment asks
 * after its first ticks rather than wait for the next change.
 */
import { Hono } from 'hono';
import { VIEW_PARTS, type ViewPartName } from '../views/parts.ts';
import { forgetViews } from '../views/view-store.ts';
import { agesOf } from '../views/manifest.ts';
import { requireAdmin } from './admin.ts';
import { badRequest } from './errors.ts';
import type { ReaderEnv } from './public-reads.ts';

export const viewRoutes = new Hono<ReaderEnv>();

const PART_NAMES: readonly string[] = VIEW_PARTS.map((p) => p.name);

viewRoutes.post('/views', async (c) => {
  await requireAdmin(c.req.raw, (c.env as { ADMIN_TOKEN?: string }).ADMIN_TOKEN);
  const text = await c.req.text();
  if (text.length > 4_096) throw badRequest('body larger than 4096 bytes');
  let parts: string[] | undefined;
  if (text.trim() !== '') {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw badRequest('body must be JSON, like {} or {"parts": ["status", "percentiles"]}');
    }
    const given = (body as { parts?: unknown }).parts;
    if (!body || typeof body !== 'object' || Array.isArray(body) || Object.keys(body).some((k) => k !== 'parts'))
      throw badRequest('body must be {} or {"parts": [...]}');
    if (given !== undefined) {
      if (!Array.isArray(given) || given.length === 0 || given.some((p) => typeof p !== 'string' || !PART_NAMES.includes(p)))
        throw badRequest(`parts must name one or more of ${PART_NAMES.join(', ')}`);
      parts = given as string[];
    }
  }
  const manifest = await c.env.PUBLIC_VIEWS.getByName('global').build(parts as ViewPartName[] | undefined);
  // This isolate answers from the new views at once.
  forgetViews();
  const failed = Object.entries(manifest.parts).filter(([name, p]) => (!parts || parts.includes(name)) && p.error !== null);
  return c.json(
    {
      built: parts ?? PART_NAMES,
      failed: failed.map(([name, p]) => ({ part: name, error: p.error })),
      parts: agesOf(manifest, Date.now()),
    },
    failed.length > 0 ? 500 : 200,
  );
});
