/**
 * GET /api/v1/openapi.json: the API's OpenAPI 3.1 document (generated from shared/api-contract/ into its
 * openapi.json by `npm run api:document`, held to the contract by a test), encoded once per isolate, anonymous
 * and cacheable (an ETag of its bytes), served before the read gates: it reads no D1 row and calls no Durable
 * Object.
 */
import { Hono } from 'hono';
import { OPENAPI_DOCUMENT } from '../../../shared/api-contract/params.ts';
import { sha256Hex } from '../../../shared/archive/checksum.ts';

/** How long a client or cache may keep the document: it changes only with a deployment. */
const DOCUMENT_MAX_AGE_SECONDS = 300;

let served: { body: string; etag: string } | null = null;

async function documentOnce(): Promise<{ body: string; etag: string }> {
  if (served) return served;
  const body = JSON.stringify(OPENAPI_DOCUMENT);
  served = { body, etag: `"${(await sha256Hex(new TextEncoder().encode(body))).slice(0, 32)}"` };
  return served;
}

export const openApiRoutes = new Hono().get('/api/v1/openapi.json', async (c) => {
  const { body, etag } = await documentOnce();
  const headers = { 'cache-control': `public, max-age=${DOCUMENT_MAX_AGE_SECONDS}`, etag };
  if (c.req.header('if-none-match') === etag) return c.body(null, 304, headers);
  return c.body(body, 200, { ...headers, 'content-type': 'application/json; charset=utf-8' });
});
