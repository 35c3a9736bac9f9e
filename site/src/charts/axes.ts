/** The charts' shared axes and units: the time axis, log ticks and the run of periods a point belongs to. */
import type * as Plot from '@observablehq/plot';
import { WIDTH } from './render.ts';
import { DAY_MS } from '../../../shared/time.ts';

export const MS = 'ms';

/** A UTC time axis in hours and minutes over the whole window (so one busy hour is a bar in its place, not the whole chart). */
export function timeAxis(width: number, window?: { from: number; to: number }): Plot.ScaleOptions {
  const multiDay = window !== undefined && window.to - window.from > 2 * DAY_MS;
  return {
    label: 'time (UTC) →',
    type: 'utc',
    ticks: width < WIDTH ? 4 : 8,
    tickFormat: multiDay ? '%b %-d' : '%H:%M',
    ...(window ? { domain: [new Date(window.from), new Date(window.to)] } : {}),
  };
}

/** The start of the unbroken run of periods a point belongs to (its series' periods without a gap). */
export function runOf(points: Array<{ series: string; t: number }>, p: { series: string; t: number }, periodMs: number): number {
  const times = new Set(points.filter((q) => q.series === p.series).map((q) => q.t));
  let t = p.t;
  while (times.has(t - periodMs)) t -= periodMs;
  return t;
}

/** Tick values for a log axis over [lo, hi]: 1, 2 and 5 times powers of ten, thinned to at most `max`. */
export function logTicks(lo: number, hi: number, max: number): number[] {
  const all: number[] = [];
  for (let p = Math.floor(Math.log10(Math.max(lo, 1e-9))); 10 ** p <= hi; p++)
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** p;
      if (v >= lo && v <= hi) all.push(v);
    }
  if (all.length <= max) return all;
  const decades = all.filter((v) => Math.log10(v) % 1 === 0);
  return decades.length >= 2 ? decades : [all[0], all.at(-1)!];
}
