/** /uptime/<month>.json: the month's uptime report with its definitions. */
import type { APIRoute } from 'astro';
import { siteData } from '../../data/load.ts';
import { UPTIME_DEFINITIONS } from '../../data/uptime.ts';

export async function getStaticPaths() {
  return (await siteData()).uptime.map((m) => ({ params: { month: m.month } }));
}

export const GET: APIRoute = async ({ params }) => {
  const report = (await siteData()).uptime.find((m) => m.month === params.month)!;
  return new Response(
    JSON.stringify(
      { definitions: UPTIME_DEFINITIONS, ...report, from: new Date(report.from).toISOString(), to: new Date(report.to).toISOString() },
      null,
      1,
    ),
    {
      headers: { 'content-type': 'application/json' },
    },
  );
};
