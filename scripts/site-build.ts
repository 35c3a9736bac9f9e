/** Builds the report site into a folder, from an API or an export file, as `npm run site:build` does. */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type { PendingPart } from '../site/src/data/types.ts';

/**
 * `pending`: what the demo is still measuring (site/src/data/pending.ts), shown on the pages instead of empty charts.
 * `archiveUrl`: where readers fetch the Parquet archive (site/src/data/archive.ts; default: the API's /archive).
 */
export function buildSite(
  outDir: string,
  source: { apiUrl?: string; readToken?: string; dataFile?: string; pending?: PendingPart[]; archiveUrl?: string },
): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, SITE_OUT_DIR: outDir, ASTRO_TELEMETRY_DISABLED: '1' };
  if (source.apiUrl) env.SITE_API_URL = source.apiUrl;
  if (source.readToken) env.SITE_READ_TOKEN = source.readToken;
  if (source.archiveUrl) env.SITE_ARCHIVE_URL = source.archiveUrl;
  if (source.dataFile) env.SITE_DATA_FILE = resolve(source.dataFile); // the build runs in a directory of its own
  if (source.pending?.length) env.SITE_PENDING = JSON.stringify(source.pending);
  else delete env.SITE_PENDING;
  const astro = new URL('../node_modules/astro/bin/astro.mjs', import.meta.url).pathname;
  const root = new URL('../site', import.meta.url).pathname;
  // Astro stages a build whose output lies outside its working directory in <cwd>/.astro: each build gets a
  // working directory of its own, so that builds at once (two demos, two test files) never share it. Inside the
  // project (the staged code imports from node_modules), under the ignored .wrangler folder.
  const staging = new URL('../.wrangler/site-builds/', import.meta.url).pathname;
  mkdirSync(staging, { recursive: true });
  const cwd = mkdtempSync(staging);
  return new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [astro, 'build', '--root', root], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.on('data', (d) => (log += d));
    child.stderr.on('data', (d) => (log += d));
    child.on('close', (code) => (code === 0 ? resolve(log) : reject(new Error(`site build failed (exit ${code}):\n${log.slice(-3000)}`))));
  }).finally(() => rmSync(cwd, { recursive: true, force: true }));
}
