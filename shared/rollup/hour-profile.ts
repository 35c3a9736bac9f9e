/**
 * Time profiles: when is a target slow? Each daily rollup also keeps its day's 24 hours of TTFT (successful
 * probes and median, from the hourly rows' histograms), so an hour-of-day × day-of-week view of four weeks
 * reads one row a day. The site merges the days into cells (profileCells): the median of the days' hourly
 * medians, with the probes behind it; a cell with too little data stays empty.
 */
import { quantile } from '../stats/exp-histogram.ts';
import { HOUR_MS } from '../time.ts';
import type { Rollup } from './rollup.ts';

export interface HourProfile {
  day: number;
  region: string;
  target: string;
  prompt_variant: string;
  method_version: number;
  /** Per UTC hour of the day: [successful probes, TTFT p50 in ms (null: none)]. */
  hours: Array<[number, number | null]>;
}

/** The day's profiles, one per group, from its hourly rows. */
export function hourProfiles(hourly: readonly Rollup[], day: number): HourProfile[] {
  const groups = new Map<string, HourProfile>();
  for (const r of hourly) {
    const h = Math.floor((r.hour - day) / HOUR_MS);
    if (h < 0 || h >= 24) continue;
    const key = `${r.region}|${r.target}|${r.prompt_variant}|${r.method_version}`;
    let p = groups.get(key);
    if (!p)
      groups.set(
        key,
        (p = {
          day,
          region: r.region,
          target: r.target,
          prompt_variant: r.prompt_variant,
          method_version: r.method_version,
          hours: Array.from({ length: 24 }, () => [0, null] as [number, number | null]),
        }),
      );
    const histogram = r.histograms.ttft_ms;
    p.hours[h] = [histogram.count, histogram.count > 0 ? Math.round(quantile(histogram, 0.5)! * 10) / 10 : null];
  }
  return [...groups.values()];
}

/** Days a cell needs (in four weeks a cell has four) and probes, before its median is shown. */
export const CELL_MIN_DAYS = 2;
export const CELL_MIN_PROBES = 12;

export interface ProfileCell {
  /** 0 Monday … 6 Sunday (UTC). */
  weekday: number;
  hour: number;
  days: number;
  probes: number;
  /** Median of the days' hourly TTFT medians; null when the cell has too little data. */
  ttft_p50: number | null;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** The 7 × 24 cells of one region × target × variant from its days' profiles. */
export function profileCells(days: readonly Pick<HourProfile, 'day' | 'hours'>[]): ProfileCell[] {
  const cells: ProfileCell[] = [];
  for (let weekday = 0; weekday < 7; weekday++)
    for (let hour = 0; hour < 24; hour++) {
      const values: number[] = [];
      let probes = 0;
      for (const d of days) {
        if ((new Date(d.day).getUTCDay() + 6) % 7 !== weekday) continue;
        const [n, p50] = d.hours[hour] ?? [0, null];
        if (n > 0 && p50 !== null) {
          values.push(p50);
          probes += n;
        }
      }
      const enough = values.length >= CELL_MIN_DAYS && probes >= CELL_MIN_PROBES;
      cells.push({ weekday, hour, days: values.length, probes, ttft_p50: enough ? median(values) : null });
    }
  return cells;
}
