/**
 * How numbers appear on the site: one rule for every table, chart tick and sentence, so a reader can
 * compare. Digits by size: two decimals below 1, one below 10, whole numbers from 10, thousands
 * separated by commas from 1,000 (the same in every locale); a minus sign, not a hyphen.
 */
export function fmt(v: number): string {
  const a = Math.abs(v);
  const digits = a < 1 && a !== 0 ? 2 : a < 10 ? 1 : 0;
  // Rounding first, so 9.96 becomes 10 (not 10.0) and 0.999 becomes 1.0.
  const rounded = Number(a.toFixed(digits));
  const shown = rounded >= 10 ? Math.round(rounded) : rounded;
  const text = shown >= 10 ? String(shown).replace(/\B(?=(\d{3})+(?!\d))/g, ',') : shown.toFixed(shown === 0 ? 0 : shown < 1 ? 2 : 1);
  return v < 0 && shown !== 0 ? `−${text}` : text;
}

/** A figure or a dash where there is none. */
export function ms(v: number | null | undefined): string {
  return v === null || v === undefined || !Number.isFinite(v) ? '–' : fmt(v);
}

/** Any other quantity (tokens per second, tokens per chunk): the same digits rule. */
export const num = ms;

/** A signed difference: "+2,500", "−1". */
export function signed(v: number | null | undefined): string {
  return v === null || v === undefined ? '–' : v > 0 ? `+${fmt(v)}` : fmt(v);
}

export function rate(v: number | null | undefined): string {
  return v === null || v === undefined ? '–' : `${fmt(v * 100)} %`;
}

export function when(iso: string | null | undefined): string {
  if (!iso) return 'never';
  return iso
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC')
    .replace(/Z$/, ' UTC');
}

/** "123 [110–140]": a percentile with its 95 % interval, or without when the sample is too small. */
export function withCi(value: number | null, low: number | null, high: number | null, format: (v: number | null) => string = ms): string {
  if (value === null) return '–';
  return low === null || high === null ? format(value) : `${format(value)} [${format(low)}–${format(high)}]`;
}

/** One decimal more than the rule, for a figure whose interval is narrower than a whole unit (80.0 [79.8–80.3]). */
export function precise(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  if (Math.abs(v) < 10) return fmt(v);
  const [whole, tenth] = Math.abs(v).toFixed(1).split('.');
  return `${v < 0 ? '−' : ''}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${tenth}`;
}

/** A tail percentile's note when its sample is too small for a 95 % interval (its cell is shown muted). */
export function tailNote(n: number, needed: number): string {
  return `from ${n} samples: a 95 % interval needs ${needed.toLocaleString('en-US')} or more; read with care`;
}

/** "2026-11-30 02:00": a period's start in a table whose column says UTC. */
export function hour(iso: string): string {
  return iso.slice(0, 16).replace('T', ' ');
}

/** US dollars with three significant digits, however small ("$0.000063", "$0.00135", "$1.25"): a cost per request. */
export function usd(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  return `${v < 0 ? '−' : ''}$${Math.abs(v).toLocaleString('en-US', { maximumSignificantDigits: 3 })}`;
}
