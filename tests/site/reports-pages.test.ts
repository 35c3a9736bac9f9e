/**
 * The weekly reports on the site: the site built (astro, as `npm run site:build`) from data holding one week with
 * a correction renders the reports index, the week's page with each version at its anchor and the links between
 * them, each version's data file with the SHA-256 the index names, and one feed entry per version.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../observatory.config.ts';
import type { ComparisonDoc } from '../../shared/api-types.ts';
import { REPORT_FORMAT, type WeeklyReport } from '../../shared/reports/report.ts';
import { buildSite } from '../../scripts/site-build.ts';
import { emptySiteData } from '../../site/src/data/empty.ts';
import { atomFeed } from '../../site/src/data/feed.ts';
import type { SiteData, SiteReportWeek } from '../../site/src/data/types.ts';

const [first, second] = config.targets.map((t) => t.id);
const region = config.regions[0].code;
const variant = config.promptVariants[0].id;
const REASON = 'one region measured through a broken proxy on 2026-11-25';

function comparison(verdict: ComparisonDoc['verdict']): ComparisonDoc {
  return {
    region,
    prompt_variant: variant,
    a: first,
    b: second,
    pairs: 2016,
    hours: 168,
    block_hours: 4,
    hour_autocorrelation: 0.3,
    blocks: 42,
    difference_pct: -18.2,
    ci_low_pct: -21.5,
    ci_high_pct: -14.9,
    confidence: 0.95,
    win_rate: 0.8,
    b_win_rate: 0.2,
    p_value: 0.0001,
    verdict,
    more_ticks: null,
  };
}

function report(version: number, corrects: WeeklyReport['corrects']): WeeklyReport {
  return {
    format: REPORT_FORMAT,
    week: '2026-W48',
    version,
    published_at: version === 1 ? '2026-11-30T01:00:00.000Z' : '2026-12-01T09:00:00.000Z',
    window: { from: '2026-11-23T00:00:00.000Z', to: '2026-11-30T00:00:00.000Z' },
    previous_week: '2026-W47',
    method_version: 2,
    margin_pct: 5,
    method: 'paired by tick',
    corrects,
    families: [
      {
        region,
        prompt_variant: variant,
        targets: [first, second].sort(),
        figures: [
          {
            figure: 'ttfa_ms',
            comparisons: [comparison('a_faster')],
            leaders: [first],
            previous_leaders: [],
            changes: [
              {
                a: first,
                b: second,
                verdict: 'a_faster',
                previous_verdict: 'no_difference',
                difference_pct: -18.2,
                previous_difference_pct: -1,
              },
            ],
          },
        ],
      },
    ],
    incidents: [],
    vendor_incidents: [],
    data: {
      files: [
        {
          key: `samples/day=2026-11-23/region=${region}.parquet`,
          table: 'samples',
          day: '2026-11-23',
          region,
          rows: 10,
          bytes: 100,
          sha256: 'ab'.repeat(32),
        },
      ],
    },
  };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function week(): SiteReportWeek {
  const v1 = report(1, null);
  const v2 = report(2, { version: 1, reason: REASON });
  return {
    week: '2026-W48',
    window: v1.window,
    versions: [
      {
        version: 1,
        sha256: sha256(JSON.stringify(v1)),
        bytes: 0,
        published_at: v1.published_at,
        corrects: null,
        superseded_by: 2,
        url: '/api/v1/reports/2026-W48/v1',
        report: v1,
      },
      {
        version: 2,
        sha256: sha256(JSON.stringify(v2)),
        bytes: 0,
        published_at: v2.published_at,
        corrects: v2.corrects,
        superseded_by: null,
        url: '/api/v1/reports/2026-W48/v2',
        report: v2,
      },
    ],
  };
}

const data: SiteData = { ...emptySiteData(config, Date.parse('2026-12-02T12:00:00Z')), reports: [week()] };
let dist: string;

beforeAll(async () => {
  const work = mkdtempSync(join(tmpdir(), 'reports-site-'));
  const file = join(work, 'data.json');
  writeFileSync(file, JSON.stringify(data));
  dist = join(work, 'dist');
  await buildSite(dist, { dataFile: file });
}, 300_000);

const page = (path: string) => readFileSync(join(dist, path), 'utf8');

describe('the weekly reports on the site', () => {
  it('lists each week on the reports index, and links it from the navigation', () => {
    const html = page('reports/index.html');
    expect(html).toContain('<a href="/reports/2026-W48/">2026-W48</a>');
    expect(html).toContain('href="/reports/2026-W48/#v1"');
    expect(html).toContain('href="/reports/2026-W48/#v2"');
    expect(page('index.html')).toContain('href="/reports/"');
  });

  it('renders the week: each version at its anchor, the correction and the corrected one linked both ways', () => {
    const html = page('reports/2026-W48/index.html');
    expect(html).toMatch(/<article id="v2"[^>]*>\s*<h2>Version 2 \(current\)<\/h2>/);
    expect(html).toContain('id="v1"');
    // Each region × prompt variant of a version at an anchor of its own.
    expect(html).toContain(`id="v2-${region}-${variant}"`);
    expect(html).toContain(`id="v1-${region}-${variant}"`);
    expect(html).toContain(`Corrects <a href="#v1">version 1</a>: ${REASON}`);
    expect(html).toContain('Superseded by <a href="#v2">version 2</a>');
    expect(html).toContain('faster than');
    expect(html).toContain('by 18 % [−22 %, −15 %]');
    const label = config.targets.find((t) => t.id === first)!.label;
    expect(html).toContain(`no difference → ${label} faster`);
  });

  it('serves each version’s data file with the SHA-256 the index names', () => {
    for (const v of data.reports[0].versions) {
      const text = page(`reports/2026-W48/v${v.version}.json`);
      expect(sha256(text)).toBe(v.sha256);
      expect(page('reports/2026-W48/index.html')).toContain(v.sha256);
    }
  });

  it('gives each version a feed entry', () => {
    const feed = atomFeed(data, 'https://observatory.example/');
    expect(feed).toContain('<id>urn:llm-observatory:report:2026-W48:v1</id>');
    expect(feed).toContain('<title>Weekly report 2026-W48 v2: corrects v1</title>');
    expect(feed).toContain('href="https://observatory.example/reports/2026-W48/#v2"');
    expect(page('feed.xml')).toContain('urn:llm-observatory:report:2026-W48:v2');
  });
});
