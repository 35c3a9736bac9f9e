/** The site's derived figures: status rules, scenario rankings with ties, series. */
import { describe, expect, it } from 'vitest';
import { judge, targetStatus } from '../../site/src/data/status.ts';
import { crossover, expectedTotal, rank } from '../../site/src/data/compare.ts';
import { errorsOverTime, itlGaps, splitBySeries, tokensPerChunk, ttftByPromptSize, ttftOverTime } from '../../site/src/data/series.ts';
import type { PercentileGroup, SiteData, SiteSample } from '../../site/src/data/types.ts';
import { ofVariant, variantText } from '../../site/src/data/overview.ts';

const T0 = Date.UTC(2026, 0, 10);
function sample(over: Partial<SiteSample>): SiteSample {
  return {
    id: 1, tick_id: T0, started_at: T0, region: 'weur', target: 'a', prompt_variant: 'p', prompt_tokens: 200, colo: null, simulated: false, backfill: false,
    error: null, status: 200, ttft_ms: 100, ttfa_ms: 100, network_ms: 20, server_ms: 80, residual_ms: null, split_source: 'server-timing', split_note: null,
    tpot_ms: 10, decode_tps: 100, total_ms: 500, output_tokens: 10, reasoning_tokens: null, reasoning_streamed: false, answer_tokens: 10, chunks: 5, timeline: [100, 110, 130], ...over,
  };
}
const many = (n: number, over: Partial<SiteSample>) => Array.from({ length: n }, (_, i) => sample({ id: i, ...over }));

describe('status', () => {
  it('is operational with no failures and TTFT near its baseline', () => {
    expect(judge(many(10, { ttft_ms: 110 }), many(20, { ttft_ms: 100 })).status).toBe('operational');
  });
  it('is degraded when TTFT exceeds 1.5× the baseline', () => {
    const v = judge(many(10, { ttft_ms: 160 }), many(20, { ttft_ms: 100 }));
    expect(v).toMatchObject({ status: 'degraded', ttft_p50: 160, baseline_p50: 100 });
    expect(v.reason).toContain('1.6×');
  });
  it('is degraded above 10 % errors and down from 50 %', () => {
    expect(judge([...many(8, {}), ...many(2, { error: 'http' })], []).status).toBe('degraded');
    expect(judge([...many(5, {}), ...many(5, { error: 'timeout_headers' })], []).status).toBe('down');
  });
  it('needs 10 successful baseline samples to judge speed, and says when there is no data', () => {
    expect(judge(many(5, { ttft_ms: 900 }), many(9, { ttft_ms: 100 })).status).toBe('operational');
    expect(judge([], many(20, {})).status).toBe('no-data');
  });
  it('gives a verdict per day of the window', () => {
    const samples = [...many(3, { tick_id: T0 }), ...many(3, { tick_id: T0 + 86_400_000, error: 'network' })];
    const s = targetStatus(samples, T0 + 2 * 86_400_000, T0);
    expect(s.days.map((d) => [d.day, d.status])).toEqual([['2026-01-10', 'operational'], ['2026-01-11', 'down']]);
    expect(s.now.status).toBe('no-data');
  });
});

describe('compare', () => {
  const g = (target: string, p50: number, lo: number | null, hi: number | null, n = 50) =>
    ({ target, region: 'weur', n, samples: n, errors: 0, error_rate: 0, p50, p50_ci_low: lo, p50_ci_high: hi }) as PercentileGroup;

  it('expected total = TTFT + (tokens − 1) × TPOT, with interval bounds from the CIs', () => {
    expect(expectedTotal(g('a', 200, 190, 210), g('a', 10, 9, 11), 51)).toMatchObject({ total: 700, low: 640, high: 760 });
  });
  it('calls a target faster only when intervals do not overlap', () => {
    const r = rank([
      { target: 'slow', total: 900, low: 850, high: 950, ttft_n: 50, tpot_n: 50 },
      { target: 'fast', total: 500, low: 480, high: 520, ttft_n: 50, tpot_n: 50 },
      { target: 'close', total: 510, low: 490, high: 530, ttft_n: 50, tpot_n: 50 },
    ]);
    expect(r.map((x) => [x.target, x.rank, x.versus_next])).toEqual([['fast', 1, 'tied'], ['close', 2, 'faster'], ['slow', 3, null]]);
  });
  it('treats a missing interval (too few samples) as a tie', () => {
    const r = rank([{ target: 'a', total: 100, low: null, high: null, ttft_n: 3, tpot_n: 3 }, { target: 'b', total: 900, low: 800, high: 1000, ttft_n: 50, tpot_n: 50 }]);
    expect(r[0].versus_next).toBe('tied');
  });
  it('finds where the winner flips', () => {
    // a: quick first token, slow decode; b: slow first token, fast decode: equal at 1 + 100/5 = 21 tokens
    expect(crossover({ ttft: 100, tpot: 10 }, { ttft: 200, tpot: 5 }, 2000)).toBe(21);
    expect(crossover({ ttft: 100, tpot: 5 }, { ttft: 200, tpot: 10 }, 2000)).toBeNull();
  });
});

describe('series', () => {
  it('splits by series with medians and split sources, noting samples without a split', () => {
    const rows = splitBySeries([...many(3, { network_ms: 10, server_ms: 90, residual_ms: 4 }), sample({ region: 'apac', network_ms: null, server_ms: null, split_source: null })]);
    expect(rows).toEqual([
      { series: 'apac', n: 1, with_split: 0, network_ms: null, server_ms: null, residual_ms: null, ttft_ms: 100, split_source: null, other_sources: [] },
      { series: 'weur', n: 3, with_split: 3, network_ms: 10, server_ms: 90, residual_ms: 4, ttft_ms: 100, split_source: 'server-timing', other_sources: [] },
    ]);
  });
  it('never pools split sources: the medians come from the source most samples had', () => {
    const rows = splitBySeries([...many(3, { network_ms: 10, server_ms: 90 }), ...many(2, { network_ms: 60, server_ms: 40, split_source: 'rtt' })]);
    expect(rows).toEqual([{ series: 'weur', n: 5, with_split: 3, network_ms: 10, server_ms: 90, residual_ms: null, ttft_ms: 100, split_source: 'server-timing', other_sources: ['rtt'] }]);
  });
  it('buckets TTFT over time and errors by class', () => {
    const samples = [sample({ ttft_ms: 100 }), sample({ ttft_ms: 300 }), sample({ tick_id: T0 + 3_600_000, ttft_ms: 50 }), sample({ error: 'stall' })];
    expect(ttftOverTime(samples, 3_600_000)).toEqual([
      { series: 'weur', t: T0, n: 2, p50: 200, p95: 290 },
      { series: 'weur', t: T0 + 3_600_000, n: 1, p50: 50, p95: 50 },
    ]);
    expect(errorsOverTime(samples, 3_600_000)).toEqual([{ t: T0, error: 'stall', count: 1 }]);
  });
  it('summarises TTFT per prompt size', () => {
    const samples = [100, 200, 300].map((ttft_ms) => sample({ ttft_ms })).concat([sample({ prompt_tokens: 2000, ttft_ms: 900 })]);
    expect(ttftByPromptSize(samples)).toEqual([
      { series: 'weur', prompt_tokens: 200, n: 3, p10: 120, p50: 200, p90: 280 },
      { series: 'weur', prompt_tokens: 2000, n: 1, p10: 900, p50: 900, p90: 900 },
    ]);
  });

  it('derives ITL gaps from timelines and tokens per chunk', () => {
    expect(itlGaps([sample({})])).toEqual([10, 20]);
    expect(tokensPerChunk([sample({ output_tokens: 12, chunks: 4 })])).toEqual([3]);
    // Hidden reasoning (counted, never streamed) is not in any chunk: only the answer's tokens are.
    expect(tokensPerChunk([sample({ output_tokens: 64, reasoning_tokens: 30, reasoning_streamed: false, answer_tokens: 34, chunks: 34 })])).toEqual([1]);
    expect(tokensPerChunk([sample({ output_tokens: 64, reasoning_tokens: 30, reasoning_streamed: true, answer_tokens: 34, chunks: 32 })])).toEqual([2]);
  });
});

describe('prompt variants', () => {
  const data = {
    variant: { id: 'chat', label: 'Chat', prompt_tokens: 200, max_tokens: 64 },
    variants: [{ id: 'chat', label: 'Chat', prompt_tokens: 200, max_tokens: 64 }, { id: 'long', label: 'Long', prompt_tokens: 4000, max_tokens: 64 }],
  } as unknown as SiteData;
  it('keeps figures to one variant and says which', () => {
    expect(ofVariant(data, [sample({ prompt_variant: 'chat' }), sample({ prompt_variant: 'long' })]).map((s) => s.prompt_variant)).toEqual(['chat']);
    expect(variantText(data)).toBe('prompt variant chat (200 tokens in, up to 64 out); 1 other variant only in "TTFT against prompt size"');
  });
});
