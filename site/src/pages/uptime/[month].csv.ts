/** /uptime/<month>.csv: the month's uptime report, a row per target × region and per target overall. */
import type { APIRoute } from 'astro';
import { siteData } from '../../data/load.ts';
import { uptimeCsv } from '../../data/uptime.ts';

export async function getStaticPaths() {
  return (await siteData()).uptime.map((m) => ({ params: { month: m.month } }));
}

export const GET: APIRoute = async ({ params }) => {
  const report = (await siteData()).uptime.find((m) => m.month === params.month)!;
  return new Response(uptimeCsv(report), { headers: { 'content-type': 'text/csv; charset=utf-8' } });
};
