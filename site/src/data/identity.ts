/**
 * One visual language across pages: every target has one colour wherever it appears (by its place in
 * the configuration, not by which targets a chart happens to show), and regions appear in the
 * configured order in every table and chart.
 */
import { PALETTE, type SeriesColors } from '../charts/render.ts';
import type { SiteData } from './types.ts';

const paint = (names: string[]): SeriesColors => new Map(names.map((n, i) => [n, PALETTE[i % PALETTE.length]]));

/** Target label → colour (charts name targets by label). */
export function targetColors(data: Pick<SiteData, 'targets'>): SeriesColors {
  return paint(data.targets.map((t) => t.label));
}

/** Target id → colour. */
export function targetColor(data: Pick<SiteData, 'targets'>, id: string): string {
  const i = data.targets.findIndex((t) => t.id === id);
  return i < 0 ? '#9A9A9A' : PALETTE[i % PALETTE.length];
}

/** Region code → colour, in the configured order. */
export function regionColors(data: Pick<SiteData, 'regions'>): SeriesColors {
  return paint(data.regions.map((r) => r.code));
}

/** Sorts by the configured region order. */
export function regionRank(data: Pick<SiteData, 'regions'>): (code: string) => number {
  const order = new Map(data.regions.map((r, i) => [r.code, i]));
  return (code) => order.get(code) ?? Number.MAX_SAFE_INTEGER;
}
