/**
 * The OpenAPI 3.1 document of the API, generated from the route table (routes.ts): what GET
 * /api/v1/openapi.json serves, `npm run api:lint` lints, and docs/API.md is held to.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import { API } from './routes.ts';

export function openApiDocument() {
  const app = new OpenAPIHono();
  const registry = app.openAPIRegistry;
  registry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'ADMIN_TOKEN for the admin routes; READ_TOKEN (or ADMIN_TOKEN) lifts the anonymous bounds of the reads',
  });
  for (const [operationId, route] of Object.entries(API)) registry.registerPath({ ...route, operationId });
  return app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'LLM latency observatory API',
      version: '1',
      description:
        'Time to first token, split into network and server time, per region. Every GET answers JSON (or CSV with format=csv where listed); every response says what it cost in D1 (x-d1-rows-read). docs/API.md describes each route.',
    },
    servers: [{ url: '/', description: 'the observatory Worker' }],
    tags: [],
  });
}
