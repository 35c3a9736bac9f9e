import type { APIRoute } from 'astro';
import { siteData } from '../../data/load.ts';
import { DOWNLOADS } from '../../data/downloads.ts';

export function getStaticPaths() {
  return DOWNLOADS.map((d) => ({ params: { file: d.file } }));
}

export const GET: APIRoute = async ({ params }) => {
  const download = DOWNLOADS.find((d) => d.file === params.file)!;
  return new Response(download.body(await siteData()), { headers: { 'content-type': download.type } });
};
