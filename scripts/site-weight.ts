/** `npm run site:weight`: the built site's page weight and JavaScript, page by page (what docs/COSTS.md states). */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface PageWeight {
  page: string;
  bytes: number;
  scriptBytes: number;
  externalScripts: number;
}

export function siteWeight(dist: string): PageWeight[] {
  const pages: PageWeight[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.html')) {
        const html = readFileSync(path, 'utf8');
        const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].filter((m) => !/type="application\/json"/.test(m[1]));
        pages.push({
          page: `/${relative(dist, path).replace(/index\.html$/, '')}`,
          bytes: Buffer.byteLength(html),
          scriptBytes: scripts.reduce((n, m) => n + Buffer.byteLength(m[2]), 0),
          externalScripts: scripts.filter((m) => /\bsrc=/.test(m[1])).length,
        });
      }
    }
  };
  walk(dist);
  return pages.sort((a, b) => a.page.localeCompare(b.page));
}

/** What the build cost in D1 reads, as the API counted them (null for a site built from an export without them). */
export function buildReads(dist: string): { total: number; perRequest: Record<string, number> } | null {
  try {
    const data = JSON.parse(readFileSync(join(dist, 'data/site-data.json'), 'utf8')) as {
      d1_rows_read?: Record<string, number>;
      d1_rows_read_total?: number;
    };
    return data.d1_rows_read && data.d1_rows_read_total !== undefined
      ? { total: data.d1_rows_read_total, perRequest: data.d1_rows_read }
      : null;
  } catch {
    return null;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dist = process.argv[2] ?? 'site/dist';
  const pages = siteWeight(dist);
  for (const p of pages)
    console.log(
      `${p.page.padEnd(40)} ${(p.bytes / 1024).toFixed(1).padStart(7)} KiB  JS ${p.scriptBytes} B${p.externalScripts ? ` + ${p.externalScripts} external` : ''}`,
    );
  const total = pages.reduce((n, p) => n + p.bytes, 0);
  console.log(
    `${pages.length} pages, ${(total / 1024).toFixed(1)} KiB of HTML in all (styles and SVG charts inline), ${pages.reduce((n, p) => n + p.scriptBytes, 0)} B of JavaScript in all`,
  );
  const reads = buildReads(dist);
  if (reads) {
    for (const [name, rows] of Object.entries(reads.perRequest))
      console.log(`  D1 rows read by ${name.padEnd(20)} ${String(rows).padStart(7)}`);
    console.log(`the build read ${reads.total} D1 rows (each API response's x-d1-rows-read, from data/site-data.json)`);
  }
}
