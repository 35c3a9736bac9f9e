/**
 * `npm run site:export -- [--api <the local API, shared/net/local-ports.ts>] [--out site-data.json]`: everything the site shows,
 * fetched from the read API into one JSON file; `SITE_DATA_FILE=site-data.json npm run site:build` builds from it anywhere.
 */
import { parseArgs } from 'node:util';
import { writeFile } from 'node:fs/promises';
import { collectSiteData } from '../site/src/data/collect.ts';
import { DEFAULT_API_URL } from '../site/src/data/load.ts';

let values;
try {
  ({ values } = parseArgs({ options: { api: { type: 'string' }, out: { type: 'string' } } }));
} catch (e) {
  console.error(`site:export: ${(e as Error).message}\nusage: npm run site:export -- [--api ${DEFAULT_API_URL}] [--out site-data.json]`);
  process.exit(2);
}
const out = values.out ?? 'site-data.json';
try {
  const data = await collectSiteData(values.api ?? process.env.SITE_API_URL ?? DEFAULT_API_URL);
  await writeFile(out, JSON.stringify(data));
  console.log(
    `wrote ${out}: ${data.samples.length} samples, ${data.regions.length} regions, ${data.targets.length} targets, window ${data.window.from} – ${data.window.to}`,
  );
} catch (e) {
  console.error(`site:export: ${(e as Error).message}`);
  process.exit(1);
}
