/** Median TTFT by UTC hour × weekday, per region. Each chart is a plain function of its data, returning inline SVG. */
import * as Plot from '@observablehq/plot';
import { renderPlot, WIDTH } from './render.ts';

/** One cell of a time profile: its weekday (0 Monday) and UTC hour, and its median TTFT (null: too little data). */
export interface ProfileCellRow {
  region: string;
  weekday: number;
  hour: number;
  ttft_p50: number | null;
  probes: number;
}

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** Median TTFT by UTC hour of day × day of week, one panel per region (Plot's cell mark); cells with too little data left blank. */
export function timeProfileChart(cells: ProfileCellRow[], regions: string[]): string {
  const shown = cells.filter((c) => c.ttft_p50 !== null).map((c) => ({ ...c, day: WEEKDAYS[c.weekday] }));
  return renderPlot(
    (w) => ({
      height: 60 + regions.length * 150,
      marginLeft: 40,
      x: {
        label: 'UTC hour →',
        domain: Array.from({ length: 24 }, (_, h) => h),
        tickFormat: (h: number) => (w < WIDTH && h % 6 ? '' : String(h)),
      },
      y: { label: null, domain: WEEKDAYS },
      fy: { label: null, domain: regions },
      // No colour legend: its ramp needs a canvas, which the build (linkedom) has not; the caption says darker is slower.
      color: { type: 'linear', scheme: 'blues', label: 'TTFT p50 (ms)' },
      marks: [
        Plot.cell(shown, {
          x: 'hour',
          y: 'day',
          fy: 'region',
          fill: 'ttft_p50',
          inset: 0.5,
          title: (d: { day: string; hour: number; ttft_p50: number; probes: number }) =>
            `${d.day} ${d.hour}:00 UTC: ${Math.round(d.ttft_p50)} ms (${d.probes} probes)`,
        }),
      ],
    }),
    'Median TTFT by hour of day and day of week',
  );
}
