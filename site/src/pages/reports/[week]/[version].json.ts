/**
 * /reports/<week>/v<n>.json: a version's data file, its bytes as the API published them (JSON.stringify of what it
 * parsed gives them back: the same keys in the same order), so its SHA-256 is the one the index and the page name.
 */
import type { APIRoute } from 'astro';
import { siteData } from '../../../data/load.ts';

export async function getStaticPaths() {
  return (await siteData()).reports.flatMap((w) => w.versions.map((v) => ({ params: { week: w.week, version: `v${v.version}` } })));
}

export const GET: APIRoute = async ({ params }) => {
  const week = (await siteData()).reports.find((w) => w.week === params.week)!;
  const v = week.versions.find((x) => `v${x.version}` === params.version)!;
  return new Response(JSON.stringify(v.report), { headers: { 'content-type': 'application/json' } });
};
