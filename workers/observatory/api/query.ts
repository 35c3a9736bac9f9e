/** Query-string parsing for the read API: every bad value gets a 400 that says what was expected. */
import { badRequest } from './errors.ts';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../../shared/time.ts';

const UNIT_MS: Record<string, number> = { m: MINUTE_MS, h: HOUR_MS, d: DAY_MS };
export const DEFAULT_WINDOW_MS = UNIT_MS.d;
export const MAX_WINDOW_MS = 366 * UNIT_MS.d;

export interface Window {
  from: number;
  to: number;
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/;
/** Times the API takes: 2000-01-01 to 2100-01-01 UTC (outside it a time is a typo, and dates stop being printable). */
const EARLIEST_MS = Date.UTC(2000, 0, 1);
const LATEST_MS = Date.UTC(2100, 0, 1);
/** Distinct free-form values a list parameter (split_source) takes at most. */
export const MAX_FREE_LIST_VALUES = 20;

function parseInstant(name: string, value: string): number {
  const t = /^\d{10,16}$/.test(value) ? Number(value) : ISO_8601.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(t))
    throw badRequest(`${name} must be an ISO 8601 time (2026-01-31 or 2026-01-31T12:00:00Z) or epoch milliseconds, got "${value}"`);
  if (t < EARLIEST_MS || t > LATEST_MS) throw badRequest(`${name} must lie between 2000-01-01 and 2100-01-01, got "${value}"`);
  return t;
}

/** `window=24h` (m, h, d) ending now, or `from`/`to` (ISO 8601 or epoch ms); default the last 24 hours. */
export function parseWindow(q: URLSearchParams, now: number): Window {
  const to = q.has('to') ? parseInstant('to', q.get('to')!) : now;
  let from: number;
  if (q.has('from')) {
    if (q.has('window')) throw badRequest('give either window or from, not both');
    from = parseInstant('from', q.get('from')!);
  } else if (q.has('window')) {
    const m = /^(\d+)([mhd])$/.exec(q.get('window')!);
    if (!m || Number(m[1]) === 0) throw badRequest(`window must look like 30m, 6h or 7d, got "${q.get('window')}"`);
    from = to - Number(m[1]) * UNIT_MS[m[2]];
  } else {
    from = to - DEFAULT_WINDOW_MS;
  }
  if (from >= to) throw badRequest('from must be before to');
  if (to - from > MAX_WINDOW_MS) throw badRequest('the window may span at most 366 days');
  return { from, to };
}

/** The distinct non-empty values of a comma-separated parameter, in the order given. */
export function commaValues(raw: string): string[] {
  return [
    ...new Set(
      raw
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean),
    ),
  ];
}

/** A comma-separated list whose every value must be one of `known`; each value once (so never longer than `known`). */
export function parseList(q: URLSearchParams, name: string, known: readonly string[]): string[] | undefined {
  const raw = q.get(name);
  if (raw === null || raw === '') return undefined;
  const values = commaValues(raw);
  if (values.length === 0) throw badRequest(`${name} names no value; give one or more of ${known.join(', ')}, comma-separated`);
  for (const v of values) {
    if (!known.includes(v)) throw badRequest(`unknown ${name} "${v.slice(0, 100)}"; known: ${known.join(', ')}`);
  }
  return values;
}

export function parseIntParam(q: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = q.get(name);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max)
    throw badRequest(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  return Number(raw);
}

export function parseChoice<T extends string>(q: URLSearchParams, name: string, choices: readonly T[], fallback: T): T {
  const raw = q.get(name);
  if (raw === null) return fallback;
  if (!(choices as readonly string[]).includes(raw)) throw badRequest(`${name} must be one of ${choices.join(', ')}, got "${raw}"`);
  return raw as T;
}

export function parseBoolean(q: URLSearchParams, name: string, fallback: boolean): boolean {
  const raw = q.get(name);
  if (raw === null) return fallback;
  if (raw === '1' || raw === 'true') return true;
  if (raw === '0' || raw === 'false') return false;
  throw badRequest(`${name} must be true or false, got "${raw}"`);
}

/** Rejects parameters the route does not know, or gives twice, so a typo is not silently ignored. */
export function onlyKnown(q: URLSearchParams, known: readonly string[]): void {
  for (const name of new Set(q.keys())) {
    if (!known.includes(name)) throw badRequest(`unknown parameter "${name}"; this route takes: ${known.join(', ')}`);
    if (q.getAll(name).length > 1) throw badRequest(`parameter "${name}" is given more than once`);
  }
  parseChoice(q, 'format', ['json', 'csv'], 'json');
}
