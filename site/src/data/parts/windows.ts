/**
 * The window views: for each window the site offers and each prompt variant, the percentiles of every figure the
 * pages show by region and target (the split's parts per source), TTFT per target with its regions pooled, and the
 * history per region × target and per target (GET /api/v1/percentiles and /timeline, each answered from its view
 * for the whole grid and split here by variant: the site computes none of it).
 */
import type { PercentileGroup, TimelineDoc } from '../../../../shared/api-types.ts';
import { HISTOGRAM_RELATIVE_ERROR } from '../../../../shared/stats/exp-histogram.ts';
import { pointsOfSeries } from '../../../../shared/rollup/timeline.ts';
import { VIEW_WINDOWS, viewSpan } from '../../../../shared/views/windows.ts';
import { DEFAULT_WINDOW, SITE_METRICS, type HistoryPoint, type SiteMetric, type WindowView } from '../types.ts';
import type { SitePart } from './part.ts';

const iso = (t: number) => new Date(t).toISOString();

interface PercentileAnswer {
  window: { from: string; to: string };
  groups: PercentileGroup[];
}

/** A group's or point's variant: its own, or the only one when the configuration has one (and the API names none). */
const variantOf = (x: { prompt_variant?: string }, only: string) => x.prompt_variant ?? only;

const historyOf = (doc: TimelineDoc, variant: string, only: string): HistoryPoint[] =>
  pointsOfSeries(doc.series)
    .filter((p) => variantOf(p, only) === variant)
    .map(({ prompt_variant: _, ...p }) => p);

/** Every variant's views, empty: what a site shows before any probe. */
export function emptyWindows(variants: readonly string[], now: number): Record<string, WindowView[]> {
  const windows = VIEW_WINDOWS.map((w): WindowView => {
    const span = viewSpan(w.id, now);
    return {
      id: w.id,
      label: w.label,
      window: { from: iso(span.from), to: iso(span.to) },
      resolution: span.resolution,
      percentiles: Object.fromEntries(SITE_METRICS.map((m): [SiteMetric, PercentileGroup[]] => [m, []])) as Record<
        SiteMetric,
        PercentileGroup[]
      >,
      ttft_by_target: [],
      history: [],
      target_history: [],
    };
  });
  return Object.fromEntries(variants.map((v) => [v, windows]));
}

/** The fields of the default variant's default view, beside every variant's. */
function mainOf(variant_windows: Record<string, WindowView[]>, variant: string) {
  const windows = variant_windows[variant];
  const main = windows.find((w) => w.id === DEFAULT_WINDOW)!;
  return { variant_windows, windows, percentiles: main.percentiles, window: main.window, relative_error: HISTOGRAM_RELATIVE_ERROR };
}

export const windowsPart: SitePart = {
  name: 'windows',
  async collect({ api, data }) {
    const variants = data.variants!.map((v) => v.id);
    const only = variants[0];
    const out: Record<string, WindowView[]> = Object.fromEntries(variants.map((v) => [v, []]));
    for (const w of VIEW_WINDOWS) {
      const percentiles = new Map<SiteMetric, PercentileAnswer>();
      for (const m of SITE_METRICS)
        percentiles.set(m, await api.view(`percentiles_${m}_${w.id}`, 'percentiles', { window: w.id, metric: m }).as<PercentileAnswer>());
      const pooled = await api
        .view(`percentiles_ttft_by_target_${w.id}`, 'percentiles', { window: w.id, by: 'target' })
        .as<PercentileAnswer>();
      const history = await api.view(`timeline_${w.id}`, 'timeline', { window: w.id }).as<TimelineDoc>();
      const targetHistory = await api.view(`timeline_pooled_${w.id}`, 'timeline', { window: w.id, pooled: true }).as<TimelineDoc>();
      for (const v of variants)
        out[v].push({
          id: w.id,
          label: w.label,
          window: percentiles.get('ttft_ms')!.window,
          resolution: history.resolution,
          percentiles: Object.fromEntries(
            SITE_METRICS.map((m) => [m, percentiles.get(m)!.groups.filter((g) => variantOf(g, only) === v)]),
          ) as Record<SiteMetric, PercentileGroup[]>,
          ttft_by_target: pooled.groups.filter((g) => variantOf(g, only) === v),
          history: historyOf(history, v, only),
          target_history: historyOf(targetHistory, v, only),
        });
    }
    // What a reader (or the browser test) asks to check a shown figure: the default view, narrowed to the page's variant.
    for (const m of SITE_METRICS)
      api.requests[`percentiles_${m}`] = api.url('percentiles', { window: DEFAULT_WINDOW, metric: m, variant: only });
    return mainOf(out, only);
  },
  empty(_config, now, data) {
    const variants = data.variants!.map((v) => v.id);
    return mainOf(emptyWindows(variants, now), variants[0]);
  },
};
