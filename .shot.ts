import { chromium } from 'playwright-core';
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { join, extname } from 'node:path';
const root = '/work/main/site/dist';
const types: Record<string, string> = { '.html': 'text/html', '.css': 'text/css', '.js': 'text/javascript', '.json': 'application/json', '.csv': 'text/csv' };
const server = createServer(async (req, res) => {
  let p = join(root, decodeURIComponent(new URL(req.url!, 'http://x').pathname));
  try { if ((await stat(p)).isDirectory()) p = join(p, 'index.html'); res.writeHead(200, { 'content-type': types[extname(p)] ?? 'application/octet-stream' }); res.end(await readFile(p)); }
  catch { res.writeHead(404); res.end('nf'); }
});
await new Promise<void>((r) => server.listen(4399, '127.0.0.1', r));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
page.on('console', (m) => console.log('console', m.type(), m.text()));
for (const [path, scheme] of process.argv.slice(2).map((a) => a.split('@'))) {
  await page.emulateMedia({ colorScheme: (scheme as 'light' | 'dark') ?? 'light' });
  await page.goto(`http://127.0.0.1:4399${path}`);
  const name = path.replaceAll('/', '_') || 'root';
  await page.screenshot({ path: `/tmp/shot${name}${scheme ?? ''}.png`, fullPage: true });
  console.log('shot', path);
}
await browser.close(); server.close();
