/** An Atom feed (RFC 4287) of incidents: one entry per incident, updated as it changes. */
import type { APIRoute } from 'astro';
import { siteData as loadSiteData } from '../data/load.ts';
import { atomFeed } from '../data/feed.ts';

export const GET: APIRoute = async ({ site }) => {
  const data = await loadSiteData();
  return new Response(atomFeed(data, (site ?? new URL('http://127.0.0.1:4321')).href), {
    headers: { 'content-type': 'application/atom+xml; charset=utf-8' },
  });
};
