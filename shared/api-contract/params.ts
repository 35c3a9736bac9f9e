/**
 * The query parameters each route takes, read from the OpenAPI document the contract generates (openapi.json,
 * written by `npm run api:document`): what the routes refuse any other than. Plain JSON, so the Worker's bundle
 * carries no schema library.
 */
import document from './openapi.json' with { type: 'json' };
import type { ApiRouteName } from './routes.ts';

type Operation = { operationId?: string; parameters?: Array<{ name: string; in: string }> };

const QUERY_NAMES: ReadonlyMap<string, string[]> = new Map(
  Object.values(document.paths as Record<string, Record<string, Operation>>).flatMap((item) =>
    Object.values(item).map((op): [string, string[]] => [
      op.operationId ?? '',
      (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
    ]),
  ),
);

/** The query parameters a route of the table takes (none for a route without a query). */
export function paramsOf(route: ApiRouteName): string[] {
  const names = QUERY_NAMES.get(route);
  if (!names) throw new Error(`no route ${route} in shared/api-contract/openapi.json: run npm run api:document`);
  return names;
}

/** The document itself, as the Worker serves it. */
export const OPENAPI_DOCUMENT: object = document;
