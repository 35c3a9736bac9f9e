/**
 * Renders an Observable Plot chart to an SVG string at build time, in a server-side DOM (linkedom):
 * no chart library reaches the browser. Text and axes use currentColor, so charts follow the page's
 * light or dark colours; series colours are the Okabe–Ito palette, safe for colour-blind readers.
 */
import * as Plot from '@observablehq/plot';
import { parseHTML } from 'linkedom';

/** Okabe & Ito (2008), without black (it vanishes in dark mode) and with yellow last (low contrast on white). */
export const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#56B4E9', '#CC79A7', '#F0E442'];
export const WIDTH = 640;

/** Plain tick labels (12, 0.25, 1500), the same in every locale. */
export function tick(d: unknown): string {
  return typeof d === 'number' ? String(Number(d.toPrecision(4))) : String(d);
}

function withTicks(scale: Plot.ScaleOptions | undefined): Plot.ScaleOptions | undefined {
  if (!scale || scale.tickFormat !== undefined || scale.type === 'utc' || scale.type === 'time') return scale;
  return { ...scale, tickFormat: tick };
}

/** The part of a linkedom element this module touches. */
interface RenderedNode {
  tagName: string;
  outerHTML: string;
  querySelector(selector: string): RenderedNode | null;
  setAttribute(name: string, value: string): void;
}

export function renderPlot(options: Plot.PlotOptions, label: string): string {
  const { document } = parseHTML('<!doctype html><html><body></body></html>');
  const chart = Plot.plot({
    width: WIDTH,
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

export function colorScale(domain: string[]): Plot.ScaleOptions {
  return { type: 'ordinal', domain, range: PALETTE, legend: true };
}
