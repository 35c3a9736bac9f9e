/**
 * Chart functions on fixed data, rendered to SVG and compared with reviewed snapshots (time zone
 * pinned to UTC by the project). A change to a chart shows up here as a diff to look at.
 */
import { describe, expect, it } from 'vitest';
import {
  errorsOverTimeChart,
  expectedTotalChart,
  histogramChart,
  overviewSplitChart,
  runOf,
  concurrencyTtftChart,
  concurrencyDecodeChart,
  splitParts,
  prefillChart,
  ttftEcdfChart,
  ttftOverTimeChart,
  ttftSplitChart,
  timeProfileChart,
} from '../../site/src/charts/charts.ts';
import { profileCells } from '../../shared/rollup/hour-profile.ts';
import { latencyPriceChart, unpricedNote } from '../../site/src/charts/latency-price.ts';

const T0 = Date.UTC(2026, 0, 10);
const SNAP = (name: string) => `./__snapshots__/${name}.svg.html`;

describe('charts', () => {
  it('uses UTC', () => expect(new Date(T0).getHours()).toBe(0));

  it('TTFT split', async () => {
    const svg = ttftSplitChart(
      [
        { series: 'weur', network_ms: 22, server_ms: 180, residual_ms: 30 },
        { series: 'apac', network_ms: 160, server_ms: 181, residual_ms: -2 },
      ],
      ['weur', 'apac'],
    );
    expect(svg).toContain('role="img"');
    for (const part of ['network', 'server', 'residual']) expect(svg).toContain(part);
    // Drawn for a wide screen and a phone; the phone's copy is hidden from assistive technology.
    expect(svg.match(/role="img"/g)).toHaveLength(2);
    expect(svg).toContain('<div class="plot-narrow" aria-hidden="true">');
    // weur: network, the server's own report, the residual; apac (negative residual): network and server.
    expect(splitParts({ series: 'weur', network_ms: 22, server_ms: 180, residual_ms: 30 })).toEqual([
      { part: 'network', x1: 0, x2: 22 },
      { part: 'server', x1: 22, x2: 172 },
      { part: 'residual', x1: 172, x2: 202 },
    ]);
    expect(splitParts({ series: 'apac', network_ms: 160, server_ms: 181, residual_ms: -2 }).map((p) => p.part)).toEqual([
      'network',
      'server',
    ]);
    await expect(svg).toMatchFileSnapshot(SNAP('ttft-split'));
  });

  it('overview: network and server stacked per region × target, TTFT ticked, a later first answer ringed', async () => {
    const svg = overviewSplitChart([
      { row: 'weur · fast', color: '#0072B2', network_ms: 20, server_ms: 40, ttft_ms: 61, ttfa_ms: 61 },
      { row: 'weur · reasoning', color: '#E69F00', network_ms: 20, server_ms: 140, ttft_ms: 158, ttfa_ms: 447 },
      { row: 'apac · fast', color: '#0072B2', network_ms: null, server_ms: null, ttft_ms: 201, ttfa_ms: 201 },
    ]);
    const wide = svg.slice(0, svg.indexOf('plot-narrow'));
    // Two parts for each split row, one grey bar for the row without a split; one ring (the reasoning model), and a target-coloured dot per row.
    expect(wide.match(/<rect/g)?.length).toBeGreaterThanOrEqual(5);
    expect(wide.match(/<circle/g)?.length).toBe(4);
    expect(wide.match(/fill="#0072B2"/g)?.length).toBe(2);
    for (const label of ['weur · fast', 'weur · reasoning', 'apac · fast', 'no split']) expect(svg).toContain(label);
    await expect(svg).toMatchFileSnapshot(SNAP('overview-split'));
  });

  it('TTFT ECDF', async () => {
    const values = [120, 130, 150, 400].flatMap((v, i) => [
      { series: 'weur', ttft_ms: v },
      { series: 'apac', ttft_ms: v + 140 + i },
    ]);
    await expect(
      ttftEcdfChart(
        values,
        new Map([
          ['weur', '#0072B2'],
          ['apac', '#E69F00'],
        ]),
      ),
    ).toMatchFileSnapshot(SNAP('ttft-ecdf'));
  });

  it('TTFT over time', async () => {
    // Hours 0, 1 and 3: hour 2 had no sample, so the line breaks there; hour 1's p95 rests on 3 samples and is not drawn.
    const points = [0, 1, 3].map((h) => ({ series: 'weur', t: T0 + h * 3_600_000, n: h === 1 ? 3 : 12, p50: 120 + h, p95: 200 + h }));
    const svg = ttftOverTimeChart(points, 3_600_000, undefined, { from: T0, to: T0 + 24 * 3_600_000 });
    const wide = svg.slice(0, svg.indexOf('plot-narrow'));
    // The p50 line runs over hours 0–1, then again from hour 3: the empty hour 2 is a gap, not a slope.
    expect(points.map((p) => runOf(points, p, 3_600_000))).toEqual([T0, T0, T0 + 3 * 3_600_000]);
    expect(wide).toContain('time (UTC)');
    await expect(svg).toMatchFileSnapshot(SNAP('ttft-over-time'));
  });

  it('histogram', async () => {
    await expect(histogramChart([8, 9, 9, 10, 10, 10, 11, 30], 'gap between token-bearing reads', 'ms')).toMatchFileSnapshot(
      SNAP('histogram'),
    );
  });

  it('prefill: server time against prompt size with the fitted line', async () => {
    const points = [200, 1_000, 32_000].flatMap((x) => [
      { series: 'weur', prompt_tokens: x, server_ms: 40 + 0.08 * x },
      { series: 'apac', prompt_tokens: x, server_ms: 45 + 0.08 * x },
    ]);
    const svg = prefillChart(
      points,
      [{ series: 'weur', slope: 0.08, intercept: 40, from: 200, to: 32_000 }],
      new Map([
        ['weur', '#0072B2'],
        ['apac', '#E69F00'],
      ]),
    );
    expect(svg).toContain('prompt tokens (log scale)');
    await expect(svg).toMatchFileSnapshot(SNAP('prefill'));
  });

  it('errors over time', async () => {
    const svg = errorsOverTimeChart(
      [
        { t: T0, error: 'http', count: 2 },
        { t: T0, error: 'stall', count: 1 },
      ],
      3_600_000,
      { from: T0, to: T0 + 24 * 3_600_000 },
    );
    expect(svg).toContain('time (UTC)');
    await expect(svg).toMatchFileSnapshot(SNAP('errors'));
  });

  it('stays light however many samples there are', () => {
    const values = Array.from({ length: 30_000 }, (_, i) => ({
      series: ['weur', 'enam', 'apac'][i % 3],
      ttft_ms: 100 + ((i * 7919) % 1000),
    }));
    // Both drawings (wide and phone) together.
    expect(ttftEcdfChart(values).length).toBeLessThan(80_000);
    expect(
      histogramChart(
        values.map((v) => v.ttft_ms),
        'ttft',
        'ms',
      ).length,
    ).toBeLessThan(40_000);
  });

  it('expected total by length, with a flip', async () => {
    const lines = [1, 10, 100, 1000].flatMap((n) => [
      { target: 'A', tokens: n, total_ms: 100 + (n - 1) * 10 },
      { target: 'B', tokens: n, total_ms: 200 + (n - 1) * 5 },
    ]);
    await expect(expectedTotalChart(lines, [{ tokens: 21, label: '21' }])).toMatchFileSnapshot(SNAP('expected-total'));
  });

  it('latency against price: whiskers, the Pareto frontier ringed, the unpriced named', async () => {
    const points = [
      { target: 'cheap', cost_usd: 0.00006, ms: 900, low_ms: 850, high_ms: 960 },
      { target: 'middle', cost_usd: 0.0002, ms: 500, low_ms: 470, high_ms: 540 },
      // Dearer and slower than middle: dominated, not on the frontier.
      { target: 'dominated', cost_usd: 0.0009, ms: 700, low_ms: null, high_ms: null },
      { target: 'fast', cost_usd: 0.00135, ms: 300, low_ms: 280, high_ms: 330 },
    ];
    const svg = latencyPriceChart(points, ['Unpriced one', 'Unpriced <two>']);
    const groups = (label: string) => [...svg.matchAll(new RegExp(`<g [^>]*class="${label}"[^>]*>(.*?)</g>`, 'g'))].map((m) => m[1]);
    // Each drawing (wide and phone) has the frontier's step line and a ring on each of its three points.
    expect(groups('pareto-frontier')).toHaveLength(2);
    for (const g of groups('pareto-frontier')) expect(g).toMatch(/<path[^>]* d="M/);
    expect(groups('on-frontier').map((g) => g.match(/<circle/g)?.length)).toEqual([3, 3]);
    // Whiskers for the three with an interval, a dot for all four.
    expect(groups('interval').map((g) => g.match(/<line/g)?.length)).toEqual([3, 3]);
    expect(groups('price-point').map((g) => g.match(/<circle/g)?.length)).toEqual([4, 4]);
    expect(svg).toContain('<title>dominated: 700 ms, $0.0009</title>');
    expect(svg).toContain('<p class="note unpriced">left out: no price — Unpriced one, Unpriced &lt;two&gt;</p>');
    expect(svg).toContain('cost per request (US$)');
    await expect(svg).toMatchFileSnapshot(SNAP('latency-price'));
    // Everything priced: no note. A free target puts the axis on a linear scale from 0.
    expect(latencyPriceChart(points, [])).not.toContain('left out');
    expect(unpricedNote([])).toBe('');
    const free = latencyPriceChart([{ target: 'free', cost_usd: 0, ms: 400, low_ms: null, high_ms: null }, ...points], []);
    // A free target at 400 ms beats every slower one: the frontier is it and the fast one (on a linear axis from $0).
    expect([...free.matchAll(/<g [^>]*class="on-frontier"[^>]*>(.*?)<\/g>/g)].map((m) => m[1].match(/<circle/g)?.length)).toEqual([2, 2]);
    expect(free).toContain('>$0<');
  });

  it('concurrency: TTFT and decode speed by level on a log-2 axis of the levels', async () => {
    const points = [1, 4, 8, 16].flatMap((level, i) => [
      { series: 'weur', level, ttft_p50: 100 + 20 * i, ttft_p95: 120 + 40 * i, decode_tps_p50: 150 - 5 * i, decode_tps_min: 140 - 10 * i },
    ]);
    const ttft = concurrencyTtftChart(points);
    for (const l of ['1', '4', '8', '16']) expect(ttft).toContain(`>${l}<`);
    expect(ttft).toContain('simultaneous streams');
    await expect(ttft).toMatchFileSnapshot(SNAP('concurrency-ttft'));
    expect(concurrencyDecodeChart(points)).toContain('decode speed per stream');
  });

  it('time profile: a cell per weekday and hour with enough data, blank where there is too little', () => {
    // Four Mondays and four Tuesdays (2026-01-05 is a Monday): slow at 14:00 UTC on Mondays; Tuesdays only one day at 03:00.
    const day = (d: number) => Date.UTC(2026, 0, 5 + d);
    const days = [0, 7, 14, 21].map((d) => ({
      day: day(d),
      hours: Array.from({ length: 24 }, (_, h) => [12, h === 14 ? 900 : 300] as [number, number | null]),
    }));
    days.push({
      day: day(1),
      hours: Array.from({ length: 24 }, (_, h) => [h === 3 ? 12 : 0, h === 3 ? 250 : null] as [number, number | null]),
    });
    const cells = profileCells(days);
    expect(cells).toHaveLength(7 * 24);
    expect(cells.find((c) => c.weekday === 0 && c.hour === 14)).toEqual({ weekday: 0, hour: 14, days: 4, probes: 48, ttft_p50: 900 });
    expect(cells.find((c) => c.weekday === 0 && c.hour === 13)!.ttft_p50).toBe(300);
    // One Tuesday is not enough for its cell.
    expect(cells.find((c) => c.weekday === 1 && c.hour === 3)).toMatchObject({ days: 1, ttft_p50: null });
    const svg = timeProfileChart(
      cells.map((c) => ({ ...c, region: 'weur' })),
      ['weur'],
    );
    // 24 Monday cells drawn (twice: the wide and the narrow drawing), nothing for the blank ones.
    expect(svg.match(/<rect/g)!.length).toBeGreaterThanOrEqual(48);
    expect(svg).toContain('Mon 14:00 UTC: 900 ms (48 probes)');
    expect(svg).not.toContain('Tue 3:00');
  });
});
