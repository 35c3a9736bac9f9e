/**
 * A throwaway copy of this checkout, for a test that runs a project script as a user would after
 * editing the project (its own observatory.config.ts, a .dev.vars): every file but the installed
 * packages (linked instead), build output, local state and any local secrets of the developer.
 */
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';

/** Not copied: installed packages, git, build output, local state, and the developer's own local secrets. */
const SKIPPED = /^(node_modules|\.git|\.wrangler|dist|\.astro|\.tmp|test-results|\.dev\.vars(\..*)?|\.env(\..*)?)$/;

const ROOT = resolve(new URL('../..', import.meta.url).pathname);

export interface ProjectCopy {
  dir: string;
  /** Writes a file of the copy (path relative to its root). */
  write(path: string, text: string): void;
  remove(): void;
}

export function copyProject(prefix: string): ProjectCopy {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cpSync(ROOT, dir, { recursive: true, filter: (src) => src === ROOT || !SKIPPED.test(basename(src)) });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return {
    dir,
    write: (path, text) => writeFileSync(join(dir, path), text),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
