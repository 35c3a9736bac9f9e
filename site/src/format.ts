/** How numbers appear on the site: the same function for every table, so a reader can compare. */
export function ms(v: number | null | undefined): string {
  if (v === null || v === undefined) return '–';
  return Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(1);
}

export function rate(v: number | null | undefined): string {
  return v === null || v === undefined ? '–' : `${(v * 100).toFixed(v > 0 && v < 0.01 ? 2 : 1)} %`;
}

export function num(v: number | null | undefined, digits = 1): string {
  return v === null || v === undefined ? '–' : v.toFixed(digits);
}

export function when(iso: string | null | undefined): string {
  if (!iso) return 'never';
  return iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC').replace(/Z$/, ' UTC');
}

/** "p50 123 ms [110–140]": a percentile with its 95 % interval, or without when the sample is too small. */
export function withCi(value: number | null, low: number | null, high: number | null): string {
  if (value === null) return '–';
  return low === null || high === null ? ms(value) : `${ms(value)} [${ms(low)}–${ms(high)}]`;
}

/** A tail percentile, marked with * when the sample is too small for its 95 % interval. */
export function tail(value: number | null, ciLow: number | null): string {
  return value !== null && ciLow === null ? `${ms(value)}*` : ms(value);
}
