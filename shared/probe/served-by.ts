/**
 * Where the vendor answered (MEASUREMENT.md, "Where a sample was taken"): `served_by` with the header,
 * body field or URL part that said so in `served_by_source`. The most specific statement wins: the
 * provider a router names in the body, then a vendor's own region header, then the region in the
 * endpoint's host, then the CDN PoP that answered. Vendor bytes are hostile: a value is kept only when
 * it is short, printable text, never anything else.
 */
import { upstreamColo } from './header-timings.ts';

export interface ServedBy {
  value: string;
  source: string;
}

/** Longest value kept: region and provider names are short; anything longer is not one. */
const MAX_VALUE_CHARS = 64;
const PLAIN_VALUE = /^[\w .,:()/+-]+$/;

/** A vendor's value, trimmed, if it looks like a name; null otherwise. */
export function servedValue(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const value = raw.trim();
  return value.length > 0 && value.length <= MAX_VALUE_CHARS && PLAIN_VALUE.test(value) ? value : null;
}

/** Headers that name the vendor's region, in order of preference. */
const REGION_HEADERS = ['x-ms-region', 'x-groq-region'] as const;
/** Headers that name the CDN PoP that answered (CloudFront), after which the cf-ray suffix (a Cloudflare colo). */
const POP_HEADERS = ['x-amz-cf-pop'] as const;

/**
 * The region in a cloud endpoint's host: Bedrock (`bedrock-runtime.us-east-1.amazonaws.com`, also
 * FIPS), Vertex AI (`europe-west4-aiplatform.googleapis.com`; the bare `aiplatform.googleapis.com` is
 * its global endpoint).
 */
const HOST_REGIONS: ReadonlyArray<{ pattern: RegExp; source: string }> = [
  { pattern: /^bedrock-runtime(?:-fips)?\.([a-z]{2}(?:-[a-z]+)+-\d)\.amazonaws\.com$/, source: 'url.host' },
  { pattern: /^([a-z]+-[a-z]+\d+)-aiplatform\.googleapis\.com$/, source: 'url.host' },
];

export function regionOfHost(url: string): ServedBy | null {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
  for (const { pattern, source } of HOST_REGIONS) {
    const m = pattern.exec(host);
    if (m) return { value: m[1], source };
  }
  if (host === 'aiplatform.googleapis.com') return { value: 'global', source: 'url.host' };
  return null;
}

/**
 * Where the answer was served, from what the response said (`body`: a routed provider the stream
 * named, e.g. OpenRouter's `provider`), its headers and the endpoint's URL; null when nothing said.
 */
export function servedBy(body: ServedBy | null, headers: Headers | null, url: string): ServedBy | null {
  if (body) return body;
  if (headers)
    for (const name of REGION_HEADERS) {
      const value = servedValue(headers.get(name));
      if (value) return { value, source: name };
    }
  const host = regionOfHost(url);
  if (host) return host;
  if (!headers) return null;
  for (const name of POP_HEADERS) {
    const value = servedValue(headers.get(name));
    if (value) return { value, source: name };
  }
  const colo = upstreamColo(headers);
  return colo ? { value: colo, source: 'cf-ray' } : null;
}
