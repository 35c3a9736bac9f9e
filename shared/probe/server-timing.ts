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
 * The Server-Timing metrics that may stand for the server's time before its headers. Nested metrics
 * (a `total` around its parts, Cloudflare's `cfOrigin` around the origin's own) must never be summed,
 * so without configuration every single metric with a `dur` is a candidate, and the largest plausible
 * one wins. A configured entry is a metric name, or names joined by `+` for sequential parts that the
 * server reports separately; only configured entries that are present are candidates.
 */
export function serverTimingClaims(metrics: ServerTimingMetric[], configured?: readonly string[]): TimingClaim[] {
  const durs = new Map<string, number>();
  for (const m of metrics) {
    const key = m.name.toLowerCase();
    if (m.dur !== null && !durs.has(key)) durs.set(key, m.dur);
  }
  if (!configured || configured.length === 0) {
    const claims: TimingClaim[] = [];
    const seen = new Set<string>();
    for (const m of metrics) {
      const key = m.name.toLowerCase();
      if (m.dur === null || seen.has(key)) continue;
      seen.add(key);
      claims.push({ source: SERVER_TIMING_PREFIX + m.name, ms: m.dur });
    }
    return claims;
  }
  const claims: TimingClaim[] = [];
  for (const entry of configured) {
    const parts = entry.split('+').map((p) => p.trim().toLowerCase());
    if (parts.some((p) => !durs.has(p))) continue;
    claims.push({ source: SERVER_TIMING_PREFIX + entry.replace(/\s+/g, ''), ms: parts.reduce((sum, p) => sum + durs.get(p)!, 0) });
  }
  return claims;
}
