/** /badges/<target>.svg: one status badge per target (its status now as a whole, TTFT p50 over the default view). */
import type { APIRoute, GetStaticPaths } from 'astro';
import { siteData } from '../../data/load.ts';
import { badgeSvg } from '../../data/badge.ts';
import { DEFAULT_WINDOW } from '../../data/types.ts';

export const getStaticPaths: GetStaticPaths = async () => (await siteData()).targets.map((t) => ({ params: { target: t.id } }));

export const GET: APIRoute = async ({ params }) => {
  const data = await siteData();
  const target = data.targets.find((t) => t.id === params.target)!;
  const status = data.status?.targets.find((t) => t.target === target.id && t.prompt_variant === data.variant.id)?.status ?? 'no-data';
  const p50 = data.windows.find((w) => w.id === DEFAULT_WINDOW)?.ttft_by_target.find((g) => g.target === target.id)?.p50 ?? null;
  return new Response(badgeSvg(target.label, status, p50), { headers: { 'content-type': 'image/svg+xml' } });
};
