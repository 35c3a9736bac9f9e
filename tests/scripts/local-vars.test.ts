/**
 * The local run's variables (scripts/local-vars.ts): the user's local secrets read as `wrangler dev`
 * reads them, and one file that `wrangler dev --env-file` reads back unchanged, the generated variables
 * winning on a clash. Read back here with wrangler's own function, as the child wrangler reads it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unstable_getVarsForDev } from 'wrangler';
import { LOCAL_WRANGLER_ENV, readLocalSecrets, writeLocalVars } from '../../scripts/local-vars.ts';

const dirs: string[] = [];
const dir = () => {
  dirs.push(mkdtempSync(join(tmpdir(), 'local-vars-')));
  return dirs.at(-1)!;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A project folder: a wrangler.toml and the given files beside it. */
function project(files: Record<string, string>): string {
  const d = dir();
  writeFileSync(join(d, 'wrangler.toml'), 'name = "t"\n');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(d, name), text);
  return join(d, 'wrangler.toml');
}

/** What the child `wrangler dev --env-file <path>` binds, read with its settings. */
function asWranglerReads(path: string): Record<string, string> {
  const saved = { ...process.env };
  Object.assign(process.env, LOCAL_WRANGLER_ENV);
  try {
    return Object.fromEntries(
      Object.entries(unstable_getVarsForDev(undefined, [path], {}, undefined, true)).map(([k, b]) => [k, String(b.value)]),
    );
  } finally {
    for (const k of Object.keys(LOCAL_WRANGLER_ENV)) if (saved[k] === undefined) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

describe('readLocalSecrets', () => {
  it('reads .dev.vars literally (no $ expansion), and then no .env', () => {
    const config = project({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${…} that a .dev.vars file holds, on purpose
      '.dev.vars': 'MY_KEY="sk-$HOME-${PATH}"\nexport OTHER=\'a # b\'\n# a comment\nPLAIN=x # trailing comment\n',
      '.env': 'FROM_DOT_ENV=1\n',
    });
    expect(readLocalSecrets(config)).toEqual({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${…} that a .dev.vars file holds, on purpose
      values: { MY_KEY: 'sk-$HOME-${PATH}', OTHER: 'a # b', PLAIN: 'x' },
      files: ['.dev.vars'],
    });
  });

  it('without a .dev.vars, reads .env and then .env.local, the later winning, $NAME expanded', () => {
    const config = project({ '.env': 'A=1\nB=1\n', '.env.local': 'B=2\nC=x-$A\n' });
    // wrangler expands $NAME in .env files (not in .dev.vars).
    expect(readLocalSecrets(config)).toEqual({ values: { A: '1', B: '2', C: 'x-1' }, files: ['.env', '.env.local'] });
  });

  it('finds nothing where there is neither', () => {
    expect(readLocalSecrets(project({}))).toEqual({ values: {}, files: [] });
  });
});

describe('writeLocalVars', () => {
  it('writes values wrangler dev --env-file reads back unchanged, $ and every quote mark included', () => {
    const user = {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${…} that a .dev.vars file holds, on purpose
      DOLLARS: 'sk-$HOME-${PATH}-\\$x-$',
      SINGLE: "it's",
      EVERY_QUOTE: `a'b"c\`d`,
      HASH_AND_SPACES: '  a # b  ',
      JSON: '{"weur":"http://127.0.0.1:1"}',
      LINES: 'one\ntwo',
      EMPTY: '',
      TRAILING_BACKSLASH: 'x\\',
    };
    const path = join(dir(), 'observatory.env');
    expect(writeLocalVars(path, user, { ADMIN_TOKEN: 'generated' })).toEqual([]);
    expect(asWranglerReads(path)).toEqual({ ...user, ADMIN_TOKEN: 'generated' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('keeps the generated variable on a clash, and says which it replaced', () => {
    const path = join(dir(), 'observatory.env');
    const replaced = writeLocalVars(
      path,
      { MY_KEY: 'k', ADMIN_TOKEN: 'stale', REFERENCE_URL: 'http://127.0.0.1:9' },
      {
        REFERENCE_URL: 'http://127.0.0.1:8788',
        ADMIN_TOKEN: 'fresh',
      },
    );
    expect(replaced).toEqual(['REFERENCE_URL', 'ADMIN_TOKEN']);
    expect(asWranglerReads(path)).toEqual({ MY_KEY: 'k', ADMIN_TOKEN: 'fresh', REFERENCE_URL: 'http://127.0.0.1:8788' });
  });

  it('refuses, naming the variable and not its value, what no dotenv quoting keeps', () => {
    const path = join(dir(), 'observatory.env');
    expect(() => writeLocalVars(path, { CR_KEY: 'hunter2\rvalue' }, {})).toThrow(/^variables CR_KEY cannot be passed/);
    expect(() => writeLocalVars(path, { CR_KEY: 'hunter2\rvalue' }, {})).not.toThrow(/hunter2/);
    expect(() => writeLocalVars(path, { 'BAD NAME': 'x' }, {})).toThrow(/BAD NAME are not dotenv names/);
  });
});
