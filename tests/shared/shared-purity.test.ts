/**
 * shared/ is the pure core: it runs unchanged in workerd, Node and the site build, so it imports nothing
 * but itself: no runtime module (cloudflare:, node:), nothing from workers/, site/ or scripts/, and no
 * package but the few made to run on WebCrypto everywhere (RUNTIME_NEUTRAL).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Packages the core may use: each runs in workerd, Node and browsers alike (aws4fetch and jose on WebCrypto alone;
 * hyparquet-writer, the archive's Parquet writer, pure JavaScript without Node built-ins on the entry it is imported by;
 * @hono/zod-openapi and zod, the API contract's schemas, pure JavaScript, which the Worker imports as types only: it
 * serves the document generated from them, shared/api-contract/openapi.json).
 */
const RUNTIME_NEUTRAL = ['aws4fetch', 'jose', 'hyparquet-writer', '@hono/zod-openapi', 'zod'];
const neutral = (spec: string) => RUNTIME_NEUTRAL.some((p) => spec === p || spec.startsWith(`${p}/`));

const SHARED = resolve(dirname(fileURLToPath(import.meta.url)), '../../shared');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Every module specifier of a file: static imports and re-exports, and dynamic import(). */
function specifiers(text: string): string[] {
  // A specifier is a path or a package name: no spaces or commas (which tells it from a string in code after `from`).
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"\s,]+)['"]/gm)].map((m) => m[1]);
}

describe('shared/', () => {
  const files = sources(SHARED);

  it('has its files in rooms: no more than the common vocabulary at its root', () => {
    const loose = files.filter((f) => dirname(f) === SHARED).map((f) => relative(SHARED, f));
    expect(loose.length).toBeLessThanOrEqual(10);
    expect(files.length).toBeGreaterThan(50);
  });

  it('imports only its own modules', () => {
    const outside: string[] = [];
    for (const file of files)
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        if (neutral(spec)) continue;
        const target = spec.startsWith('.') ? resolve(dirname(file), spec) : null;
        if (target === null || !target.startsWith(`${SHARED}/`)) outside.push(`${relative(SHARED, file)} imports ${spec}`);
      }
    expect(outside).toEqual([]);
  });

  it('finds a specifier of every form it checks (the check itself can fail)', () => {
    expect(specifiers("import { a } from 'node:fs';\nexport { b } from '../workers/x.ts';\nconst c = await import('hono');")).toEqual([
      'node:fs',
      '../workers/x.ts',
      'hono',
    ]);
  });
});
