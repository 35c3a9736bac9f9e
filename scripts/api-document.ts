/**
 * Writes the API's OpenAPI document, generated from the contract (shared/api-contract/document.ts), to
 * shared/api-contract/openapi.json (or the file named): the Worker serves that file, so zod stays out of its bundle,
 * and tests/shared/api-docs.test.ts holds the file to the contract. `npm run api:document` after changing a route.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { openApiDocument } from '../shared/api-contract/document.ts';

const out = process.argv[2] ?? 'shared/api-contract/openapi.json';
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(openApiDocument(), null, 2)}\n`);
// In the house format, so `npm test`'s format check passes on the file as written (outside .wrangler/, which it skips).
if (!out.startsWith('.wrangler/')) execFileSync('biome', ['format', '--write', out], { stdio: 'inherit' });
console.log(`wrote ${out}`);
