/**
 * Renders an Observable Plot chart to SVG at build time, in a server-side DOM (linkedom): no chart
 * library reaches the browser. Each chart is drawn twice, for a wide screen and for a phone, so its
 * text stays at reading size on both (the page shows one by a media query; scaling one drawing down
 * to a phone made 12 px labels 6 px). Text and axes use currentColor, so charts follow the page's
 * light or dark colours.
 */
import * as Plot from '@observablehq/plot';
import { parseHTML } from 'linkedom';
import { fmt } from '../format.ts';

/**
 * Series colours: Okabe & Ito (2008), safe for colour-blind readers, without black (it vanishes in
 * dark mode) and with yellow last (low contrast on white). A series keeps its colour on every page
 * (identity.ts); the split's parts have colours of their own, outside this palette.
 */
export const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#56B4E9', '#CC79A7', '#F0E442'];
/** Network, the server's time, the residual (part of the server's time its own report leaves out), no split: slate and sand, never a series colour. */
export const PART_COLORS = { network: '#8DA9C4', server: '#4A6E8F', residual: '#C8B27A', 'no split': '#9A9A9A' } as const;
export type Part = keyof typeof PART_COLORS;

/** The wide drawing's width, and the phone's (a 390 px screen less the page's and the chart's padding). */
export const WIDTH = 640;
export const NARROW = 340;

/** Ordered series → colour. */
export type SeriesColors = Map<string, string>;

/** Tick labels by the site's one number rule (12, 0.25, 1,500), the same in every locale. */
export function tick(d: unknown): string {
  return typeof d !== 'number' ? String(d) : Number.isInteger(d) ? fmt(d).replace(/\.0$/, '') : fmt(d);
}

function withTicks(scale: Plot.ScaleOptions | undefined): Plot.ScaleOptions | undefined {
  if (
    !scale ||
    scale.tickFormat !== undefined ||
    scale.type === 'utc' ||
    scale.type === 'time' ||
    scale.type === 'band' ||
    scale.type === 'point'
  )
    return scale;
  return { ...scale, tickFormat: tick };
}

/** The part of a linkedom element this module touches. */
interface RenderedNode {
  tagName: string;
  outerHTML: string;
  querySelector(selector: string): RenderedNode | null;
  setAttribute(name: string, value: string): void;
}

function drawOne(options: Plot.PlotOptions, label: string, width: number): string {
  const { document } = parseHTML('<!doctype html><html><body></body></html>');
  const chart = Plot.plot({
    width,
    style: { background: 'transparent', color: 'currentColor', fontSize: '12px', overflow: 'visible' },
    ...options,
    x: withTicks(options.x),
    y: withTicks(options.y),
    document: document as never,
  }) as unknown as RenderedNode;
  const svg = chart.tagName.toLowerCase() === 'svg' ? chart : chart.querySelector('svg')!;
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  return chart.outerHTML;
}

/**
 * A chart drawn at both widths. `options` may depend on the width (fewer ticks on a phone). The phone's
 * drawing is hidden from assistive technology: the same chart is described once.
 */
export function renderPlot(options: Plot.PlotOptions | ((width: number) => Plot.PlotOptions), label: string): string {
  const at = (w: number) => (typeof options === 'function' ? options(w) : options);
  return `<div class="plot-wide">${drawOne(at(WIDTH), label, WIDTH)}</div><div class="plot-narrow" aria-hidden="true">${drawOne(at(NARROW), label, NARROW)}</div>`;
}

/** A colour scale over the series a chart shows, each in its stable colour and order. */
export function colorScale(present: Iterable<string>, colors?: SeriesColors): Plot.ScaleOptions {
  const shown = new Set(present);
  const domain = colors ? [...colors.keys()].filter((k) => shown.has(k)) : [...shown].sort();
  for (const s of shown) if (!domain.includes(s)) domain.push(s);
  const range = domain.map((k, i) => colors?.get(k) ?? PALETTE[i % PALETTE.length]);
  return { type: 'ordinal', domain, range, legend: true };
}

/** The split's parts as a colour scale. */
export function partScale(parts: Part[]): Plot.ScaleOptions {
  return { type: 'ordinal', domain: parts, range: parts.map((p) => PART_COLORS[p]), legend: true };
}

/** The series of a chart in their stable order. */
export function ordered(present: Iterable<string>, colors?: SeriesColors): string[] {
  return colorScale(present, colors).domain as string[];
}
