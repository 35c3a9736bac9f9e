/** The site's derived figures: status rules, scenario rankings with ties, series. */
import { describe, expect, it } from 'vitest';
import { cellWords, statusCells, tallyOfRow, type HistoryRow } from '../../site/src/data/status.ts';
import { stateCss, stateFill } from '../../site/src/data/state-styles.ts';
import { badgeColor, historyBadgeSvg } from '../../site/src/data/badge.ts';
import { PARTIAL_BAND, STATE_COLORS, STATE_LABELS, STRIP_STATES } from '../../shared/status/levels.ts';
import { uptimeMonth } from '../../shared/status/uptime.ts';
import { crossover, expectedTotal, flipSentence, rank } from '../../site/src/data/compare.ts';
import { scopedTo, variantPath } from '../../site/src/data/variants.ts';
import { regionColors, targetColor, targetColors } from '../../site/src/data/identity.ts';
import { colorScale, ordered, tick } from '../../site/src/charts/render.ts';
import { logTicks } from '../../site/src/charts/axes.ts';
import { fmt, ms, precise, rate, signed } from '../../site/src/format.ts';
import { errorsOverTime, itlGaps, prefillFits, splitBySeries, tokensPerChunk, ttftOverTime } from '../../site/src/data/series.ts';
import type { PercentileGroup, SiteData, SiteSample } from '../../site/src/data/types.ts';
import { rollupPercentileGroups } from '../../shared/rollup/percentiles.ts';
import { VIEW_WINDOWS, viewSpan } from '../../shared/views/windows.ts';
import { spanRows, timelinePoints } from '../../shared/rollup/timeline.ts';
import { mergeByGroup, rollUp, type Rollup } from '../../shared/rollup/rollup.ts';
import { HISTOGRAM_RELATIVE_ERROR } from '../../shared/stats/exp-histogram.ts';
import { ofVariant, variantText } from '../../site/src/data/overview.ts';
import { answeredFrom } from '../../site/src/data/served.ts';
import { fidelityOf, hourPlaces, servedPlaces } from '../../shared/rollup/hour-places.ts';

const T0 = Date.UTC(2026, 0, 10);
function sample(over: Partial<SiteSample>): SiteSample {
  return {
    id: 1,
    tick_id: T0,
    started_at: T0,
    region: 'weur',
    target: 'a',
    prompt_variant: 'p',
    prompt_tokens: 200,
    input_tokens: null,
    colo: null,
    served_by: null,
    served_by_source: null,
    colo_outside_region: false,
    simulated: false,
    backfill: false,
    error: null,
    status: 200,
    ttft_ms: 100,
    ttfa_ms: 100,
    network_ms: 20,
    server_ms: 80,
    residual_ms: null,
    split_source: 'server-timing',
    split_note: null,
    rtt_ms: null,
    tick_position: null,
    tpot_ms: 10,
    decode_tps: 100,
    total_ms: 500,
    output_tokens: 10,
    reasoning_tokens: null,
    reasoning_streamed: false,
    answer_tokens: 10,
    chunks: 5,
    timeline: [100, 110, 130],
    ...over,
  };
}
const many = (n: number, over: Partial<SiteSample>) => Array.from({ length: n }, (_, i) => sample({ id: i, ...over }));

describe('status history (from the status keeper)', () => {
  const row = (
    day: string,
    region: string,
    counts: Partial<Record<'operational' | 'degraded' | 'down' | 'maintenance' | 'no_data', number>>,
    note: string | null = null,
    variant = 'chat',
  ): HistoryRow => ({
    day,
    target: 't',
    prompt_variant: variant,
    region,
    operational: 0,
    degraded: 0,
    down: 0,
    maintenance: 0,
    no_data: 0,
    late: 0,
    ...counts,
    note,
  });
  const days = ['2026-11-01T00:00:00.000Z', '2026-11-02T00:00:00.000Z', '2026-11-03T00:00:00.000Z'];
  const rows = [
    // Day 1: apac down for a while (a regional problem: the target as a whole stays operational).
    row(days[0], 'weur', { operational: 288 }),
    row(days[0], 'enam', { operational: 288 }),
    row(days[0], 'apac', { operational: 280, down: 8 }, 'the last 3 probes failed'),
    // Day 2: two of three regions degraded: the target as a whole is degraded, with the worst reason.
    row(days[1], 'weur', { operational: 270, degraded: 18 }, 'p99 TTFT 2.9 s against a baseline of 1.1 s'),
    row(days[1], 'enam', { operational: 280, degraded: 8 }, 'error rate 45 % of 15 probes'),
    row(days[1], 'apac', { operational: 288 }),
    // Day 3: apac in maintenance all day, the others fine.
    row(days[2], 'weur', { operational: 288 }),
    row(days[2], 'enam', { operational: 288 }),
    row(days[2], 'apac', { maintenance: 288 }, 'maintenance: key rotation'),
    // Another variant of the same target, down on day 3: the target shows the worst of its variants.
    row(days[2], 'weur', { down: 100, operational: 188 }, 'the last 3 probes failed', 'code'),
    row(days[2], 'enam', { down: 100, operational: 188 }, 'the last 3 probes failed', 'code'),
  ];

  it("judges a target by the keeper's rule over its regions, each region by its worst tick", () => {
    const cells = statusCells(rows, 't', ['chat'], ['weur', 'enam', 'apac'], [...days, '2026-11-04T00:00:00.000Z']);
    // Day 1: apac down while the target as a whole stayed operational: a partial outage, not a clean day.
    expect(cells.map((c) => c.state)).toEqual(['partial', 'degraded', 'operational', 'no-data']);
    expect(cells[0].regions).toEqual([
      { region: 'weur', state: 'operational' },
      { region: 'enam', state: 'operational' },
      { region: 'apac', state: 'down' },
    ]);
    expect(cells[0].n).toBe(3 * 288);
    expect(cells[1].note).toBe('p99 TTFT 2.9 s against a baseline of 1.1 s');
    expect(cells[2].regions.find((r) => r.region === 'apac')!.state).toBe('maintenance');
    expect(cellWords(cells[0], '2026-11-01')).toBe(
      '2026-11-01: Partial outage (apac down), 864 region-ticks judged; the last 3 probes failed',
    );
    expect(cellWords(cells[3], '2026-11-04')).toBe('2026-11-04: No data, nothing judged');
    // Folded: the worst of the target's variants.
    expect(statusCells(rows, 't', ['chat', 'code'], ['weur', 'enam', 'apac'], days).map((c) => c.state)).toEqual([
      'partial',
      'degraded',
      'down',
    ]);
    // An hour the same: a region degraded in it, the others fine.
    const hour = '2026-11-01T10:00:00.000Z';
    const hourly = [
      { ...row(hour, 'weur', { operational: 12 }), day: undefined, hour },
      { ...row(hour, 'enam', { operational: 12 }), day: undefined, hour },
      { ...row(hour, 'apac', { operational: 10, degraded: 2 }), day: undefined, hour },
    ];
    expect(statusCells(hourly, 't', ['chat'], ['weur', 'enam', 'apac'], [hour]).map((c) => c.state)).toEqual(['partial']);
  });

  it('defines each strip state once: its label, its colour in both schemes, its CSS and its badge colour', () => {
    const css = stateCss();
    for (const s of STRIP_STATES) {
      expect(STATE_LABELS[s], s).toMatch(/^[A-Z]/);
      expect(css).toContain(`--state-${s}: ${STATE_COLORS[s].light};`);
      expect(css).toContain(`--state-${s}: ${STATE_COLORS[s].dark};`);
      expect(css).toContain(`.bar .mark.${s}`);
      expect(css).toContain(`background: ${stateFill(s)};`);
      expect(css).toContain(`.swatch.${s}`);
      expect(badgeColor(s)).toBe(STATE_COLORS[s].light);
    }
    // Every state its own colour; partial drawn over the operational colour, with a band of its own.
    expect(new Set(STRIP_STATES.map((s) => STATE_COLORS[s].light)).size).toBe(STRIP_STATES.length);
    expect(stateFill('partial')).toBe(
      `linear-gradient(to bottom, var(--state-partial) 0 ${PARTIAL_BAND * 100}%, var(--state-operational) ${PARTIAL_BAND * 100}% 100%)`,
    );
    // The history badge: a mark per period, a partial one in both colours, each named.
    const svg = historyBadgeSvg('T', '7 d by day, worst partial outage', [
      { state: 'operational', words: 'day 1: Operational' },
      { state: 'partial', words: 'day 2: Partial outage (apac down)' },
    ]);
    expect(svg).toContain('aria-label="T: 7 d by day, worst partial outage"');
    expect(svg.match(new RegExp(`fill="${STATE_COLORS.partial.light}"`, 'g'))).toHaveLength(1);
    expect(svg.match(new RegExp(`fill="${STATE_COLORS.operational.light}"`, 'g'))).toHaveLength(2);
    expect(svg.match(/<title>day 2: Partial outage \(apac down\)<\/title>/g)).toHaveLength(2);
  });

  it("counts a month's uptime over the ticks due, maintenance left out, a tick never judged as unknown, never up", () => {
    const report = uptimeMonth({
      month: '2026-11',
      now: Date.UTC(2026, 10, 4),
      // 288 ticks a day; the target first judged on 1 November, so 3 days are due.
      ticksPerDay: 288,
      targets: [{ id: 't', regions: ['weur', 'enam', 'apac'], variants: ['chat'] }],
      days: rows
        .map((r) => ({
          day: Date.parse(r.day!),
          target: r.target,
          prompt_variant: r.prompt_variant,
          region: r.region,
          counts: tallyOfRow(r).counts,
        }))
        .filter((r) => r.prompt_variant === 'chat'),
      incidents: [
        { id: 'i', target: 't', regions: ['apac'], opened_at: Date.UTC(2026, 9, 31, 23, 0), resolved_at: Date.UTC(2026, 10, 1, 0, 40) },
      ],
      ttft: () => ({ p50: 100, p95: 200 }),
    })!;
    const apac = report.rows.find((r) => r.region === 'apac')!;
    // apac: 280 + 288 operational of 3 × 288 due, 288 in maintenance: 568 / 576.
    expect(apac.due).toBe(3 * 288);
    expect(apac.uptime).toBeCloseTo(568 / 576, 9);
    expect(apac.share.maintenance).toBeCloseTo(1 / 3, 9);
    // The incident's 40 minutes inside November (it opened an hour before).
    expect([apac.incidents, apac.incident_minutes]).toEqual([1, 40]);
    expect(report.rows.find((r) => r.region === 'weur')!.incidents).toBe(0);
    expect(apac.worst_day).toEqual({ day: '2026-11-01', uptime: 280 / 288 });
    const whole = report.rows.find((r) => r.region === '*')!;
    expect(whole.due).toBe(3 * 3 * 288);
    // A day never judged is unknown, and counts against uptime.
    const later = uptimeMonth({
      ...{ month: '2026-11', ttft: () => ({ p50: null, p95: null }) },
      now: Date.UTC(2026, 10, 5),
      ticksPerDay: 288,
      targets: [{ id: 't', regions: ['weur'], variants: ['chat'] }],
      days: [
        { day: Date.UTC(2026, 10, 1), target: 't', prompt_variant: 'chat', region: 'weur', counts: { ...tallyOfRow(rows[0]).counts } },
      ],
      incidents: [],
    })!;
    expect(later.rows[0].share.unknown).toBeCloseTo(3 / 4, 9);
    expect(later.rows[0].uptime).toBeCloseTo(1 / 4, 9);
  });
});

describe('window views from rollups (shared/views/windows.ts, what the percentile and timeline views hold)', () => {
  const NOW = Date.UTC(2026, 5, 30, 10, 20);
  const TODAY = Date.UTC(2026, 5, 30);
  const H = 3_600_000;
  const D = 86_400_000;
  function rows(starts: number[], value: number): Rollup[] {
    return rollUp(
      starts.map((t) => ({
        tick_id: t,
        region: 'weur',
        target: 'a',
        prompt_variant: 'p',
        method_version: 2,
        error: null,
        split_source: null,
        ttft_ms: value,
        ttfa_ms: value,
        tpot_ms: 5,
        itl_p99_ms: 9,
        total_ms: value + 100,
        decode_tps: 200,
        network_ms: null,
        server_ms: null,
      })),
    );
  }
  it("answers 24 h from hourly rows, and N days from N whole days plus today's hours", () => {
    const hourly = [...rows([NOW - 20 * H], 100), ...rows([TODAY + 2 * H, TODAY + 2 * H + 300_000], 200)];
    const daily = [...rows([TODAY - 3 * D], 300), ...rows([TODAY - 20 * D], 400), ...rows([TODAY - 60 * D], 500)].map((r) => ({
      ...r,
      hour: Math.floor(r.hour / D) * D,
    }));
    const views = Object.fromEntries(
      VIEW_WINDOWS.map((w) => {
        const span = viewSpan(w.id, NOW);
        const rows = spanRows(hourly, daily, span);
        return [
          w.id,
          {
            window: { from: new Date(span.from).toISOString(), to: new Date(span.to).toISOString() },
            percentiles: { ttft_ms: rollupPercentileGroups(rows, 'ttft_ms', ['region', 'target']) },
            history: timelinePoints(rows, span.resolution, false),
          },
        ];
      }),
    );
    const n = (id: string) => views[id].percentiles.ttft_ms[0].n;
    expect([n('24h'), n('7d'), n('30d'), n('90d')]).toEqual([3, 3, 4, 5]);
    expect(views['24h'].window).toEqual({ from: '2026-06-29T10:00:00.000Z', to: '2026-06-30T10:00:00.000Z' });
    expect(views['7d'].window).toEqual({ from: new Date(TODAY - 7 * D).toISOString(), to: new Date(TODAY + 10 * H).toISOString() });
    // 7 d: the day 3 days ago (300 ms) and today's two samples (200 ms).
    expect(Math.abs(views['7d'].percentiles.ttft_ms[0].p50! - 200) / 200).toBeLessThanOrEqual(HISTOGRAM_RELATIVE_ERROR);
    expect(views['7d'].percentiles.ttft_ms[0].p99).toBeCloseTo(298, 1);
    // The history: one point per day, today's hours merged into one.
    expect(views['30d'].history.map((p) => [p.start.slice(0, 10), p.probes])).toEqual([
      ['2026-06-10', 1],
      ['2026-06-27', 1],
      ['2026-06-30', 2],
    ]);
    expect(views['24h'].history.map((p) => p.probes)).toEqual([1, 2]);
  });
});

describe('compare', () => {
  const g = (target: string, p50: number, lo: number | null, hi: number | null, n = 50) =>
    ({ target, region: 'weur', n, samples: n, errors: 0, error_rate: 0, p50, p50_ci_low: lo, p50_ci_high: hi }) as PercentileGroup;

  it('expected total = TTFT + (tokens − 1) × TPOT, with interval bounds from the CIs', () => {
    expect(expectedTotal(g('a', 200, 190, 210), g('a', 10, 9, 11), 51)).toMatchObject({ total: 700, low: 640, high: 760 });
  });
  it("ranks by the expected totals of the medians, and claims no verdict of its own (that is the paired comparison's)", () => {
    const r = rank([
      { target: 'slow', total: 900, low: 850, high: 950, ttft_n: 50, tpot_n: 50 },
      { target: 'fast', total: 500, low: 480, high: 520, ttft_n: 50, tpot_n: 50 },
      { target: 'close', total: 510, low: null, high: null, ttft_n: 3, tpot_n: 3 },
    ]);
    expect(r.map((x) => [x.target, x.rank])).toEqual([
      ['fast', 1],
      ['close', 2],
      ['slow', 3],
    ]);
    expect(r.every((x) => !('versus_next' in x))).toBe(true);
  });
  it('finds where the winner flips', () => {
    // a: quick first token, slow decode; b: slow first token, fast decode: equal at 1 + 100/5 = 21 tokens
    expect(crossover({ ttft: 100, tpot: 10 }, { ttft: 200, tpot: 5 }, 2000)).toBe(21);
    expect(crossover({ ttft: 100, tpot: 5 }, { ttft: 200, tpot: 10 }, 2000)).toBeNull();
  });
  it('says where the medians cross, and no more (whether either is faster is the paired verdict)', () => {
    expect(flipSentence({ tokens: 21, from: 'A', to: 'B' })).toBe('A → B at about 21 tokens');
  });
});

describe('series', () => {
  it('splits by series with medians and split sources, noting samples without a split', () => {
    const rows = splitBySeries([
      ...many(3, { network_ms: 10, server_ms: 90, residual_ms: 4 }),
      sample({ region: 'apac', network_ms: null, server_ms: null, split_source: null }),
    ]);
    expect(rows).toEqual([
      {
        series: 'apac',
        n: 1,
        with_split: 0,
        network_ms: null,
        server_ms: null,
        residual_ms: null,
        ttft_ms: 100,
        split_source: null,
        other_sources: [],
      },
      {
        series: 'weur',
        n: 3,
        with_split: 3,
        network_ms: 10,
        server_ms: 90,
        residual_ms: 4,
        ttft_ms: 100,
        split_source: 'server-timing',
        other_sources: [],
      },
    ]);
  });
  it('never pools split sources: the medians come from the source most samples had', () => {
    const rows = splitBySeries([
      ...many(3, { network_ms: 10, server_ms: 90 }),
      ...many(2, { network_ms: 60, server_ms: 40, split_source: 'rtt' }),
    ]);
    expect(rows).toEqual([
      {
        series: 'weur',
        n: 5,
        with_split: 3,
        network_ms: 10,
        server_ms: 90,
        residual_ms: null,
        ttft_ms: 100,
        split_source: 'server-timing',
        other_sources: ['rtt'],
      },
    ]);
  });
  it('buckets TTFT over time and errors by class', () => {
    const samples = [
      sample({ ttft_ms: 100 }),
      sample({ ttft_ms: 300 }),
      sample({ tick_id: T0 + 3_600_000, ttft_ms: 50 }),
      sample({ error: 'stall' }),
    ];
    expect(ttftOverTime(samples, 3_600_000)).toEqual([
      { series: 'weur', t: T0, n: 2, p50: 200, p95: 290 },
      { series: 'weur', t: T0 + 3_600_000, n: 1, p50: 50, p95: 50 },
    ]);
    expect(errorsOverTime(samples, 3_600_000)).toEqual([{ t: T0, error: 'stall', count: 1 }]);
  });
  it('fits the prefill rate per series from server time against the provider-counted prompt tokens', () => {
    // Server time = 30 ms + 0.1 ms per counted token; the configured sizes (200, 2,000) are 10 % above what the provider counted.
    const samples = [200, 2_000].flatMap((size) =>
      [0, 1, 2, 3].map((i) => sample({ prompt_tokens: size, input_tokens: size * 0.9, server_ms: 30 + 0.1 * size * 0.9 + i })),
    );
    const { fits, points } = prefillFits(samples);
    expect(fits).toHaveLength(1);
    expect(fits[0].tokens).toBe('reported by the provider');
    expect(fits[0].sizes).toEqual([200, 2_000]);
    expect(fits[0].fit!.slope).toBeCloseTo(0.1, 6);
    expect(fits[0].fit!.intercept).toBeCloseTo(31.5, 6);
    expect(points.map((p) => p.prompt_tokens)).toContain(1_800);
    // One sample without a usage report: the whole series falls back to the configured sizes, never a mix.
    const mixed = prefillFits([...samples, sample({ prompt_tokens: 2_000, input_tokens: null, server_ms: 210 })]);
    expect(mixed.fits[0].tokens).toBe('configured');
    expect(mixed.points.every((p) => p.prompt_tokens === 200 || p.prompt_tokens === 2_000)).toBe(true);
    // A single prompt size has no slope.
    expect(prefillFits(samples.filter((s) => s.prompt_tokens === 200)).fits[0].fit).toBeNull();
  });

  it('derives ITL gaps from timelines and tokens per chunk', () => {
    expect(itlGaps([sample({})])).toEqual([10, 20]);
    expect(tokensPerChunk([sample({ output_tokens: 12, chunks: 4 })])).toEqual([3]);
    // Hidden reasoning (counted, never streamed) is not in any chunk: only the answer's tokens are.
    expect(
      tokensPerChunk([sample({ output_tokens: 64, reasoning_tokens: 30, reasoning_streamed: false, answer_tokens: 34, chunks: 34 })]),
    ).toEqual([1]);
    expect(
      tokensPerChunk([sample({ output_tokens: 64, reasoning_tokens: 30, reasoning_streamed: true, answer_tokens: 34, chunks: 32 })]),
    ).toEqual([2]);
  });
});

describe('prompt variants', () => {
  const data = {
    variant: { id: 'chat', label: 'Chat', prompt_tokens: 200, max_tokens: 64 },
    variants: [
      { id: 'chat', label: 'Chat', prompt_tokens: 200, max_tokens: 64 },
      { id: 'long', label: 'Long', prompt_tokens: 4000, max_tokens: 64 },
    ],
  } as unknown as SiteData;
  it('keeps figures to one variant and says which', () => {
    expect(ofVariant(data, [sample({ prompt_variant: 'chat' }), sample({ prompt_variant: 'long' })]).map((s) => s.prompt_variant)).toEqual([
      'chat',
    ]);
    expect(variantText(data)).toBe(
      'prompt variant chat (200 tokens in, up to 64 out); 1 other variant has its own page, never pooled with this one',
    );
  });

  it("builds each variant's views from its own rollups, and scopes a page to one", () => {
    const row = (prompt_variant: string, ttft_ms: number) => ({ ...sample({ prompt_variant, ttft_ms }), method_version: 2, itl_p99_ms: 9 });
    const rows = rollUp([row('chat', 100), row('long', 900)]);
    const now = T0 + 2 * 3_600_000;
    // Each variant's views as the site reads them: the view's groups of that variant.
    const of = (id: string) =>
      VIEW_WINDOWS.map((w) => {
        const span = viewSpan(w.id, now);
        const mine = spanRows(
          rows.filter((r) => r.prompt_variant === id),
          [],
          span,
        );
        return {
          id: w.id,
          label: w.label,
          window: { from: new Date(span.from).toISOString(), to: new Date(span.to).toISOString() },
          resolution: span.resolution,
          percentiles: { ttft_ms: rollupPercentileGroups(mine, 'ttft_ms', ['region', 'target']) },
        };
      });
    const full = {
      ...data,
      variant_windows: { chat: of('chat'), long: of('long') },
      windows: of('chat'),
      percentiles: of('chat').find((w) => w.id === '7d')!.percentiles,
    } as unknown as SiteData;
    const long = scopedTo(full, 'long');
    expect(long.variant.id).toBe('long');
    expect(long.windows.find((w) => w.id === '24h')!.percentiles.ttft_ms[0].p50).toBeCloseTo(900, -1);
    expect(full.windows.find((w) => w.id === '24h')!.percentiles.ttft_ms[0].p50).toBeCloseTo(100, -1);
    expect(() => scopedTo(full, 'nope')).toThrow(/no prompt variant "nope"/);
    expect(variantPath(full, '/targets/a/', full.variants[0])).toBe('/targets/a/');
    expect(variantPath(full, '/targets/a/', full.variants[1])).toBe('/targets/a/variants/long/');
  });
});

describe('one visual language', () => {
  const data = {
    targets: [
      { id: 'a', label: 'A' },
      { id: 'b', label: 'B' },
      { id: 'c', label: 'C' },
    ],
    regions: [{ code: 'weur' }, { code: 'apac' }, { code: 'enam' }],
  } as unknown as SiteData;
  it('gives a target the same colour whichever targets a chart shows, and keeps the configured region order', () => {
    const colors = targetColors(data);
    const all = colorScale(['C', 'A', 'B'], colors);
    const some = colorScale(['C'], colors);
    expect(all.domain).toEqual(['A', 'B', 'C']);
    expect(some.domain).toEqual(['C']);
    expect((some.range as string[])[0]).toBe((all.range as string[])[2]);
    expect(targetColor(data, 'c')).toBe(colors.get('C'));
    expect(ordered(['enam', 'weur', 'apac'], regionColors(data))).toEqual(['weur', 'apac', 'enam']);
  });
  it('formats every number by one rule: digits by size, thousands separated, a real minus sign', () => {
    expect([0, 0.256, 4.04, 9.96, 60, 121.4, 1234.5, 123456, -1, -0.004].map(fmt)).toEqual([
      '0',
      '0.26',
      '4.0',
      '10',
      '60',
      '121',
      '1,235',
      '123,456',
      '−1.0',
      '0',
    ]);
    expect([ms(null), ms(undefined), ms(Number.NaN), rate(0.095), rate(0), signed(2500), signed(-1)]).toEqual([
      '–',
      '–',
      '–',
      '9.5 %',
      '0 %',
      '+2,500',
      '−1.0',
    ]);
    expect([1, 10, 1000, 0.5, 2.5].map(tick)).toEqual(['1', '10', '1,000', '0.50', '2.5']);
    // One decimal more where an interval is narrower than a unit (a prefill rate: 80.0 [79.8–80.3]).
    expect([80, 79.96, 79.84, 1234.56, -12.34, 5.55].map(precise)).toEqual(['80.0', '80.0', '79.8', '1,234.6', '−12.3', '5.5']);
  });
  it('chooses log ticks that do not crowd', () => {
    expect(logTicks(1, 2000, 7)).toEqual([1, 10, 100, 1000]);
    expect(logTicks(60, 700, 7)).toEqual([100, 200, 500]);
    expect(logTicks(60, 65_000, 6)).toEqual([100, 1000, 10_000]);
  });
});

describe('answered from', () => {
  it('lists each place a region x target was served from, most samples first, each with its own TTFT median', () => {
    const samples = [
      ...many(3, { served_by: 'Sweden Central', served_by_source: 'x-ms-region', ttft_ms: 100 }),
      ...many(5, { served_by: 'East US', served_by_source: 'x-ms-region', ttft_ms: 300 }),
      sample({ served_by: 'East US', served_by_source: 'x-ms-region', ttft_ms: null, error: 'timeout_first_token' }),
      // Another region, target or variant does not count.
      sample({ region: 'apac', served_by: 'Japan East', served_by_source: 'x-ms-region' }),
      sample({ target: 'b', served_by: 'Japan East', served_by_source: 'x-ms-region' }),
      sample({ prompt_variant: 'q', served_by: 'Japan East', served_by_source: 'x-ms-region' }),
      sample({ served_by: null, served_by_source: null, ttft_ms: 50 }),
    ];
    // As GET /api/v1/served-by answers it: each pair's places from its hours' place records (shared/rollup/hour-places.ts).
    const records = hourPlaces(samples, T0);
    const served = {
      window: { from: '', to: '' },
      source: 'rollups' as const,
      rows: records.map((r) => ({ region: r.region, target: r.target, prompt_variant: r.prompt_variant, places: servedPlaces([r]) })),
    };
    expect(answeredFrom({ served }, 'weur', 'a', 'p')).toEqual([
      { place: 'East US', source: 'x-ms-region', samples: 6, ttft_p50: 300 },
      { place: 'Sweden Central', source: 'x-ms-region', samples: 3, ttft_p50: 100 },
      { place: null, source: null, samples: 1, ttft_p50: 50 },
    ]);
    expect(answeredFrom({ served }, 'enam', 'a', 'p')).toEqual([]);
    // Several hours' records merge into one list, the medians over all their successes.
    const later = hourPlaces(many(2, { served_by: 'East US', served_by_source: 'x-ms-region', ttft_ms: 500 }), T0 + 3_600_000);
    expect(
      servedPlaces([...records.filter((r) => r.region === 'weur' && r.target === 'a' && r.prompt_variant === 'p'), ...later])[0],
    ).toEqual({
      place: 'East US',
      source: 'x-ms-region',
      samples: 8,
      ttft_p50: 300,
    });
  });
});

describe('paired verdicts on the site', () => {
  /** A pseudo-random wobble of about ±1 % for hour h (no pattern from one hour to the next, unlike a sine's). */
  const wobble = (h: number, scale: number) => (scale * (((h * 7_919) % 13) - 6)) / 6;
  /** One pair's figures in the stored format: TTFA's [ticks, A's wins, B's wins, median d], the other figures empty. */
  const ttfaOnly = (n: number, aWins: number, bWins: number, d: number) => [
    n,
    aWins,
    bWins,
    d,
    ...[0, 1, 2, 3].flatMap(() => [0, 0, 0, null]),
  ];

  /** The view of one family's answers (weur × p, these targets), as GET /api/v1/compare gives them from the blocks' rows. */
  async function familyView(
    rows: Array<{ hour: number; blocks: Record<string, unknown> }>,
    targets: string[],
    window: { from: string; to: string },
  ) {
    const { familyBlocks, familyComparisons } = await import('../../shared/rollup/paired-families.ts');
    const { PAIRED_FIGURES } = await import('../../shared/rollup/paired-hours.ts');
    const { pairedViewsOf } = await import('../../site/src/data/paired.ts');
    const f = { region: 'weur', prompt_variant: 'p', targets };
    const found = familyComparisons(f, familyBlocks(f, rows as Parameters<typeof familyBlocks>[1]));
    return pairedViewsOf(PAIRED_FIGURES.map((figure) => ({ window, figure, margin_pct: 5, method: '', comparisons: found.get(figure)! })))
      .p;
  }

  it('shows every pair of the answers, Holm-corrected per family, reads a pair either way round, and names its unit', async () => {
    const { headToHead, unitWords, verdictWords, versusWords } = await import('../../site/src/data/paired.ts');
    // 36 hours: a|b with A 20 % faster every hour (a little noise), a|c with nothing between them.
    const rows = Array.from({ length: 36 }, (_, h) => ({
      hour: T0 + h * 3_600_000,
      region: 'weur',
      prompt_variant: 'p',
      blocks: { v: 2, 'a|b': ttfaOnly(12, 12, 0, Math.log(0.8) + wobble(h, 0.01)), 'a|c': ttfaOnly(12, 6, 6, wobble(h + 5, 0.001)) },
    }));
    const view = await familyView(rows, ['a', 'b', 'c'], { from: '2026-01-10T00:00:00.000Z', to: '2026-01-11T12:00:00.000Z' });
    expect(view.figures.ttfa_ms.map((c) => `${c.a}|${c.b}:${c.verdict}`)).toEqual([
      'a|b:a_faster',
      'a|c:no_difference',
      'b|c:not_enough_data',
    ]);
    // The family's three pairs (b|c without a block counts, as it would with one): the smallest p-value's interval at 1 − 0.05/3.
    expect(view.figures.ttfa_ms[0].confidence).toBeCloseTo(1 - 0.05 / 3, 9);
    expect(view.figures.total_chat.every((c) => c.verdict === 'not_enough_data' && c.pairs === 0)).toBe(true);
    const ab = headToHead(view, 'ttfa_ms', 'weur', 'a', 'b')!;
    const ba = headToHead(view, 'ttfa_ms', 'weur', 'b', 'a')!;
    expect(ab.difference_pct!).toBeCloseTo(-20, 0);
    expect(ba.difference_pct!).toBeCloseTo(25, 0);
    expect(ba.verdict).toBe('b_faster');
    expect([ab.win_rate, ab.b_win_rate, ba.win_rate, ba.b_win_rate]).toEqual([1, 0, 0, 1]);
    expect(ba.ci_low_pct!).toBeCloseTo(100 * (1 / (1 + ab.ci_high_pct! / 100) - 1), 9);
    expect(verdictWords(ab, 'A', 'B')).toMatch(/^A faster than B by 20 % \[−(19|2\d)(\.\d)? %, −(19|2\d)(\.\d)? %\]$/);
    expect(verdictWords(ba, 'B', 'A')).toBe('A faster than B by 20 %');
    expect(verdictWords(headToHead(view, 'ttfa_ms', 'weur', 'a', 'c')!, 'A', 'C')).toMatch(/^no meaningful difference between A and C/);
    expect(headToHead(view, 'ttfa_ms', 'apac', 'a', 'b')).toBeNull();
    expect(versusWords(ab, 'B')).toMatch(/^20 % faster than B \[−(19|2\d)(\.\d)? %, −(19|2\d)(\.\d)? %\]$/);
    expect(versusWords(ba, 'A')).toBe('A faster in paired ticks, by 20 %');
    // The unit each verdict was judged in: 36 independent hours, in blocks of 3.
    expect(unitWords(ab)).toBe('12 blocks of 3 h');
  });

  it("reads a pair the other way round with B's own wins: a tie is nobody's (issue 36's 300 ms against 300, 300, 320, 320, 290, 290)", async () => {
    const { headToHead } = await import('../../site/src/data/paired.ts');
    const { encodeBlocks, pairedHours } = await import('../../shared/rollup/paired-hours.ts');
    const B = [300, 300, 320, 320, 290, 290];
    const samples = Array.from({ length: 8 }, (_, h) =>
      B.flatMap((b, k) => {
        const tick = T0 + h * 3_600_000 + k * 600_000;
        const base = {
          tick_id: tick,
          region: 'weur',
          prompt_variant: 'p',
          method_version: 2,
          error: null,
          split_source: null,
          tpot_ms: 10,
        };
        return [
          { ...base, target: 'a', ttfa_ms: 300 },
          { ...base, target: 'b', ttfa_ms: b },
        ];
      }),
    ).flat() as unknown as Parameters<typeof pairedHours>[0] extends Iterable<infer S> ? S[] : never;
    const rows = pairedHours(samples).map((r) => ({
      hour: r.hour,
      region: r.region,
      prompt_variant: r.prompt_variant,
      blocks: JSON.parse(encodeBlocks(r.blocks)),
    }));
    const view = await familyView(rows, ['a', 'b'], { from: '2026-01-10T00:00:00.000Z', to: '2026-01-10T08:00:00.000Z' });
    const ba = headToHead(view, 'ttfa_ms', 'weur', 'b', 'a')!;
    // B is lower at 290 (2 of 6 ticks), A at 320 (2 of 6); the two 300s are ties.
    expect(ba.win_rate!).toBeCloseTo(1 / 3, 12);
    expect(ba.b_win_rate!).toBeCloseTo(1 / 3, 12);
    expect(headToHead(view, 'ttfa_ms', 'weur', 'a', 'b')!.win_rate!).toBeCloseTo(1 / 3, 12);
  });
});

describe('checks of the method on the site', () => {
  it('TTFT by place in the tick, each sample against its own target and region: flat when place does not matter, not when it does', async () => {
    const { ttftByPosition } = await import('../../site/src/data/fidelity.ts');
    const flat = [0, 1, 2].flatMap((p) => [
      ...many(5, { target: 'a', tick_position: p, ttft_ms: 100 }),
      ...many(5, { target: 'b', tick_position: 2 - p, ttft_ms: 400 }),
    ]);
    expect(ttftByPosition(flat, 'p').map((r) => [r.position, r.n, r.ratio_p50])).toEqual([
      [0, 10, 1],
      [1, 10, 1],
      [2, 10, 1],
    ]);
    // The first place costs a cold connection: 50 % more, whichever target has it.
    const cold = [0, 1, 2].flatMap((p) => many(5, { target: 'a', tick_position: p, ttft_ms: p === 0 ? 150 : 100 }));
    expect(ttftByPosition(cold, 'p')[0].ratio_p50).toBeCloseTo(1.5, 9);
    expect(ttftByPosition([...cold, sample({ error: 'http', tick_position: 5 })], 'p')).toHaveLength(3);
  });

  it("a vendor's claims per region: used, set aside, and how the network part they leave agrees with the round trip", async () => {
    const { serverTimeFidelity } = await import('../../site/src/data/fidelity.ts');
    const rows = [
      ...many(6, { split_source: 'openai-processing-ms', network_ms: 42, rtt_ms: 40 }),
      ...many(2, {
        split_source: 'rtt',
        split_note: 'openai-processing-ms 900 ms > headers_ms 300 ms, set aside',
        network_ms: 40,
        rtt_ms: 40,
      }),
      sample({ error: 'timeout_first_token' }),
      sample({ target: 'b', split_source: 'rtt' }),
    ];
    // As GET /api/v1/fidelity answers it, from the hour's place records.
    const fidelity = {
      window: { from: '', to: '' },
      source: 'rollups' as const,
      rows: hourPlaces(rows, T0).map((r) => ({ region: r.region, target: r.target, prompt_variant: r.prompt_variant, ...fidelityOf([r]) })),
    };
    expect(serverTimeFidelity({ fidelity }, 'a', 'p')).toEqual([
      { region: 'weur', samples: 8, claim_used: 0.75, set_aside: 0.25, network_minus_rtt_p50: 2, source: 'openai-processing-ms' },
    ]);
  });
});

describe('change detection', () => {
  const TODAY = Date.UTC(2026, 5, 30);
  const D = 86_400_000;
  /**
   * Daily rows: 288 samples a day for 35 days around `before` ms, then the last 7 days around `now` ms (±10 % spread),
   * each day's level scaled by `wander(d)` (d days before today).
   */
  function days(before: number, now: number, region = 'weur', wander: (d: number) => number = () => 1): Rollup[] {
    const out: Rollup[] = [];
    for (let d = 35; d >= 1; d--) {
      const day = TODAY - d * D;
      const level = (d <= 7 ? now : before) * wander(d);
      const samples = Array.from({ length: 288 }, (_, k) => ({
        tick_id: day + k * 300_000,
        region,
        target: 'a',
        prompt_variant: 'p',
        method_version: 2,
        error: null,
        split_source: null,
        ttft_ms: level,
        ttfa_ms: level * (0.9 + (0.2 * ((k * 37) % 100)) / 100),
        tpot_ms: 5,
        itl_p99_ms: 9,
        total_ms: level + 100,
        decode_tps: 200,
        network_ms: null,
        server_ms: null,
      }));
      out.push(...mergeByGroup(rollUp(samples), day));
    }
    return out;
  }

  it('flags a target 20 % slower this week, says by how much, and stays quiet for 2 % or for no change', async () => {
    const { ttfaChanges } = await import('../../site/src/data/changes.ts');
    const flags = ttfaChanges([...days(500, 600), ...days(500, 510, 'enam'), ...days(400, 400, 'apac')], TODAY);
    expect(flags.map((f) => [f.region, f.direction])).toEqual([['weur', 'slower']]);
    expect(flags[0].change_pct).toBeCloseTo(20, 0);
    // Each day one value: 7 days against the 28 before, the whole interval past +5 %.
    expect(flags[0]).toMatchObject({ now: { days: 7 }, before: { days: 28 } });
    expect(flags[0].change_low_pct).toBeGreaterThan(5);
    expect(flags[0].window.split).toBe(new Date(TODAY - 7 * D).toISOString());
    expect(ttfaChanges(days(600, 450), TODAY)[0].direction).toBe('faster');
  });

  it('takes days as the unit: a week whose days wander by ±15 % is no change, though each day holds 288 samples', async () => {
    const { ttfaChanges } = await import('../../site/src/data/changes.ts');
    // Days alternate 15 % up and down, this week's one more up than down: its pooled median sits 8 % above the weeks
    // before, with intervals from 2,016 and 8,064 samples far apart (the rule before flagged it, +8.3 %).
    const wander = (d: number) => (d % 2 === 1 ? 1.15 : 0.85);
    expect(ttfaChanges(days(500, 500, 'weur', wander), TODAY)).toEqual([]);
  });

  it('flags at most 5 % of 2,000 targets whose days wander by ±8 % with no change, and calls a true +3 % "past 5 %" as rarely', async () => {
    const { changeDirection, dailyChange } = await import('../../site/src/data/changes.ts');
    const { mulberry32 } = await import('../../shared/stats/random.ts');
    const flagged = (change: number, targets: number) => {
      let n = 0;
      for (let t = 1; t <= targets; t++) {
        const r = mulberry32(36_000 + t + Math.round(change * 1e6));
        const day = (level: number) =>
          level * Math.exp(0.08 * Math.sqrt(-2 * Math.log(Math.max(r(), 1e-12))) * Math.cos(2 * Math.PI * r()));
        const before = Array.from({ length: 28 }, () => day(500));
        const now = Array.from({ length: 7 }, () => day(500 * (1 + change)));
        const c = dailyChange(now, before);
        if (c && changeDirection(c)) n++;
      }
      return n / targets;
    };
    expect(flagged(0, 2_000)).toBeLessThanOrEqual(0.05);
    expect(flagged(0.03, 2_000)).toBeLessThanOrEqual(0.05);
    // And a real change is still found: +20 % in at least 90 % of targets (at ±8 % a day, 7 days tell 20 % from 5 %).
    expect(flagged(0.2, 2_000)).toBeGreaterThanOrEqual(0.9);
  });

  it('puts each change in the Atom feed as an entry of its own', async () => {
    const { ttfaChanges } = await import('../../site/src/data/changes.ts');
    const { atomFeed } = await import('../../site/src/data/feed.ts');
    const changes = ttfaChanges(days(500, 600), TODAY);
    const site = {
      generated_at: new Date(TODAY).toISOString(),
      targets: [{ id: 'a', label: 'Target A' }],
      incidents: [],
      changes,
    } as unknown as SiteData;
    const xml = atomFeed(site, 'https://observatory.example/');
    expect(xml).toContain('<id>urn:llm-observatory:change:a:weur:p:2026-06-23</id>');
    expect(xml).toContain('<title>Changed: Target A 20 % slower to answer in weur (p)</title>');
    expect(xml).toContain('<link rel="alternate" type="text/html" href="https://observatory.example/targets/a/"/>');
  });
});
