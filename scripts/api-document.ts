/**
 * Writes the API's OpenAPI document (shared/api-contract/document.ts) to a file, for `npm run api:lint`:
 * `node scripts/api-document.ts <file>` (default .wrangler/openapi.json).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { openApiDocument } from '../shared/api-contract/document.ts';

const out = process.argv[2] ?? '.wrangler/openapi.json';
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(openApiDocument(), null, 2)}\n`);
console.log(`wrote ${out}`);
