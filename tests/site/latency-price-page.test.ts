/**
 * The compare page's latency against price, in the built site: from the empty state of observatory.config.ts (its
 * demo prices, one target unpriced) with hand-set medians in one region and two paired verdicts, the budget table
 * names the fastest within each budget and says when its verdict does not separate it from the runner-up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseHTML } from 'linkedom';
import { config } from '../../observatory.config.ts';
import { buildSite } from '../../scripts/site-build.ts';
import { emptySiteData } from '../../site/src/data/empty.ts';
import type { ComparisonDoc, PercentileGroup } from '../../shared/api-types.ts';
import { PAIRED_FIGURES } from '../../shared/rollup/paired-hours.ts';

const work = mkdtempSync(join(tmpdir(), 'price-page-'));
const REGION = 'weur';
const VARIANT = config.promptVariants[0].id; // chat: 200 tokens in; its scenario, Chat reply, judged at 50 out
const TPOT = 10; // × 49 further tokens = 490 ms
/** Expected time (ms) for the chat workload per target; cost per request from the demo prices. */
const TOTAL: Record<string, number> = {
  'reference-fast-small': 1_000, // $0.00006
  'reference-bedrock': 980, // $0.00008
  'reference-batching': 1_200, // $0.000185: dominated by bedrock
  'reference-reasoning': 800, // $0.00044
  'reference-hidden-reasoning': 800, // $0.00075: as fast as reasoning, dearer: dominated
  'reference-slow-large': 600, // $0.00135
  'reference-azure': 550, // unpriced: fastest, left out
};
const group = (target: string, p50: number): PercentileGroup =>
  ({
    region: REGION,
    target,
    prompt_variant: VARIANT,
    ...Object.fromEntries(
      ['p50', 'p90', 'p95', 'p99'].flatMap((p) => [
        [p, p50],
        [`${p}_ci_low`, p50 * 0.95],
        [`${p}_ci_high`, p50 * 1.05],
      ]),
    ),
    n: 200,
    samples: 200,
    errors: 0,
    error_rate: 0,
  }) as unknown as PercentileGroup;
const comparison = (a: string, b: string, verdict: ComparisonDoc['verdict'], difference: number): ComparisonDoc => ({
  region: REGION,
  prompt_variant: VARIANT,
  a,
  b,
  pairs: 500,
  hours: 100,
  block_hours: 4,
  hour_autocorrelation: 0.2,
  blocks: 25,
  difference_pct: difference,
  ci_low_pct: difference - 2,
  ci_high_pct: difference + 2,
  confidence: 0.99,
  win_rate: 0.5,
  b_win_rate: 0.5,
  p_value: 0.01,
  verdict,
  more_ticks: null,
});
let doc: ReturnType<typeof parseHTML>['document'];

beforeAll(async () => {
  const data = emptySiteData(config, Date.UTC(2026, 11, 2));
  const ttfa = Object.entries(TOTAL).map(([t, total]) => group(t, total - 49 * TPOT));
  const tpot = Object.keys(TOTAL).map((t) => group(t, TPOT));
  data.percentiles = { ...data.percentiles, ttft_ms: ttfa, ttfa_ms: ttfa, tpot_ms: tpot };
  const figures = Object.fromEntries(PAIRED_FIGURES.map((f) => [f, [] as ComparisonDoc[]])) as Record<string, ComparisonDoc[]>;
  // Bedrock against fast-small: no meaningful difference. Bedrock against reasoning (stored the other way round): reasoning faster.
  figures.total_chat = [
    comparison('reference-bedrock', 'reference-fast-small', 'no_difference', -1),
    comparison('reference-bedrock', 'reference-reasoning', 'b_faster', 22.5),
  ];
  data.paired = { [VARIANT]: { window: data.window, figures: figures as never } };
  const file = join(work, 'data.json');
  writeFileSync(file, JSON.stringify(data));
  await buildSite(join(work, 'dist'), { dataFile: file });
  doc = parseHTML(readFileSync(join(work, 'dist/compare/index.html'), 'utf8')).document;
}, 300_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the compare page: latency against price', () => {
  it('names the fastest within each budget and its paired verdict against the runner-up', () => {
    const rows = [...doc.querySelectorAll(`table.budget[data-region="${REGION}"] tbody tr`)].map((tr) => ({
      budget: tr.querySelector('td')!.firstChild!.textContent!.trim(),
      of: tr.querySelector('td small')!.textContent,
      fastest: tr.getAttribute('data-fastest'),
      runner_up: tr.getAttribute('data-runner-up'),
      verdict: tr.getAttribute('data-verdict'),
      words: tr.querySelector('td.verdict')!.textContent!.trim(),
    }));
    expect(rows.map((r) => [r.budget, r.fastest, r.runner_up, r.verdict])).toEqual([
      ['≤ $0.00006', 'reference-fast-small', '', 'none'],
      ['≤ $0.00008', 'reference-bedrock', 'reference-fast-small', 'no_difference'],
      ['≤ $0.000185', 'reference-bedrock', 'reference-fast-small', 'no_difference'],
      ['≤ $0.00044', 'reference-reasoning', 'reference-bedrock', 'a_faster'],
      // As fast as reasoning and dearer: reasoning stays the fastest; no comparison of the two.
      ['≤ $0.00075', 'reference-reasoning', 'reference-hidden-reasoning', 'not_enough_data'],
      ['≤ $0.00135', 'reference-slow-large', 'reference-reasoning', 'not_enough_data'],
    ]);
    expect(rows[0].words).toBe('the only priced target within it');
    expect(rows[1].words).toMatch(/^tied with Reference · fast small model: no meaningful difference/);
    // Stored as bedrock against reasoning, read as reasoning against bedrock: 1/1.225 − 1 = −18.4 %.
    expect(rows[3].words).toMatch(/^18 % faster than Reference · Bedrock ConverseStream/);
    expect(rows[4].words).toBe('not distinguishable from Reference · hidden reasoning model: no paired ticks yet');
    expect(rows[0].of).toBe("Reference · fast small model's cost");
  });

  it('marks the frontier and names the unpriced target it leaves out', () => {
    const region = doc.querySelector(`.price-region[data-region="${REGION}"]`)!;
    expect(region.querySelectorAll('.plot-wide g.on-frontier circle')).toHaveLength(4);
    expect(region.querySelectorAll('.plot-wide g.price-point circle')).toHaveLength(6);
    const frontier = [...region.querySelectorAll('.chart-table tbody tr')]
      .filter((tr) => tr.lastElementChild!.textContent === 'yes')
      .map((tr) => tr.firstElementChild!.textContent);
    expect(frontier).toEqual([
      'Reference · fast small model',
      'Reference · Bedrock ConverseStream',
      'Reference · reasoning model',
      'Reference · slow large model',
    ]);
    expect(region.textContent).toContain('left out: no price — Reference · Azure OpenAI');
    // The prices used, with the demo's label; the unpriced one said so.
    const prices = doc.querySelector('#prices')!.textContent!;
    expect(prices.match(/demo: an illustrative price, not a real vendor price/g)).toHaveLength(6);
    expect(prices).toContain('no price: left out of latency against price');
  });

  it('leaves out the regions without medians', () => {
    expect([...doc.querySelectorAll('.price-region')].map((r) => r.getAttribute('data-region'))).toEqual([REGION]);
  });
});
