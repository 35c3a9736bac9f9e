/**
 * W3C Server-Timing header parser: `name;dur=12.3;desc="text", other;dur=4`. Several metrics per
 * header and several header lines (joined with ", " by Headers.get), quoted `desc` (commas and
 * semicolons inside quotes are kept), unknown params ignored, the first of a repeated param wins,
 * malformed entries skipped.
 */
export interface ServerTimingMetric {
  name: string;
  dur: number | null;
  desc: string | null;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Splits on `sep` outside double-quoted strings (with backslash escapes). */
function splitOutsideQuotes(text: string, sep: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') {
      quoted = true;
    } else if (c === sep) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function unquote(value: string): string | null {
  if (!value.startsWith('"')) return TOKEN.test(value) ? value : null;
  if (value.length < 2 || !value.endsWith('"')) return null;
  return value.slice(1, -1).replace(/\\(.)/g, '$1');
}

export function parseServerTiming(header: string | null): ServerTimingMetric[] {
  if (!header) return [];
  const metrics: ServerTimingMetric[] = [];
  for (const entry of splitOutsideQuotes(header, ',')) {
    const [rawName, ...rawParams] = splitOutsideQuotes(entry, ';');
    const name = rawName.trim();
    if (!TOKEN.test(name)) continue;
    let dur: number | null = null;
    let desc: string | null = null;
    let durSeen = false;
    let descSeen = false;
    for (const rawParam of rawParams) {
      const eq = rawParam.indexOf('=');
      const key = (eq === -1 ? rawParam : rawParam.slice(0, eq)).trim().toLowerCase();
      const value = eq === -1 ? '' : unquote(rawParam.slice(eq + 1).trim());
      if (key === 'dur' && !durSeen) {
        durSeen = true;
        const n = value === null || value === '' ? NaN : Number(value);
        dur = Number.isFinite(n) && n >= 0 ? n : null;
      } else if (key === 'desc' && !descSeen) {
        descSeen = true;
        desc = value;
      }
    }
    metrics.push({ name, dur, desc });
  }
  return metrics;
}

export interface TimingClaim {
  /** Where the claim came from, e.g. `server-timing.total` or `openai-processing-ms`. */
  source: string;
  ms: number;
}

export const SERVER_TIMING_PREFIX = 'server-timing.';

/**
 * Bounds on what a response's Server-Timing may put in a sample (MEASUREMENT.md, how this project reads
 * the contract): the name's length and characters, and how many metrics of one response are kept.
 * Real servers send a handful of short names (`total`, `cfOrigin`, `gfet4t7`).
 */
export const MAX_SERVER_TIMING_NAME_CHARS = 64;
export const MAX_SERVER_TIMING_METRICS = 16;
/** Letters, digits, `_`, `.` and `-`: every real vendor's names, and plain text as a label or a CSV cell. */
const KEPT_NAME = /^[A-Za-z0-9_.-]+$/;

/** A metric name kept in a sample: short enough, and of the kept characters. */
export const keptMetricName = (name: string): boolean => name.length <= MAX_SERVER_TIMING_NAME_CHARS && KEPT_NAME.test(name);

/** A `serverTimingMetrics` entry the probe can match: kept names, joined by `+`. */
export const validServerTimingEntry = (entry: string): boolean => entry.split('+').every((p) => keptMetricName(p.trim()));

/**
 * The metrics a sample keeps: those with a `dur` and a kept name, the first of each name (case aside),
 * the first MAX_SERVER_TIMING_METRICS of them, and every one a configured entry names besides.
 */
export function keptMetrics(metrics: ServerTimingMetric[], configured?: readonly string[]): ServerTimingMetric[] {
  const named = new Set((configured ?? []).flatMap((entry) => entry.split('+').map((p) => p.trim().toLowerCase())));
  const seen = new Set<string>();
  const kept: ServerTimingMetric[] = [];
  let others = 0;
  for (const m of metrics) {
    const key = m.name.toLowerCase();
    if (m.dur === null || seen.has(key) || !keptMetricName(m.name)) continue;
    if (!named.has(key)) {
      if (others >= MAX_SERVER_TIMING_METRICS) continue;
      others++;
    }
    seen.add(key);
    kept.push(m);
  }
  return kept;
}

/**
 * The Server-Timing metrics that may stand for the server's time before its headers. Nested metrics
 * (a `total` around its parts, Cloudflare's `cfOrigin` around the origin's own) must never be summed,
 * so without configuration every single metric with a `dur` is a candidate, and the largest plausible
 * one wins. A configured entry is a metric name, or names joined by `+` for sequential parts that the
 * server reports separately; only configured entries that are present are candidates. Only the
 * metrics a sample keeps (keptMetrics) are candidates.
 */
export function serverTimingClaims(parsed: ServerTimingMetric[], configured?: readonly string[]): TimingClaim[] {
  // Each kept metric has a `dur` and is the first of its name.
  const metrics = keptMetrics(parsed, configured);
  if (!configured || configured.length === 0) return metrics.map((m) => ({ source: SERVER_TIMING_PREFIX + m.name, ms: m.dur! }));
  const durs = new Map(metrics.map((m) => [m.name.toLowerCase(), m.dur!]));
  const claims: TimingClaim[] = [];
  for (const entry of configured) {
    const parts = entry.split('+').map((p) => p.trim().toLowerCase());
    if (parts.some((p) => !durs.has(p))) continue;
    claims.push({ source: SERVER_TIMING_PREFIX + entry.replace(/\s+/g, ''), ms: parts.reduce((sum, p) => sum + durs.get(p)!, 0) });
  }
  return claims;
}
