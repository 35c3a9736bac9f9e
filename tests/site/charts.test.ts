/**
 * Chart functions on fixed data, rendered to SVG and compared with reviewed snapshots (time zone
 * pinned to UTC by the project). A change to a chart shows up here as a diff to look at.
 */
import { describe, expect, it } from 'vitest';
import { errorsOverTimeChart, expectedTotalChart, histogramChart, overviewSplitChart, ttftByPromptChart, ttftEcdfChart, ttftOverTimeChart, ttftSplitChart } from '../../site/src/charts/charts.ts';

const T0 = Date.UTC(2026, 0, 10);
const SNAP = (name: string) => `./__snapshots__/${name}.svg.html`;

describe('charts', () => {
  it('uses UTC', () => expect(new Date(T0).getHours()).toBe(0));

  it('TTFT split', async () => {
    const svg = ttftSplitChart([{ series: 'weur', network_ms: 22, server_ms: 180 }, { series: 'apac', network_ms: 160, server_ms: 181 }]);
    expect(svg).toContain('role="img"');
    expect(svg).toContain('network');
    await expect(svg).toMatchFileSnapshot(SNAP('ttft-split'));
  });

  it('overview: network and server stacked per region × target, TTFT ticked, a later first answer ringed', async () => {
    const svg = overviewSplitChart([
      { row: 'weur · fast', network_ms: 20, server_ms: 40, ttft_ms: 61, ttfa_ms: 61 },
      { row: 'weur · reasoning', network_ms: 20, server_ms: 140, ttft_ms: 158, ttfa_ms: 447 },
      { row: 'apac · fast', network_ms: null, server_ms: null, ttft_ms: 201, ttfa_ms: 201 },
    ]);
    // Two parts for each split row, one grey bar for the row without a split; one ring (the reasoning model).
    expect(svg.match(/<rect/g)?.length).toBeGreaterThanOrEqual(5);
    expect(svg.match(/<circle/g)?.length).toBe(1);
    for (const label of ['weur · fast', 'weur · reasoning', 'apac · fast', 'no split']) expect(svg).toContain(label);
    await expect(svg).toMatchFileSnapshot(SNAP('overview-split'));
  });

  it('TTFT ECDF', async () => {
    const values = [120, 130, 150, 400].flatMap((v, i) => [{ series: 'weur', ttft_ms: v }, { series: 'apac', ttft_ms: v + 140 + i }]);
    await expect(ttftEcdfChart(values)).toMatchFileSnapshot(SNAP('ttft-ecdf'));
  });

  it('TTFT over time', async () => {
    const points = [0, 1, 2].flatMap((h) => [{ series: 'weur', t: T0 + h * 3_600_000, p50: 120 + h, p95: 200 + h }]);
    await expect(ttftOverTimeChart(points)).toMatchFileSnapshot(SNAP('ttft-over-time'));
  });

  it('histogram', async () => {
    await expect(histogramChart([8, 9, 9, 10, 10, 10, 11, 30], 'gap between token-bearing reads', 'ms')).toMatchFileSnapshot(SNAP('histogram'));
  });

  it('TTFT by prompt size', async () => {
    await expect(ttftByPromptChart([{ series: 'weur', prompt_tokens: 200, p10: 110, p50: 120, p90: 150 }, { series: 'weur', prompt_tokens: 2000, p10: 440, p50: 480, p90: 530 }])).toMatchFileSnapshot(SNAP('ttft-by-prompt'));
  });

  it('errors over time', async () => {
    await expect(errorsOverTimeChart([{ t: T0, error: 'http', count: 2 }, { t: T0, error: 'stall', count: 1 }], 3_600_000)).toMatchFileSnapshot(SNAP('errors'));
  });

  it('stays light however many samples there are', () => {
    const values = Array.from({ length: 30_000 }, (_, i) => ({ series: ['weur', 'enam', 'apac'][i % 3], ttft_ms: 100 + ((i * 7919) % 1000) }));
    expect(ttftEcdfChart(values).length).toBeLessThan(40_000);
    expect(histogramChart(values.map((v) => v.ttft_ms), 'ttft', 'ms').length).toBeLessThan(20_000);
  });

  it('expected total by length, with a flip', async () => {
    const lines = [1, 10, 100, 1000].flatMap((n) => [{ target: 'A', tokens: n, total_ms: 100 + (n - 1) * 10 }, { target: 'B', tokens: n, total_ms: 200 + (n - 1) * 5 }]);
    await expect(expectedTotalChart(lines, [{ tokens: 21, label: '21' }])).toMatchFileSnapshot(SNAP('expected-total'));
  });
});
