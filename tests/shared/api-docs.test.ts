/**
 * The OpenAPI document the Worker serves is the one the contract generates, and docs/API.md's route table lists
 * exactly its routes, no more, no fewer.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../shared/api-contract/document.ts';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** `METHOD /path` of each row of the docs' route tables: `<x>` as `{x}`, `GET`/`HEAD` as GET (HEAD is a GET's). */
function documentedRoutes(markdown: string): string[] {
  const routes: string[] = [];
  for (const line of markdown.split('\n')) {
    const cell = /^\| (`[^|]+`) \|/.exec(line)?.[1];
    if (!cell) continue;
    const m = /^`(GET|POST|PUT|PATCH|DELETE)`?(?:\/`HEAD)? (\/[^`\s]+)`$/.exec(cell);
    if (!m) throw new Error(`docs/API.md: a route row this test cannot read: ${cell}`);
    routes.push(`${m[1]} ${m[2].replace(/<(\w+)>/g, '{$1}')}`);
  }
  return routes;
}

describe('shared/api-contract/openapi.json', () => {
  it('is the document the contract generates (npm run api:document writes it)', () => {
    const written = JSON.parse(readFileSync(new URL('../../shared/api-contract/openapi.json', import.meta.url), 'utf8'));
    expect(written).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
  });
});

describe('docs/API.md', () => {
  it('lists exactly the routes of the OpenAPI document', () => {
    const doc = openApiDocument();
    const served = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
      METHODS.filter((m) => item && m in item).map((m) => `${m.toUpperCase()} ${path}`),
    );
    const listed = documentedRoutes(readFileSync(new URL('../../docs/API.md', import.meta.url), 'utf8'));
    expect(new Set(listed).size, 'a route listed twice').toBe(listed.length);
    expect([...listed].sort()).toEqual([...served].sort());
  });
});
