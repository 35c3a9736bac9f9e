/**
 * The report site in a real browser (Debian's Chromium through playwright-core): built from a local
 * D1 seeded by real probes, every page opens without console errors or broken links, the numbers on
 * the pages equal the API's, and screenshots are saved under test-results/site/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/processes.ts';
import { siteWeight } from '../../scripts/site-weight.ts';
import { startLocalObservatory, waitForRollups, type LocalObservatory } from '../../scripts/local-observatory.ts';
import { serveStatic, type StaticServer } from '../../scripts/static-server.ts';
import { buildSite } from '../../scripts/site-build.ts';
import { ms, num, rate } from '../../site/src/format.ts';
import { config } from '../../observatory.config.ts';
import type { SiteData } from '../../site/src/data/types.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = 'test-results/site';
const BACKFILL_TICKS = 2;
const work = mkdtempSync(join(tmpdir(), 'site-test-'));
let local: LocalObservatory;
let site: StaticServer;
let browser: Browser;
let data: SiteData;

async function waitForSamples(api: string, expected: number): Promise<void> {
  for (let i = 0; i < 240; i++) {
    const { samples } = (await (await fetch(`${api}/api/v1/samples?limit=1000&window=7d`)).json()) as { samples: unknown[] };
    if (samples.length >= expected) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`fewer than ${expected} samples after 120 s`);
}

beforeAll(async () => {
  local = await startLocalObservatory({ apiPort: await freePort(), referencePort: await freePort(), persistTo: join(work, 'state'), log: () => {}, progress: () => {} });
  const admin = { authorization: `Bearer ${local.adminToken}`, 'content-type': 'application/json' };
  const now = Date.now();
  await fetch(`${local.apiUrl}/api/v1/ticks`, { method: 'POST', headers: admin, body: '{}' });
  for (let k = 1; k <= BACKFILL_TICKS; k++) {
    await fetch(`${local.apiUrl}/api/v1/ticks`, { method: 'POST', headers: admin, body: JSON.stringify({ tick_id: now - k * 3_600_000, backfill: true }) });
  }
  await waitForSamples(local.apiUrl, (BACKFILL_TICKS + 1) * config.regions.length * config.targets.length);
  // The pages' windows are merged from rollups: wait for the backfilled hours' rows.
  await waitForRollups(local.apiUrl, Array.from({ length: BACKFILL_TICKS }, (_, k) => now - (k + 1) * 3_600_000), config.regions.length * config.targets.length * config.promptVariants.length);
  await buildSite(join(work, 'dist'), { apiUrl: local.apiUrl });
  site = await serveStatic(join(work, 'dist'));
  data = JSON.parse(readFileSync(join(work, 'dist/data/site-data.json'), 'utf8'));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
  mkdirSync(SHOTS, { recursive: true });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await local?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** Opens a page, failing on any console error or uncaught exception. */
async function open(path: string, scheme: 'light' | 'dark' = 'light', width = 1280): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 900 }, colorScheme: scheme });
  const problems: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  const response = await page.goto(site.url + path, { waitUntil: 'load' });
  expect(response?.status(), path).toBe(200);
  expect(problems, path).toEqual([]);
  return page;
}

const PAGES = () => [
  '/', '/status/', '/compare/', '/methodology/', '/data/', ...['24h', '30d', '90d'].flatMap((w) => [`/overview/${w}/`, `/status/${w}/`]),
  ...data.targets.map((t) => `/targets/${t.id}/`), ...data.regions.map((r) => `/regions/${r.code}/`),
];

describe('the built site in Chromium', () => {
  it('opens every page with no console error, and saves a screenshot of each (light and dark)', async () => {
    for (const path of PAGES()) {
      for (const scheme of ['light', 'dark'] as const) {
        const page = await open(path, scheme);
        expect(await page.locator('h1').count(), path).toBe(1);
        await page.screenshot({ path: join(SHOTS, `${path.replaceAll('/', '_') || 'index'}${scheme}.png`), fullPage: true });
        await page.close();
      }
    }
  });

  it('never scrolls sideways on a 390 px phone (wide tables scroll inside their own box)', async () => {
    for (const path of PAGES()) {
      const page = await open(path, 'light', 390);
      expect(await page.$eval('html', (html) => (html as unknown as { scrollWidth: number }).scrollWidth), path).toBeLessThanOrEqual(390);
      await page.close();
    }
  });

  it('has no broken links', async () => {
    const seen = new Set<string>();
    for (const path of PAGES()) {
      const page = await open(path);
      const hrefs = await page.$$eval('a[href]', (as) => as.map((a) => (a as unknown as { href: string }).href));
      await page.close();
      for (const href of hrefs) if (href.startsWith(site.url) || href.startsWith(local.apiUrl)) seen.add(href.split('#')[0]);
    }
    expect(seen.size).toBeGreaterThan(20);
    for (const href of seen) expect((await fetch(href)).status, href).toBe(200);
  });

  it('shows the same numbers as the API', async () => {
    const answers = new Map<string, Array<Record<string, number | string | null>>>();
    let checked = 0;
    for (const path of ['/', ...data.targets.map((t) => `/targets/${t.id}/`), ...data.regions.map((r) => `/regions/${r.code}/`)]) {
      const page = await open(path);
      const cells = await page.$$eval('[data-api]', (els) => els.map((e) => ({ key: e.getAttribute('data-api')!, value: e.getAttribute('data-value')!, text: e.textContent!.trim() })));
      await page.close();
      for (const cell of cells) {
        const [request, region, target, field, source] = cell.key.split('|');
        if (!answers.has(request)) answers.set(request, ((await (await fetch(data.api_requests[request])).json()) as { groups: Array<Record<string, number | string | null>> }).groups);
        // The split's parts come per split_source: the key names the one shown.
        const group = answers.get(request)!.find((g) => g.region === region && g.target === target && (source === undefined || (g.split_source ?? '') === source))!;
        const expected = group[field] as number | null;
        // Both sides merge the same rollup rows; the API runs in workerd and the build in Node, whose
        // Math may round a bucket's point one unit in the last place apart: equal to 1e-12.
        const value = cell.value === '' ? null : Number(cell.value);
        if (expected === null || value === null) expect(value, cell.key).toBe(expected);
        else expect(Math.abs(value - expected), cell.key).toBeLessThanOrEqual(1e-12 * Math.abs(expected));
        const shown = field === 'error_rate' ? rate(expected) : field === 'n' ? String(expected) : request.includes('decode_tps') ? num(expected) : ms(expected);
        expect(cell.text.startsWith(shown), `${cell.key}: "${cell.text}" should start with "${shown}"`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(config.regions.length * config.targets.length * 6);
  });

  it('stays light: no external script, under 1 KiB of inline JavaScript, every page under 250 KiB', () => {
    const pages = siteWeight(join(work, 'dist'));
    expect(pages.map((p) => p.page).filter((p) => p !== '/404.html').sort()).toEqual([...PAGES()].sort());
    for (const p of pages) {
      expect(p.externalScripts, p.page).toBe(0);
      expect(p.bytes, p.page).toBeLessThan(250 * 1024);
    }
    expect(pages.reduce((n, p) => n + p.scriptBytes, 0)).toBeLessThan(1024);
  });

  it('labels a local run and the reference endpoint', async () => {
    const page = await open('/');
    expect(await page.locator('.banner').textContent()).toContain('Local run');
    expect(await page.locator('#overview-table .tag').count()).toBe(config.regions.length * config.targets.length);
    await page.close();
  });

  it('re-ranks the comparison for a custom answer length in the page', async () => {
    const page = await open('/compare/');
    await page.fill('#custom-tokens', '2000');
    const long = await page.locator('#custom-result').textContent();
    await page.fill('#custom-tokens', '1');
    const short = await page.locator('#custom-result').textContent();
    expect(long).toContain('batching server');
    expect(short).toContain('fast small model');
    await page.close();
  });

  it('renders an honest empty state when there is no data yet', async () => {
    const none = Object.fromEntries(Object.keys(data.percentiles).map((k) => [k, []])) as unknown as SiteData['percentiles'];
    const empty: SiteData = {
      ...data, samples: [], percentiles: none, regions: data.regions.map((r) => ({ ...r, samples: 0, colos: [], last_sample_at: null })),
      windows: data.windows.map((w) => ({ ...w, percentiles: none, ttft_by_target: [], history: [], target_history: [] })),
    };
    const file = join(work, 'empty.json');
    writeFileSync(file, JSON.stringify(empty));
    const emptyDist = join(work, 'dist-empty');
    await buildSite(emptyDist, { dataFile: file });
    const emptySite = await serveStatic(emptyDist);
    const saved = site;
    site = emptySite;
    try {
      for (const path of ['/', '/overview/90d/', '/status/', '/status/90d/', '/compare/', `/targets/${data.targets[0].id}/`]) {
        const page = await open(path);
        expect(await page.locator('.empty').textContent(), path).toContain('No ');
        await page.close();
      }
    } finally {
      site = saved;
      await emptySite.close();
    }
  });
});
