/** An Atom feed (RFC 4287) of incidents: one entry per incident, updated as it changes. */
import type { APIRoute } from 'astro';
import { siteData as loadSiteData } from '../data/load.ts';
import { atomFeed } from '../data/feed.ts';
import { localUrl } from '../../../shared/net/local-ports.ts';

export const GET: APIRoute = async ({ site }) => {
  const data = await loadSiteData();
  return new Response(atomFeed(data, (site ?? new URL(localUrl('site'))).href), {
    headers: { 'content-type': 'application/atom+xml; charset=utf-8' },
  });
};
